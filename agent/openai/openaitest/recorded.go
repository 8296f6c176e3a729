package openaitest

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"sync"
)

// Recording is one exchange with a real server, written by the e2e suite
// (app/e2e, TestLlamaServerRecordings) into testdata/<server>/NAME.json
// and read back here: the stand-in takes its words from them, and
// TestStandInAgreesWithRecordings replays each against the stand-in, so
// the stand-in can neither accept what the real server refuses nor word a
// refusal differently without a test failing.
type Recording struct {
	Name  string `json:"name"`
	Build string `json:"build"` // the server's build_info, e.g. "b11669-Debian"
	// Context is the n_ctx the server ran with.
	Context int `json:"context"`
	// Request is the body sent to /v1/chat/completions.
	Request json.RawMessage `json:"request"`
	// Status is the HTTP status of the answer; InStream says the error
	// came as an event after a 200.
	Status   int  `json:"status"`
	InStream bool `json:"inStream,omitempty"`
	// Error is the {"code", "message", "type", …} object the server sent,
	// nil when it accepted the request.
	Error json.RawMessage `json:"error,omitempty"`
	// ModelOutput says the failure came from what the model wrote, not
	// from the request: the stand-in shows it for a call whose arguments
	// are not JSON.
	ModelOutput bool `json:"modelOutput,omitempty"`
	// Calls is how many tool calls the reply held, and Reasoning the
	// reasoning_content it streamed: what the e2e suite sends Hark in place
	// of a reply of its own, when it needs one of that shape.
	Calls     int    `json:"calls,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
}

// ErrorBody is a recording's error object.
type ErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

// Body decodes r.Error; ok is false when the server accepted the request.
func (r Recording) Body() (b ErrorBody, ok bool) {
	if len(r.Error) == 0 || json.Unmarshal(r.Error, &b) != nil {
		return ErrorBody{}, false
	}
	return b, true
}

//go:embed testdata
var recorded embed.FS

// RecordingsDir is where recordings of llama-server live, from the
// repository's root.
const RecordingsDir = "agent/openai/openaitest/testdata/llama-server"

var (
	loadOnce sync.Once
	loaded   []Recording
	loadErr  error
)

// Recordings are the recorded exchanges with llama-server, by name.
func Recordings() ([]Recording, error) {
	loadOnce.Do(func() {
		dir := "testdata/llama-server"
		entries, err := recorded.ReadDir(dir)
		if err != nil {
			loadErr = err
			return
		}
		for _, e := range entries {
			if path.Ext(e.Name()) != ".json" {
				continue
			}
			b, err := recorded.ReadFile(path.Join(dir, e.Name()))
			if err != nil {
				loadErr = err
				return
			}
			var r Recording
			if err := json.Unmarshal(b, &r); err != nil {
				loadErr = fmt.Errorf("%s: %v", e.Name(), err)
				return
			}
			loaded = append(loaded, r)
		}
		sort.Slice(loaded, func(i, j int) bool { return loaded[i].Name < loaded[j].Name })
	})
	return loaded, loadErr
}

// Recorded is the recording called name; it panics when there is none,
// since the stand-in cannot speak without it.
func Recorded(name string) Recording {
	rs, err := Recordings()
	if err != nil {
		panic("openaitest: " + err.Error())
	}
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	panic("openaitest: no recording " + name + " in testdata/llama-server (record them with the e2e suite: HARK_E2E_RECORD=1)")
}

// recordedMessage is the message of the recorded error called name.
func recordedMessage(name string) string {
	b, _ := Recorded(name).Body()
	return b.Message
}

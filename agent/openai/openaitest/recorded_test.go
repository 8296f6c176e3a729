package openaitest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent/openai/openaitest"
)

// Every exchange recorded with the real llama-server, replayed against
// the stand-in: it must refuse what the server refused, with the same
// status, type and words (numbers aside), and accept what it accepted.
// A failure of the model's own output cannot be replayed from the
// request alone (the random model wrote it), so the stand-in shows it
// for a call whose arguments are not JSON, and its words must match.
func TestStandInAgreesWithRecordings(t *testing.T) {
	t.Parallel()
	rs, err := openaitest.Recordings()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		t.Fatal("no recordings in testdata/llama-server")
	}
	for _, r := range rs {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			for _, f := range []openaitest.Flavour{openaitest.LlamaServer, openaitest.Jan} {
				s := openaitest.New(t, f, "tiny")
				s.ContextSize = r.Context
				if r.ModelOutput {
					s.Script(openaitest.Reply{Calls: []openaitest.Call{{Name: "execute_terminal_command", Arguments: `{"command": "ls`}}})
				}
				status, inStream, body := post(t, s, r.Request)
				want, refused := r.Body()
				if status != r.Status || inStream != r.InStream {
					t.Errorf("%s: status %d (in the stream: %v), recorded %d (%v); body %s", f, status, inStream, r.Status, r.InStream, body)
					continue
				}
				if !refused {
					continue
				}
				var got openaitest.ErrorBody
				if err := json.Unmarshal(body, &got); err != nil {
					t.Errorf("%s: error %s: %v", f, body, err)
					continue
				}
				if got.Code != want.Code || got.Type != want.Type || numberless(got.Message) != numberless(want.Message) {
					t.Errorf("%s: stand-in says %+v, llama-server %s said %+v", f, got, r.Build, want)
				}
			}
		})
	}
}

// post sends a recorded request and returns the status, whether an error
// came inside the stream, and the error object (if any).
func post(t *testing.T, s *openaitest.Server, req json.RawMessage) (status int, inStream bool, errObj []byte) {
	t.Helper()
	hr, _ := http.NewRequest(http.MethodPost, s.URL+"/chat/completions", bytes.NewReader(req))
	hr.Header.Set("Authorization", "Bearer "+openaitest.Key)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if resp.StatusCode != http.StatusOK {
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, false, e.Error
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.HasPrefix(p, `{"error"`) && json.Unmarshal([]byte(p), &e) == nil {
			return resp.StatusCode, true, e.Error
		}
	}
	return resp.StatusCode, false, nil
}

var number = regexp.MustCompile(`[0-9]+`)

func numberless(s string) string { return number.ReplaceAllString(s, "N") }

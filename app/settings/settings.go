package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Settings are the user's choices, stored as JSON in Paths.Settings. The zero
// value of a field never means "default": Load fills defaults for keys the
// file leaves out, and Validate rejects values that cannot work.
type Settings struct {
	// Help is written at the top of every file Hark saves, since JSON has
	// no comments: it says where each key is explained. Its value is
	// never read.
	Help string `json:"_help,omitempty"`

	// Voice input.
	Hotkey       string   `json:"hotkey"`       // e.g. "ctrl+option+cmd+space" (macOS), "ctrl+alt+space" (Linux)
	HotkeyMode   string   `json:"hotkeyMode"`   // "hybrid", "push-to-talk" or "toggle"
	TapThreshold Duration `json:"tapThreshold"` // hybrid: a press shorter than this latches recording until the next press
	SoundCues    bool     `json:"soundCues"`    // short sounds when recording starts, stops or is cancelled
	// VoiceAnswers lets the hotkey answer a waiting approval by voice
	// ("yes", "no, because …"); off, the hotkey is busy while one waits.
	VoiceAnswers bool `json:"voiceAnswers"`
	// Speak reads each approval and the final answer aloud (say on macOS,
	// spd-say, espeak-ng or piper on Linux); the hotkey or Escape stops it.
	Speak          bool     `json:"speak"`
	Microphone     string   `json:"microphone,omitempty"`     // input device name; "" is the system default
	RecordTail     Duration `json:"recordTail"`               // keep recording this long after release
	MaxRecording   Duration `json:"maxRecording"`             // a recording stops by itself after this long
	WhisperModel   string   `json:"whisperModel"`             // catalog name (e.g. "base.en") or a path to a ggml file
	Language       string   `json:"language"`                 // "en", another ISO code, or "auto" on multilingual models
	WhisperThreads int      `json:"whisperThreads,omitempty"` // 0 picks the performance cores, at most 8
	InitialPrompt  string   `json:"initialPrompt"`            // vocabulary that biases transcription
	ModelBaseURL   string   `json:"modelBaseURL"`             // where `hark models download` fetches from

	// The agent.
	// LLMRuntime picks the server: "ollama", or "openai" for an
	// OpenAI-compatible one (LM Studio, llama-server, mlx-lm, Jan) at
	// OpenAIBaseURL.
	LLMRuntime  string `json:"llmRuntime"`
	OllamaHost  string `json:"ollamaHost,omitempty"` // OLLAMA_HOST in the environment wins over this
	OllamaModel string `json:"ollamaModel"`          // a tool-capable model
	// LLMModel names the model on either runtime; "" keeps ollamaModel
	// for Ollama, and is required for "openai".
	LLMModel      string `json:"llmModel,omitempty"`
	OpenAIBaseURL string `json:"openaiBaseURL,omitempty"` // e.g. http://127.0.0.1:1234/v1 (LM Studio)
	OpenAIAPIKey  string `json:"openaiAPIKey,omitempty"`  // a bearer key, for a server that wants one (Jan)
	// AllowCloudModels lets ollamaModel be a model Ollama serves from
	// another machine (ollama.com), which then receives what you say and
	// every command's output; off, such a model is refused.
	AllowCloudModels bool     `json:"allowCloudModels,omitempty"`
	MaxTurns         int      `json:"maxTurns"`       // model turns per request
	ConfirmTimeout   Duration `json:"confirmTimeout"` // an unanswered approval is a denial after this long
	// The model's context window (options.num_ctx) and what fits in it.
	ContextLength    int      `json:"contextLength"`    // tokens; Ollama's own default is 4096 on most machines
	NumPredict       int      `json:"numPredict"`       // tokens per reply at most, so a looping model stops
	KeepAlive        Duration `json:"keepAlive"`        // how long Ollama keeps the model loaded after a request
	ModelOutputLimit int      `json:"modelOutputLimit"` // bytes of stdout and of stderr each result sends to the model

	// Commands.
	ConfirmBeforeExecute bool `json:"confirmBeforeExecute"` // ask before anything that is not read-only
	// MCPConfirmOff lets confirmation off reach commands from MCP clients
	// (hark mcp) too; without it they are always asked about, whatever
	// confirmBeforeExecute says, since another agent's commands are not
	// the ones the user chose to stop reviewing.
	MCPConfirmOff  bool     `json:"mcpConfirmOff,omitempty"`
	CommandTimeout Duration `json:"commandTimeout"`
	OutputLimit    int      `json:"outputLimit"`       // bytes kept of stdout and of stderr each
	Sandbox        string   `json:"sandbox"`           // "auto", "read-only" or "off"
	PreviewTimeout Duration `json:"previewTimeout"`    // how long an approval waits to say what a command would touch
	KeepEnv        []string `json:"keepEnv,omitempty"` // secret-looking variables to pass to commands anyway
}

// Defaults returns the settings used for every key a file leaves out.
func Defaults() Settings {
	hotkey := "ctrl+alt+space"
	if runtime.GOOS == "darwin" {
		hotkey = "ctrl+option+cmd+space" // ctrl+option+space is macOS's own "next input source"
	}
	return Settings{
		Hotkey:               hotkey,
		HotkeyMode:           "hybrid",
		TapThreshold:         Duration(400 * time.Millisecond),
		SoundCues:            true,
		VoiceAnswers:         true,
		RecordTail:           Duration(300 * time.Millisecond),
		MaxRecording:         Duration(60 * time.Second),
		WhisperModel:         "base.en",
		Language:             "en",
		InitialPrompt:        defaultVocabulary(runtime.GOOS),
		ModelBaseURL:         "https://huggingface.co/ggerganov/whisper.cpp/resolve/main",
		LLMRuntime:           "ollama",
		OllamaModel:          "qwen3:4b-instruct-2507-q4_K_M",
		MaxTurns:             12,
		ContextLength:        8192,
		NumPredict:           1024,
		KeepAlive:            Duration(30 * time.Minute),
		ModelOutputLimit:     4 << 10,
		ConfirmTimeout:       Duration(120 * time.Second),
		ConfirmBeforeExecute: true,
		CommandTimeout:       Duration(30 * time.Second),
		OutputLimit:          16 << 10,
		Sandbox:              "auto",
		PreviewTimeout:       Duration(300 * time.Millisecond),
	}
}

// HelpText is the _help line of a saved settings file.
const HelpText = "Every key is explained in docs/settings.md (https://github.com/hark-sh/hark/blob/main/docs/settings.md). Durations are written like 30s, 2m or 1h30m."

// defaultVocabulary is the whisper prompt of words a request is likely to
// hold, in this platform's own words: a Linux user says apt and bash, not
// Homebrew and zsh.
func defaultVocabulary(goos string) string {
	if goos == "darwin" {
		return "ls, cd, grep, find, git, Homebrew, brew, Downloads, Documents, Desktop, zsh, npm, docker, ssh, du, df, ps, kill, mkdir, chmod."
	}
	return "ls, cd, grep, find, git, apt, sudo, Downloads, Documents, Desktop, bash, npm, docker, ssh, du, df, ps, kill, mkdir, chmod."
}

// Load reads settings from path. A missing file gives the defaults. A key
// that is unknown, of the wrong type or out of range is an error naming its
// line, column and key (with the nearest known key for a typo); every
// valid key is still used, and only the bad ones fall back to defaults.
func Load(path string) (Settings, error) {
	s := Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := s.decode(data); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// KeyError is a problem with one key of the settings file.
type KeyError struct {
	Key string
	// Line and Column locate the key in the file (1-based); zero when the
	// error did not come from a file.
	Line, Column int
	Msg          string
}

func (e *KeyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: key %q: %s", e.Line, e.Column, e.Key, e.Msg)
	}
	return fmt.Sprintf("key %q: %s", e.Key, e.Msg)
}

// position turns a byte offset of data into a 1-based line and column.
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// keyOffsets finds where each top-level key of a JSON object starts.
func keyOffsets(data []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		off := int(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, ok := t.(string)
		if !ok {
			return out
		}
		// InputOffset is just past the previous token; the key's quote
		// follows whitespace and a comma.
		for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
			off++
		}
		if _, seen := out[k]; !seen {
			out[k] = off
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return out
		}
	}
	return out
}

// knownKeys are the JSON names of every setting.
func knownKeys() []string {
	t := reflect.TypeOf(Settings{})
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// nearestKey is the known key closest to a mistyped one, or "" when none
// is close enough to be a plausible typo.
func nearestKey(k string) string {
	best, bestD := "", 1<<30
	for _, known := range knownKeys() {
		if d := editDistance(strings.ToLower(k), strings.ToLower(known)); d < bestD {
			best, bestD = known, d
		}
	}
	if bestD <= max(2, len(k)/3) {
		return best
	}
	return ""
}

// editDistance counts the insertions, deletions, substitutions and
// swaps of neighbours that turn a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// decode applies every valid key of data to s and reports the others
// together; a bad key keeps its default.
func (s *Settings) decode(data []byte) error {
	// TextEdit, which Settings… opens on macOS, turns each typed " into
	// “ or ” by default; where one stands in place of a JSON quote, read
	// it as one rather than lose every key to one typed line.
	data = straightenQuotes(data)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := position(data, int(syn.Offset)-1) // Offset counts the bad byte itself
			if r, _ := utf8.DecodeRune(data[min(max(int(syn.Offset)-1, 0), len(data)):]); isCurlyQuote(r) {
				// json names only the quote's first byte ('â'), which says
				// nothing to whoever typed it.
				return fmt.Errorf("line %d has a curly quote %c — TextEdit's smart quotes; JSON needs straight quotes (\"): "+
					"turn off Edit › Substitutions › Smart Quotes, then retype it (column %d)", line, r, col)
			}
			return fmt.Errorf("not valid JSON at line %d, column %d: %v", line, col, err)
		}
		return fmt.Errorf("not a JSON object of settings: %v", err)
	}
	offsets := keyOffsets(data)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return offsets[keys[i]] < offsets[keys[j]] })
	var errs []error
	fail := func(k, msg string) {
		e := &KeyError{Key: k, Msg: msg}
		if off, ok := offsets[k]; ok {
			e.Line, e.Column = position(data, off)
		}
		errs = append(errs, e)
	}
	// Decoding one key at a time lets every error name its key, including
	// the ones a custom UnmarshalJSON reports, and lets the good keys
	// through.
	for _, k := range keys {
		one, _ := json.Marshal(map[string]json.RawMessage{k: fields[k]})
		dec := json.NewDecoder(bytes.NewReader(one))
		dec.DisallowUnknownFields()
		trial := *s
		if err := dec.Decode(&trial); err != nil {
			var typ *json.UnmarshalTypeError
			switch {
			case strings.HasPrefix(err.Error(), "json: unknown field "):
				msg := "unknown key, ignored"
				if near := nearestKey(k); near != "" {
					msg = fmt.Sprintf("unknown key, ignored — did you mean %q?", near)
				}
				fail(k, msg)
			case errors.As(err, &typ):
				fail(k, fmt.Sprintf("expected %s, found %s; the default is used", typ.Type, typ.Value))
			default:
				fail(k, err.Error()+"; the default is used")
			}
			continue
		}
		if err := trial.Validate(); err != nil {
			var ke *KeyError
			if errors.As(err, &ke) && ke.Key == k {
				fail(k, ke.Msg+"; the default is used")
				continue
			}
		}
		*s = trial
	}
	return errors.Join(errs...)
}

// curlyDoubles are the quotes a smart-quotes editor types for ": “ and ”
// in English, „ and “ in German, ‟ and the fullwidth ＂ elsewhere.
const curlyDoubles = "“”„‟＂"

// isCurlyQuote reports whether r is a typographic quote, double or single.
func isCurlyQuote(r rune) bool { return strings.ContainsRune(curlyDoubles+"‘’‚‛", r) }

// straightenQuotes gives data with every curly double quote that stands
// where JSON needs a quote made straight: one that opens a string, and
// one inside a string that closes it, that is, followed by : , } ] or the
// end of the line, and (in a string a straight quote opened) with no
// straight quote left on the line to close it instead. Curly quotes
// inside a string's text stay. Valid JSON comes back unchanged: outside
// its strings no curly quote stands, and each of its strings ends with a
// straight quote on its own line.
func straightenQuotes(data []byte) []byte {
	if !bytes.ContainsAny(data, curlyDoubles) {
		return data
	}
	out := make([]byte, 0, len(data))
	inString, curlyOpened := false, false
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case !inString && r == '"':
			inString, curlyOpened = true, false
		case !inString && strings.ContainsRune(curlyDoubles, r):
			inString, curlyOpened = true, true
			out, i = append(out, '"'), i+n
			continue
		case inString && r == '\\' && i+1 < len(data):
			out, i = append(out, data[i], data[i+1]), i+2
			continue
		case inString && r == '"':
			inString = false
		case inString && strings.ContainsRune(curlyDoubles, r) && closesString(data[i+n:], curlyOpened):
			inString = false
			out, i = append(out, '"'), i+n
			continue
		}
		out, i = append(out, data[i:i+n]...), i+n
	}
	return out
}

// closesString reports whether a curly quote followed by rest ends the
// string it stands in.
func closesString(rest []byte, curlyOpened bool) bool {
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	if !curlyOpened && bytes.ContainsRune(line, '"') {
		return false
	}
	next := bytes.TrimLeft(line, " \t\r")
	return len(next) == 0 || strings.IndexByte(":,}]", next[0]) >= 0
}

// Validate reports the first value that cannot work, naming its key.
func (s Settings) Validate() error {
	bad := func(key string, format string, args ...any) error {
		return &KeyError{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case strings.TrimSpace(s.Hotkey) == "":
		return bad("hotkey", "must name a key combination such as %q", Defaults().Hotkey)
	case s.HotkeyMode != "hybrid" && s.HotkeyMode != "push-to-talk" && s.HotkeyMode != "toggle":
		return bad("hotkeyMode", "must be \"hybrid\", \"push-to-talk\" or \"toggle\", not %q", s.HotkeyMode)
	case s.TapThreshold.D() < 100*time.Millisecond || s.TapThreshold.D() > 2*time.Second:
		return bad("tapThreshold", "must be between 100ms and 2s")
	case s.RecordTail < 0 || s.RecordTail.D() > 5*time.Second:
		return bad("recordTail", "must be between 0s and 5s")
	case s.MaxRecording.D() < time.Second || s.MaxRecording.D() > 10*time.Minute:
		return bad("maxRecording", "must be between 1s and 10m")
	case strings.TrimSpace(s.WhisperModel) == "":
		return bad("whisperModel", "must name a model such as \"base.en\" or a path to a ggml .bin file")
	case strings.TrimSpace(s.Language) == "":
		return bad("language", "must be a language code such as \"en\", or \"auto\"")
	case s.WhisperThreads < 0 || s.WhisperThreads > 64:
		return bad("whisperThreads", "must be 0 (automatic) to 64")
	case !strings.HasPrefix(s.ModelBaseURL, "https://") && !strings.HasPrefix(s.ModelBaseURL, "http://"):
		return bad("modelBaseURL", "must be an http(s) URL")
	case s.LLMRuntime != "ollama" && s.LLMRuntime != "openai":
		return bad("llmRuntime", "must be \"ollama\" or \"openai\" (LM Studio, llama-server, mlx-lm, Jan), not %q", s.LLMRuntime)
	case s.OpenAIBaseURL != "" && !strings.HasPrefix(s.OpenAIBaseURL, "http://") && !strings.HasPrefix(s.OpenAIBaseURL, "https://"):
		return bad("openaiBaseURL", "must be an http(s) URL such as \"http://127.0.0.1:1234/v1\"")
	case strings.TrimSpace(s.OllamaModel) == "":
		return bad("ollamaModel", "must name a tool-capable model such as \"qwen3:4b-instruct-2507-q4_K_M\"")
	case s.MaxTurns < 1 || s.MaxTurns > 100:
		return bad("maxTurns", "must be 1 to 100")
	case s.ConfirmTimeout.D() < 5*time.Second || s.ConfirmTimeout.D() > time.Hour:
		return bad("confirmTimeout", "must be between 5s and 1h")
	case s.ContextLength < 2048 || s.ContextLength > 1<<20:
		return bad("contextLength", "must be 2048 to 1048576 tokens")
	case s.NumPredict < 128 || s.NumPredict > s.ContextLength/2:
		return bad("numPredict", "must be 128 tokens to half of contextLength")
	case s.KeepAlive.D() < time.Minute || s.KeepAlive.D() > 24*time.Hour:
		return bad("keepAlive", "must be between 1m and 24h")
	case s.ModelOutputLimit < 512 || s.ModelOutputLimit > 1<<20:
		return bad("modelOutputLimit", "must be 512 to 1048576 bytes")
	case s.CommandTimeout.D() < time.Second || s.CommandTimeout.D() > time.Hour:
		return bad("commandTimeout", "must be between 1s and 1h")
	case s.OutputLimit < 1024 || s.OutputLimit > 16<<20:
		return bad("outputLimit", "must be 1024 to 16777216 bytes")
	case s.Sandbox != "auto" && s.Sandbox != "read-only" && s.Sandbox != "off":
		return bad("sandbox", "must be \"auto\", \"read-only\" or \"off\", not %q", s.Sandbox)
	case s.PreviewTimeout.D() < 50*time.Millisecond || s.PreviewTimeout.D() > 10*time.Second:
		return bad("previewTimeout", "must be between 50ms and 10s")
	}
	return nil
}

// Model is the model of the chosen runtime: llmModel when set, else
// ollamaModel on Ollama.
func (s Settings) Model() string {
	if m := strings.TrimSpace(s.LLMModel); m != "" {
		return m
	}
	if s.LLMRuntime == "ollama" {
		return s.OllamaModel
	}
	return ""
}

// RuntimeProblem says what is missing for the chosen runtime to work
// ("" when nothing): the openai runtime needs a base URL and a model,
// which no default can guess. It is not a Validate error, so a file
// being written key by key still loads.
func (s Settings) RuntimeProblem() string {
	if s.LLMRuntime != "openai" {
		return ""
	}
	switch {
	case s.OpenAIBaseURL == "":
		return "llmRuntime is \"openai\" but openaiBaseURL is not set; set it to the server's /v1 address, e.g. \"http://127.0.0.1:1234/v1\" (LM Studio), \"http://127.0.0.1:8080/v1\" (llama-server, mlx-lm) or \"http://127.0.0.1:1337/v1\" (Jan); `hark doctor` finds running ones"
	case strings.TrimSpace(s.LLMModel) == "":
		return "llmRuntime is \"openai\" but llmModel is not set; set it to a model id the server lists (`hark doctor` shows them)"
	}
	return ""
}

// Save validates s and writes it atomically to path.
func Save(path string, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	s.Help = HelpText
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// Update applies change to the settings stored at path and writes them
// back atomically. It refuses to touch a file with errors, so a save never
// replaces a key the user mistyped with its default.
func Update(path string, change func(*Settings)) error {
	s, err := Load(path)
	if err != nil {
		return fmt.Errorf("settings.json has an error, so it was left alone (%w); fix it in Settings… and try again", err)
	}
	change(&s)
	return Save(path, s)
}

// Duration is a time.Duration written in JSON as a string such as "30s".
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// String writes the duration the way a person would type it: "2m", "1h30m",
// "400ms", not Go's "2m0s". time.ParseDuration reads it back unchanged.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is written as a string such as \"30s\" or \"2m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"30s\" or \"2m\"", s)
	}
	*d = Duration(v)
	return nil
}

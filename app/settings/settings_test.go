package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadMissingGivesDefaults(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join(t.TempDir(), "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.OllamaModel != "qwen3:4b-instruct-2507-q4_K_M" || !s.ConfirmBeforeExecute || s.CommandTimeout.D() != 30*time.Second ||
		s.ContextLength != 8192 || s.KeepAlive.D() != 30*time.Minute || s.ModelOutputLimit != 4096 || s.NumPredict != 1024 {
		t.Fatalf("defaults not applied: %+v", s)
	}
}

func TestLoadErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ json, want string }{
		"unknown key":    {`{"ollamaModle":"x"}`, `line 1, column 2: key "ollamaModle": unknown key, ignored — did you mean "ollamaModel"?`},
		"wrong type":     {`{"maxTurns":"many"}`, `key "maxTurns": expected int`},
		"bad duration":   {`{"commandTimeout":"soon"}`, `key "commandTimeout"`},
		"duration int":   {`{"recordTail":300}`, `key "recordTail"`},
		"invalid value":  {`{"sandbox":"maybe"}`, `key "sandbox"`},
		"out of range":   {`{"maxTurns":0}`, `key "maxTurns"`},
		"not json":       {"{\n  \"maxTurns\": 3,\n  \"x\" 1}", "not valid JSON at line 3, column 7"},
		"not an object":  {`[1,2]`, "not a JSON object"},
		"bad hotkeyMode": {`{"hotkeyMode":"hold"}`, `key "hotkeyMode"`},
		"tap too short":  {`{"tapThreshold":"20ms"}`, `key "tapThreshold": must be between 100ms and 2s`},
		"cues not bool":  {`{"soundCues":"yes"}`, `key "soundCues": expected bool`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(p, []byte(c.json), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load(%s) error = %v, want it to contain %q", c.json, err, c.want)
			}
		})
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "sub", "settings.json")
	s := Defaults()
	s.ConfirmBeforeExecute = false
	s.CommandTimeout = Duration(45 * time.Second)
	s.KeepEnv = []string{"GITHUB_TOKEN"}
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.ConfirmBeforeExecute || got.CommandTimeout.D() != 45*time.Second || len(got.KeepEnv) != 1 {
		t.Fatalf("round trip lost values: %+v", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings mode = %v, want 0600", fi.Mode().Perm())
	}
	if err := Save(p, Settings{}); err == nil {
		t.Fatal("Save accepted invalid settings")
	}
}

func TestWriteFileAtomicLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for i := 0; i < 3; i++ {
		if err := WriteFileAtomic(p, []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("folder has %d entries, want only the file", len(entries))
	}
	if b, _ := os.ReadFile(p); string(b) != "xx" {
		t.Fatalf("content = %q", b)
	}
	aside, err := MoveAside(p)
	if err != nil || !strings.Contains(aside, ".corrupt-") {
		t.Fatalf("MoveAside = %q, %v", aside, err)
	}
	if _, err := os.Stat(aside); err != nil {
		t.Fatal(err)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, err := pathsFor("linux", env(map[string]string{"HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1"}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings != "/home/u/.config/hark/settings.json" || p.Models != "/home/u/.local/share/hark/models" ||
		p.Audit != "/home/u/.local/state/hark/audit.jsonl" || p.Runtime != "/run/user/1/hark" {
		t.Fatalf("linux paths: %+v", p)
	}
	p, _ = pathsFor("darwin", env(map[string]string{"HOME": "/Users/u"}))
	if p.Settings != "/Users/u/Library/Application Support/Hark/settings.json" || p.Logs != "/Users/u/Library/Logs/Hark" {
		t.Fatalf("darwin paths: %+v", p)
	}
	p, _ = pathsFor("linux", env(map[string]string{"HOME": "/home/u", "HARK_HOME": "/tmp/h"}))
	if p.Settings != "/tmp/h/settings.json" || p.History != "/tmp/h/history" {
		t.Fatalf("HARK_HOME paths: %+v", p)
	}
	if _, err := pathsFor("linux", env(nil)); err == nil {
		t.Fatal("no HOME and no HARK_HOME should be an error")
	}
}

// TestLoadKeepsValidKeys: one bad key costs only itself; the others are
// used, and every bad key is reported with its line and column.
func TestLoadKeepsValidKeys(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "settings.json")
	body := "{\n  \"hotkeyMode\": \"toggle\",\n  \"olamaHost\": \"http://x\",\n  \"maxTurns\": 0,\n  \"ollamaModel\": \"llama3.1\"\n}\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if s.HotkeyMode != "toggle" || s.OllamaModel != "llama3.1" {
		t.Errorf("valid keys lost: hotkeyMode %q, ollamaModel %q", s.HotkeyMode, s.OllamaModel)
	}
	if s.MaxTurns != Defaults().MaxTurns {
		t.Errorf("maxTurns = %d, want the default for an out-of-range value", s.MaxTurns)
	}
	for _, want := range []string{`line 3, column 3: key "olamaHost": unknown key, ignored — did you mean "ollamaHost"?`, `line 4, column 3: key "maxTurns"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestNearestKey(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"ollamaModle": "ollamaModel", "HOTKEY": "hotkey", "sandbx": "sandbox", "confirmBeforeExecution": "confirmBeforeExecute", "banana": ""}
	for in, want := range cases {
		if got := nearestKey(in); got != want {
			t.Errorf("nearestKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSaveWritesNoEmptyDefaults: a saved file carries no null lists or
// empty strings standing in for defaults.
func TestSaveWritesNoEmptyDefaults(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := Update(p, func(s *Settings) { s.ConfirmBeforeExecute = false }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"null", `""`} {
		if strings.Contains(string(b), bad) {
			t.Errorf("saved file holds %s:\n%s", bad, b)
		}
	}
	s, err := Load(p)
	if err != nil || s.ConfirmBeforeExecute {
		t.Errorf("after Update: confirm %v, err %v", s.ConfirmBeforeExecute, err)
	}
	if err := os.WriteFile(p, []byte(`{"bogus": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Update(p, func(s *Settings) {}); err == nil {
		t.Error("Update overwrote a file with an error")
	}
}

// TestDurationWrittenAsTyped: the file Hark writes says "2m", not Go's
// "2m0s", and reads back to the same value.
func TestDurationWrittenAsTyped(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		2 * time.Minute: "2m", 30 * time.Second: "30s", 400 * time.Millisecond: "400ms",
		90 * time.Second: "1m30s", time.Hour: "1h", 90 * time.Minute: "1h30m", 0: "0s",
	} {
		b, err := json.Marshal(Duration(d))
		if err != nil || string(b) != `"`+want+`"` {
			t.Errorf("Marshal(%v) = %s, %v; want %q", d, b, err, want)
		}
		var back Duration
		if err := json.Unmarshal(b, &back); err != nil || back.D() != d {
			t.Errorf("%s reads back as %v, %v", b, back.D(), err)
		}
	}
}

// TestSavedFileIsReadable: the file Settings… first writes points at the
// key reference, writes durations as typed, uses this platform's words in
// the whisper vocabulary, and loads back without error.
func TestSavedFileIsReadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := Save(path, Defaults()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, "{\n  \"_help\": ") || !strings.Contains(text, "docs/settings.md") {
		t.Errorf("no pointer to docs/settings.md at the top:\n%.200s", text)
	}
	if strings.Contains(text, "m0s") || !strings.Contains(text, `"confirmTimeout": "2m"`) {
		t.Errorf("durations not written as typed:\n%s", text)
	}
	if linux := defaultVocabulary("linux"); strings.Contains(linux, "Homebrew") || strings.Contains(linux, "zsh") {
		t.Errorf("Linux vocabulary has macOS words: %q", linux)
	}
	if mac := defaultVocabulary("darwin"); !strings.Contains(mac, "brew") {
		t.Errorf("macOS vocabulary lost brew: %q", mac)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("saved file does not load: %v", err)
	}
}

// The runtime keys: Ollama by default with ollamaModel; "openai" takes
// llmModel, a base URL and an optional key, and says what is missing.
func TestRuntimeKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	load := func(t *testing.T, body string) (Settings, error) {
		t.Helper()
		p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return Load(p)
	}
	d := Defaults()
	if d.LLMRuntime != "ollama" || d.Model() != d.OllamaModel || d.RuntimeProblem() != "" {
		t.Errorf("defaults: runtime %q model %q problem %q", d.LLMRuntime, d.Model(), d.RuntimeProblem())
	}
	t.Run("llmModel wins on ollama", func(t *testing.T) {
		s, err := load(t, `{"llmModel": "qwen3:8b"}`)
		if err != nil || s.Model() != "qwen3:8b" {
			t.Fatalf("%v %q", err, s.Model())
		}
	})
	t.Run("openai", func(t *testing.T) {
		s, err := load(t, `{"llmRuntime": "openai", "openaiBaseURL": "http://127.0.0.1:1337/v1", "llmModel": "qwen3-4b", "openaiAPIKey": "k"}`)
		if err != nil || s.Model() != "qwen3-4b" || s.OpenAIAPIKey != "k" || s.RuntimeProblem() != "" {
			t.Fatalf("%v %+v %q", err, s, s.RuntimeProblem())
		}
	})
	t.Run("openai without a model", func(t *testing.T) {
		s, err := load(t, `{"llmRuntime": "openai", "openaiBaseURL": "http://127.0.0.1:1234/v1"}`)
		if err != nil || s.Model() != "" || !strings.Contains(s.RuntimeProblem(), "llmModel") {
			t.Fatalf("%v %q %q", err, s.Model(), s.RuntimeProblem())
		}
	})
	t.Run("openai without a URL", func(t *testing.T) {
		s, _ := load(t, `{"llmRuntime": "openai", "llmModel": "m"}`)
		if !strings.Contains(s.RuntimeProblem(), "openaiBaseURL") || !strings.Contains(s.RuntimeProblem(), "1234") {
			t.Fatalf("%q", s.RuntimeProblem())
		}
	})
	for _, bad := range []string{`{"llmRuntime": "lmstudio"}`, `{"openaiBaseURL": "127.0.0.1:1234"}`} {
		t.Run("bad "+bad, func(t *testing.T) {
			s, err := load(t, bad)
			var ke *KeyError
			if !errors.As(err, &ke) || s.LLMRuntime != "ollama" || s.OpenAIBaseURL != "" {
				t.Fatalf("err %v settings %+v", err, s)
			}
		})
	}
}

// TestLoadSmartQuotes: TextEdit, which Settings… opens on macOS, types “
// and ” for " unless Smart Quotes is off. Where such a quote stands in
// place of a JSON quote it is read as one; inside a string's text it
// stays as typed.
func TestLoadSmartQuotes(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		json  string
		check func(Settings) bool
	}{
		"typed key":           {"{\n  “speak”: false,\n  \"maxTurns\": 3\n}", func(s Settings) bool { return !s.Speak && s.MaxTurns == 3 }},
		"typed key and value": {"{\n  “ollamaHost”: “192.168.1.5:11434”,\n  \"maxTurns\": 3\n}", func(s Settings) bool { return s.OllamaHost == "192.168.1.5:11434" }},
		"German quotes":       {"{„speak“: false}", func(s Settings) bool { return !s.Speak }},
		"closed by a curly":   {"{\n  \"speak\": false,\n  \"ollamaHost\": \"10.0.0.2:11434”\n}", func(s Settings) bool { return s.OllamaHost == "10.0.0.2:11434" }},
		"curly in the text":   {`{"initialPrompt": "the “Hark” app, “x”", "speak": false}`, func(s Settings) bool { return s.InitialPrompt == "the “Hark” app, “x”" && !s.Speak }},
		"a comma after one":   {`{"initialPrompt": "a ”, b", "speak": false}`, func(s Settings) bool { return s.InitialPrompt == "a ”, b" }},
		"curly in a curly":    {"{\n  “initialPrompt”: “a “b” c”\n}", func(s Settings) bool { return s.InitialPrompt == "a “b” c" }},
		"escaped then curly":  {`{"initialPrompt": "a \"b” c\"", "speak": false}`, func(s Settings) bool { return s.InitialPrompt == `a "b” c"` }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(p, []byte(c.json), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Load(p)
			if err != nil || !c.check(s) {
				t.Fatalf("Load(%s) = %+v, %v", c.json, s, err)
			}
		})
	}
}

// TestLoadSmartQuoteErrorNamesTheCause: a curly quote Hark cannot read as
// a straight one is named, with its line and where it comes from, instead
// of json's "invalid character 'â'".
func TestLoadSmartQuoteErrorNamesTheCause(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte("{\n  \"speak\": false,\n  ‘maxTurns’: 3\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), "line 3 has a curly quote ‘ — TextEdit's smart quotes") ||
		!strings.Contains(err.Error(), "Smart Quotes") || strings.Contains(err.Error(), "'â'") {
		t.Fatalf("Load: %v", err)
	}
}

// FuzzStraightenQuotes: valid JSON is never changed, so a file that
// parses means what it meant.
func FuzzStraightenQuotes(f *testing.F) {
	for _, s := range []string{`{"a": "“b”", "c": ["”", "a ”, b"]}`, `"„x“"`, `{"k":"\"”"}`, "{“a”: 1}", `["”]"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if json.Valid([]byte(s)) {
			if got := string(straightenQuotes([]byte(s))); got != s {
				t.Fatalf("straightenQuotes(%q) = %q", s, got)
			}
		}
	})
}

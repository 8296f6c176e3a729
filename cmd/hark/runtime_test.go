package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/openai/openaitest"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell/preview"
)

// llmRuntime picks the client, the start-up check and the doctor lines;
// a runtime set up wrong says what is missing in every request and in
// doctor instead of stopping the app.
func TestRuntimeChoice(t *testing.T) {
	t.Parallel()
	names := func(st settings.Settings) []string {
		var out []string
		for _, c := range modelChecks(st, newServer(st), "linux") {
			out = append(out, c.Name)
		}
		return out
	}
	d := settings.Defaults()
	if sv := newServer(d); sv.ollama == nil || sv.runtime != nil || strings.Join(names(d), ",") != "Ollama,Ollama model,Model in GPU memory,Local runtimes" {
		t.Errorf("default: %+v %q", sv, names(d))
	}

	srv := openaitest.New(t, openaitest.LMStudio, "qwen3-4b")
	st := d
	st.LLMRuntime, st.OpenAIBaseURL, st.LLMModel = "openai", srv.URL, "qwen3-4b"
	sv := newServer(st)
	if sv.runtime == nil || sv.host != srv.URL {
		t.Fatalf("openai: %+v", sv)
	}
	if _, err := sv.check(context.Background(), st.Model(), st.ContextLength, false); err != nil {
		t.Errorf("check: %v", err)
	}
	if n := names(st); len(n) != 2 || n[0] != "Model server" || n[1] != "Local runtimes" {
		t.Errorf("doctor lines %q", n)
	}
	// Placement and downloads are Ollama's: the openai runtime gets
	// neither the "gpu" check nor the menu's Download row.
	if gpuCheck(sv, st.Model()) != nil || modelPuller(sv) != nil {
		t.Errorf("openai runtime has Ollama's gpu check or puller")
	}
	if od := newServer(d); gpuCheck(od, d.Model()) == nil || modelPuller(od) == nil {
		t.Errorf("Ollama lost its gpu check or puller")
	}

	st.LLMModel = ""
	sv = newServer(st)
	if _, err := sv.check(context.Background(), "", st.ContextLength, false); err == nil || !strings.Contains(err.Error(), "llmModel") {
		t.Errorf("no model: %v", err)
	}
	if n := names(st); n[0] != "Model server" {
		t.Errorf("doctor lines %q", n)
	}
	a, _, err := newAgent(st, settings.Paths{History: t.TempDir(), Audit: t.TempDir() + "/audit.jsonl"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Run(context.Background(), agent.NewConversation(), "hi")
	if err == nil || !strings.Contains(err.Error(), "llmModel") {
		t.Errorf("run without a model: %v", err)
	}
	if errors.Is(err, agent.ErrCancelled) {
		t.Errorf("reported as a cancel: %v", err)
	}
}

// What the menu and hark doctor show of the openai runtime never carries
// the API key, and a server off this machine is refused there as in a
// request unless allowCloudModels is on.
func TestRuntimeKeyAndCloud(t *testing.T) {
	t.Parallel()
	const key = "sk-0123456789abcdef"
	d := settings.Defaults()
	st := d
	st.LLMRuntime, st.LLMModel, st.OpenAIAPIKey = "openai", "qwen3-4b", key
	for _, raw := range []string{"http://user:" + key + "@127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1?api_key=" + key} {
		st.OpenAIBaseURL = raw
		sv := newServer(st)
		_, err := sv.check(context.Background(), st.Model(), st.ContextLength, false)
		r := modelChecks(st, sv, "linux")[0].Run(context.Background())
		for _, shown := range []string{sv.host, fmt.Sprint(err), r.Detail, r.Fix} {
			if strings.Contains(shown, key) {
				t.Errorf("%s: the key is shown: %q", raw, shown)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "openaiAPIKey") && !strings.Contains(err.Error(), "query") {
			t.Errorf("%s: err %v", raw, err)
		}
	}

	for _, allow := range []bool{false, true} {
		st.OpenAIBaseURL, st.AllowCloudModels = "http://192.0.2.7:1234/v1", allow
		sv := newServer(st)
		ctx, cancel := context.WithCancel(context.Background())
		if allow {
			cancel() // allowed, it would go there: stop before it does
		}
		_, err := sv.check(ctx, st.Model(), st.ContextLength, allow)
		r := modelChecks(st, sv, "linux")[0].Run(ctx)
		cancel()
		if allow == errors.Is(err, agent.ErrCloudModel) {
			t.Errorf("allow %v: err %v", allow, err)
		}
		if !allow && (!strings.Contains(r.Detail, "192.0.2.7") || !strings.Contains(r.Fix, "allowCloudModels")) {
			t.Errorf("doctor: %+v", r)
		}
		if strings.Contains(r.Detail+r.Fix, key) {
			t.Errorf("doctor shows the key: %+v", r)
		}
	}
}

// hark ask starts its preview server only once the start-up check has
// passed: a check that fails ends the process, and a process ended while
// the server starts leaves the server's hark-service-NNNN folder in
// $TMPDIR. (The e2e suite checks the folder itself, with a real binary.)
func TestAskWarmsPreviewsOnlyAfterTheCheck(t *testing.T) {
	// Swaps warmUp and the environment: not parallel.
	var warmed int
	saved := warmUp
	warmUp = func(*preview.Previewer) { warmed++ }
	defer func() { warmUp = saved }()
	for _, c := range []struct {
		name    string
		noTools bool
		code    int
		warm    int
	}{
		{"check fails", true, exitError, 0},
		{"check passes", false, exitOK, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			warmed = 0
			home := t.TempDir()
			t.Setenv("HARK_HOME", home)
			srv := openaitest.New(t, openaitest.LlamaServer, "tiny").Script(openaitest.Reply{Text: "Nothing to do."})
			srv.NoTools = c.noTools
			st := fmt.Sprintf(`{"llmRuntime": "openai", "openaiBaseURL": %q, "llmModel": "tiny"}`, srv.URL)
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(st), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runAgentCLI(t, "", false, "ask", "--new", "hi")
			if r.code != c.code || warmed != c.warm {
				t.Fatalf("exit %d, warmed %d times; stderr %s", r.code, warmed, r.stderr)
			}
		})
	}
}

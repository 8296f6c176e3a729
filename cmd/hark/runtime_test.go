package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/openai/openaitest"
	"github.com/hark-sh/hark/app/settings"
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
	if sv := newServer(d); sv.ollama == nil || sv.runtime != nil || strings.Join(names(d), ",") != "Ollama,Ollama model,Local runtimes" {
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
	if n := names(st); len(n) != 2 || n[1] != "Local runtimes" {
		t.Errorf("doctor lines %q", n)
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

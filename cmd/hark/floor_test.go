package main

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app"
)

// TestOllamaTooOldInTheMenu: the app's start-up check of an Ollama 0.12.5
// is a problem row that says it is too old (not "model not ready"), with
// the version and how to update behind Problems…; hark doctor's line says
// the same.
func TestOllamaTooOldInTheMenu(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.Qwen3(agent.DefaultModel))
	srv.SetVersion("0.12.5")
	u, _ := url.Parse(srv.URL)
	c := agent.NewOllamaClient(u)
	sv := server{client: c, host: u.String(), ollama: c}
	_, err := sv.check(context.Background(), agent.DefaultModel, 8192, false)
	p := ollamaProblem(sv.name(), err)
	var titled *app.TitledError
	if !errors.As(p, &titled) || !strings.Contains(titled.Title, "too old") {
		t.Fatalf("problem %v, want a too-old title", p)
	}
	if !strings.Contains(p.Error(), "Ollama 0.12.5") || !strings.Contains(p.Error(), "https://ollama.com/download") {
		t.Errorf("detail %q lacks the version or how to update", p.Error())
	}
	_, derr := agent.ProbeServer(context.Background(), c, u.String(), "linux")
	if derr == nil || !strings.Contains(derr.Error(), "0.12.5") {
		t.Errorf("doctor: %v", derr)
	}
}

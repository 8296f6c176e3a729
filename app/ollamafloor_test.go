package app

import (
	"context"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
)

// TestOllamaTooOldAtARequest: a request refused because Ollama is older
// than Hark needs (a downgrade the start-up check could not see) puts the
// too-old row in the menu at once, with the reasons behind Problems…; the
// notification says it in one short sentence that ends with where to
// update (walk 6, B2-9, B2-10).
func TestOllamaTooOldAtARequest(t *testing.T) {
	t.Parallel()
	const host = "http://127.0.0.1:11586"
	tooOld := agent.TooOld(host, "0.12.5")
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		return "", tooOld
	})
	h := start(t, ag, nil)
	h.app.Post(SendRequest{Text: "say hi", Reply: make(chan SendReply, 1)})
	n := recv(t, "the failure", h.notifier.got)
	if want := "Ollama 0.12.5 is too old for Hark (needs 0.12.6). Update it: https://ollama.com/download"; n.body != want {
		t.Errorf("notification %q:\n%s\nwant %s", n.title, n.body, want)
	}
	v := h.views.wait(t, "the too-old row", func(v View) bool { _, ok := v.Problems["ollama"]; return ok })
	p := v.Problems["ollama"]
	if !strings.Contains(p.Title, "too old") || !strings.Contains(p.Detail, "older than 0.12.6") || !strings.Contains(p.Detail, host) || !strings.Contains(p.Detail, "truncate:false") {
		t.Errorf("problem %+v, want a too-old row with the reasons behind it", p)
	}
}

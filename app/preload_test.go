package app

import (
	"context"
	"testing"
)

// preloadingAgent is a fakeAgent that also loads its model on request.
type preloadingAgent struct {
	*fakeAgent
	preloads chan struct{}
}

func (p preloadingAgent) Preload(context.Context) error {
	p.preloads <- struct{}{}
	return nil
}

// Key-down starts loading the model while the user is still speaking;
// "loading model…" shows until the first word, and reasoning the agent
// withdraws leaves the status.
func TestKeyDownPreloadsAndStatusShows(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	ag := preloadingAgent{preloads: make(chan struct{}, 1), fakeAgent: newFakeAgent(func(ctx context.Context, r Request, c Confirmer, on func(AgentEvent)) (string, error) {
		on(AgentEvent{Kind: AgentStatus, Text: "loading model…"})
		<-release
		on(AgentEvent{Kind: AgentText, Text: "The user wants…"})
		on(AgentEvent{Kind: AgentText, Text: "Three files.", Reset: true})
		<-release
		return "Three files.", nil
	})}
	h := start(t, ag.fakeAgent, func(o *Options) { o.Agent = ag })

	h.app.Post(KeyDown{})
	recv(t, "preload at key-down", ag.preloads)
	if n := len(h.tr.called); n != 0 {
		t.Fatalf("transcription ran %d times before key-up; the preload should come first", n)
	}
	m := h.views.mark()
	h.app.Post(KeyUp{})
	h.views.waitFrom(t, m, "loading status", func(v View) bool { return v.Detail == "loading model…" })
	m = h.views.mark()
	release <- struct{}{}
	v := h.views.waitFrom(t, m, "first words", func(v View) bool { return v.Stream == "Three files." })
	if v.Detail != "" {
		t.Errorf("status %q still shown after the first words", v.Detail)
	}
	release <- struct{}{}
}

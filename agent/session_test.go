package agent

import (
	"context"
	"strings"
	"testing"
)

func TestSessionContinuesUntilNewConversation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{text("one"), text("two"), text("three")}, nil)
	s := NewSession(h.agent, nil)
	if s.ConversationID() != "" {
		t.Fatal("a new session already has a conversation")
	}
	if _, err := s.Run(context.Background(), "first", RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	first := s.ConversationID()
	if _, err := s.Run(context.Background(), "second", RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.ConversationID() != first || len(h.client.request(t, 1).Messages) != 4 {
		t.Errorf("second request did not continue: %+v", h.client.request(t, 1).Messages)
	}
	s.NewConversation()
	if _, err := s.Run(context.Background(), "third", RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.ConversationID() == first || len(h.client.request(t, 2).Messages) != 2 {
		t.Errorf("NewConversation did not start afresh")
	}
	list, _ := h.store.Recent(1)
	if len(list) != 1 {
		t.Fatalf("recent %v", list)
	}
	tr, err := h.store.Transcript(first)
	if err != nil || !strings.Contains(tr, "you: first") || !strings.Contains(tr, "hark: two") {
		t.Errorf("transcript %q %v", tr, err)
	}
}

// The app passes the confirmer, the progress callback and the confirmation
// switch with each request.
func TestRequestOptionsOverride(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{
		tools(cmd("rm /tmp/a", "executing")), text("asked"),
		tools(cmd("rm /tmp/b", "executing")), text("not asked"),
	}, nil)
	per := &scriptedConfirmer{decisions: []Decision{{Approved: true, By: ByMenu}}}
	var events []EventKind
	ro := RequestOptions{Confirmer: per, OnEvent: func(e Event) { events = append(events, e.Kind) }}
	if _, err := h.agent.RunWith(context.Background(), NewConversation(), "a", ro); err != nil {
		t.Fatal(err)
	}
	if len(per.asked) != 1 || len(h.confirmer.asked) != 0 || len(h.events.kinds()) != 0 || len(events) == 0 {
		t.Errorf("per-request confirmer asked %d, default %d; default events %d, per-request %d",
			len(per.asked), len(h.confirmer.asked), len(h.events.kinds()), len(events))
	}
	off := true
	if _, err := h.agent.RunWith(context.Background(), NewConversation(), "b", RequestOptions{NoConfirm: &off}); err != nil {
		t.Fatal(err)
	}
	if got := h.exec.commands(); len(got) != 2 || len(h.confirmer.asked) != 0 {
		t.Errorf("ran %v, asked %v", got, h.confirmer.askedCommands())
	}
}

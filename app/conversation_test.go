package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/ollama/ollama/api"
)

// testClock is the app's clock in a test, moved by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// storingAgent answers each request as the real agent leaves a
// conversation: the request and its answer join it, its metrics too,
// Updated is the clock's, and it is saved to hist, which the Recent
// submenu lists. The answer is doneWith(request).
func storingAgent(hist *agent.Store, clock func() time.Time) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		conv := r.Conv
		if conv.Title == "" {
			conv.Title = r.Text
		}
		answer := doneWith(r.Text)
		conv.Messages = append(conv.Messages, api.Message{Role: "user", Content: r.Text}, api.Message{Role: "assistant", Content: answer})
		conv.Runs = append(conv.Runs, agent.RunMetrics{Request: r.Text, Outcome: agent.OutcomeCompleted, Success: true})
		conv.Updated = clock()
		if err := hist.Save(conv); err != nil {
			return "", err
		}
		on(agent.Event{Kind: agent.EventFinal, Text: answer})
		return answer, nil
	})
}

func doneWith(request string) string { return "Done: " + request + "." }

// answeredWith is the view of the loop once request's turn has ended: idle,
// showing its answer. (Idle alone could be a view from before the turn,
// drawn when the last request's Recent list came in.)
func answeredWith(request string) func(View) bool {
	return func(v View) bool { return v.State == Idle && v.Stream == doneWith(request) }
}

// A request continues the app's conversation only as a follow-up
// (agent.ConversationFor), decided once the words are known: two
// unrelated spoken requests are two Recent entries, a spoken follow-up
// and a typed one stay in the second, and a follow-up long after starts
// afresh.
func TestUnrelatedRequestsStartTheirOwnConversation(t *testing.T) {
	t.Parallel()
	hist := agent.NewStore(t.TempDir(), agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
	clock := &testClock{t: time.Date(2026, 12, 6, 16, 51, 0, 0, time.Local)}
	start0 := clock.now()
	ag := storingAgent(hist, clock.now)
	h := start(t, ag, func(o *Options) {
		o.History = hist
		o.now = clock.now
		o.Prompter = fakePrompter{text: "what about the api project\n", ok: true}
	})
	speak := func(after time.Duration, text string) request {
		t.Helper()
		clock.set(start0.Add(after))
		h.tr.text = text // read by the turn the key press below starts
		m := h.views.mark()
		h.app.Post(KeyDown{})
		recv(t, "recorder start", h.rec.started)
		h.app.Post(KeyUp{})
		r := recv(t, "agent request for "+text, ag.calls)
		h.views.waitFrom(t, m, "the answer to "+text, answeredWith(text))
		return r
	}
	recent := func(n int) []RecentItem {
		t.Helper()
		return h.views.wait(t, fmt.Sprintf("Recent with %d entries", n), func(v View) bool { return len(v.Recent) == n }).Recent
	}

	disk := speak(0, "how much disk space is left")
	notes := speak(time.Minute, "make a release notes folder in my webapp project")
	if notes.Conv == disk.Conv {
		t.Fatal("an unrelated spoken request continued the conversation before it")
	}
	recent(2)
	readme := speak(2*time.Minute, "and put a README in it too")
	if readme.Conv != notes.Conv {
		t.Error("a spoken follow-up started a conversation of its own")
	}
	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDTypeRequest})
	typed := recv(t, "typed request", ag.calls)
	h.views.waitFrom(t, m, "the answer to the typed request", answeredWith(typed.Text))
	if typed.Text != "what about the api project" || typed.Conv != notes.Conv {
		t.Errorf("a typed follow-up %q went to another conversation", typed.Text)
	}
	labels := func(items []RecentItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Label)
		}
		return out
	}
	got := h.views.wait(t, "the follow-ups counted in Recent", func(v View) bool {
		return len(v.Recent) == 2 && strings.Contains(v.Recent[0].Label, "(+2 more)")
	}).Recent
	if !strings.HasPrefix(got[0].Label, "make a release notes folder in my webapp project (+2 more) · ") ||
		!strings.HasPrefix(got[1].Label, "how much disk space is left · ") {
		t.Errorf("Recent lists %q", labels(got))
	}

	late := speak(2*time.Minute+agent.FollowUpWindow+time.Minute, "do it again")
	if late.Conv == notes.Conv || late.Conv == disk.Conv {
		t.Error("a follow-up after the window continued the old conversation")
	}
	if got := labels(recent(3)); !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "do it again · ") }) {
		t.Errorf("Recent lists %q, want the late request as its own entry", got)
	}
}

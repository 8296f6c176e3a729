package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// userRequests are the requests in msgs, in order, Hark's own
// corrections left out.
func userRequests(msgs []api.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "user" && !IsCorrection(m) {
			out = append(out, m.Content)
		}
	}
	return out
}

// sharedHarness is a second writer of h's history, as `hark ask` is
// beside the running app: its own Store on the same folder, its own
// model and executor.
func sharedHarness(t *testing.T, h *harness, replies []reply) *harness {
	t.Helper()
	o := newHarness(t, replies, nil)
	o.store = NewStore(h.store.Dir, testFiles)
	o.agent.o.History = o.store
	return o
}

// TestConversationKeepsEveryWritersRequests: the app keeps its
// conversation in memory; `hark ask` continues the same one from the
// history file. The app's next request must keep what ask added, and its
// model must see it.
func TestConversationKeepsEveryWritersRequests(t *testing.T) {
	t.Parallel()
	app := newHarness(t, []reply{text("One."), text("Three.")}, nil)
	ask := sharedHarness(t, app, []reply{text("Two.")})
	ctx := context.Background()

	c := NewConversation()
	if _, err := app.agent.Run(ctx, c, "first, from the app"); err != nil {
		t.Fatal(err)
	}
	latest, err := ask.store.Latest()
	if err != nil || latest.ID != c.ID {
		t.Fatalf("ask continues %v (%v), want %s", latest, err, c.ID)
	}
	if _, err := ask.agent.Run(ctx, latest, "second, from the terminal"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.agent.Run(ctx, c, "third, from the app"); err != nil {
		t.Fatal(err)
	}

	want := []string{"first, from the app", "second, from the terminal", "third, from the app"}
	stored, err := app.store.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := userRequests(stored.Messages); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stored requests %q, want %q", got, want)
	}
	if len(stored.Runs) != 3 || stored.Runs[1].Request != want[1] {
		t.Errorf("stored runs %+v, want one per request, in order", stored.Runs)
	}
	if got := userRequests(c.Messages); strings.Join(got, "|") != strings.Join(want, "|") || len(c.Runs) != 3 {
		t.Errorf("the app's conversation has %q and %d runs, want %q and 3", got, len(c.Runs), want)
	}
	// The app's model was told what was asked in the terminal.
	if got := userRequests(app.client.request(t, 1).Messages); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the app's model saw %q, want %q", got, want)
	}
}

// TestConversationTwoWritersAtOnce: while the app's request waits for an
// approval (its first turn already saved), `hark ask` runs a whole
// request in the same conversation. Both end up stored once each, every
// request beside its own metrics, and ask's model saw the app's turn.
func TestConversationTwoWritersAtOnce(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{})
	release := make(chan struct{})
	app := newHarness(t, []reply{
		tools(cmd("ls /tmp", "checking")),
		tools(cmd("touch /tmp/x", "making a file")),
		text("Made it."),
	}, func(o *Options) {
		o.Confirmer = ConfirmerFunc(func(ctx context.Context, p Pending) (Decision, error) {
			close(asked)
			<-release
			return Decision{PendingID: p.ID, Approved: true, By: ByMenu}, nil
		})
	})
	ask := sharedHarness(t, app, []reply{text("Two.")})
	ctx := context.Background()

	c := NewConversation()
	done := make(chan error, 1)
	go func() {
		_, err := app.agent.Run(ctx, c, "make a file, from the app")
		done <- err
	}()
	<-asked
	latest, err := ask.store.Latest()
	if err != nil || latest.ID != c.ID {
		t.Fatalf("ask continues %v (%v), want %s", latest, err, c.ID)
	}
	if _, err := ask.agent.Run(ctx, latest, "what is there, from the terminal"); err != nil {
		t.Fatal(err)
	}
	if got := userRequests(ask.client.request(t, 0).Messages); len(got) != 2 || got[0] != "make a file, from the app" {
		t.Errorf("ask's model saw %q, want the app's request before its own", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	stored, err := app.store.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Finished first, stored first: the requests and their metrics stay
	// in the same order, so each transcript entry has its own ending.
	want := []string{"what is there, from the terminal", "make a file, from the app"}
	if got := userRequests(stored.Messages); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stored requests %q, want %q", got, want)
	}
	if len(stored.Runs) != 2 || stored.Runs[0].Request != want[0] || stored.Runs[1].Request != want[1] {
		t.Errorf("stored runs %+v, want %q in order", stored.Runs, want)
	}
	if len(stored.Messages) != 6+2 {
		t.Errorf("stored %d messages, want 8 (the app's 6, ask's 2):\n%+v", len(stored.Messages), stored.Messages)
	}
	if len(stored.Unfinished) != 0 {
		t.Errorf("finished requests left %+v", stored.Unfinished)
	}
	if got := userRequests(c.Messages); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the app's conversation has %q, want %q", got, want)
	}
}

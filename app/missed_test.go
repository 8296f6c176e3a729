package app

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
)

// TestTimedOutApprovalsLeaveAnAskAgainRow: walk 6 came back to a menu
// that looked like a fresh start after two approvals had timed out, on a
// desktop whose notifications expire. The menu keeps a row naming them
// and when; choosing it sends the same request to the model again (so the
// commands are proposed and asked afresh, never an old one run late), and
// the row is gone.
func TestTimedOutApprovalsLeaveAnAskAgainRow(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Now()
	at := clock.Format("15:04")
	decisions := make(chan Decision, 4)
	h := start(t, confirmingAgentWithin("echo 'buy milk' > ~/notes.txt", decisions, 50*time.Millisecond), func(o *Options) {
		o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	})
	h.app.Post(SendRequest{Text: "write buy milk into my notes file", Reply: make(chan SendReply, 1)})
	if d := recv(t, "the timeout", decisions); d.By != ByTimeout {
		t.Fatalf("decision %+v, want a timeout", d)
	}
	first := recv(t, "the request", h.agent.calls)
	v := h.views.wait(t, "the missed row", func(v View) bool { return v.State == Idle && v.Missed != nil })
	m := BuildMenu(v)
	row := findItem(m.Items, IDAskAgain)
	if row == nil || row.Label != "⚠ 1 approval timed out at "+at+" — Ask again" || row.Kind != ItemAction ||
		!strings.Contains(row.Tooltip, "“write buy milk into my notes file”") {
		t.Fatalf("row %+v in\n%s", row, rowsOf(m))
	}

	// Chosen long after: Ask again is the user's own choice, so the
	// request goes to the conversation it came from, however late.
	mu.Lock()
	clock = clock.Add(agent.FollowUpWindow + time.Hour)
	mu.Unlock()
	h.app.Post(MenuClick{ID: IDAskAgain})
	again := recv(t, "the request again", h.agent.calls)
	if again.Text != first.Text {
		t.Errorf("asked again %q, want %q", again.Text, first.Text)
	}
	if again.Conv == nil || again.Conv != first.Conv {
		t.Error("Ask again started another conversation")
	}
	recv(t, "the second timeout", decisions)
	// The second request timed out too: a row for it, not for both.
	v = h.views.wait(t, "the row again", func(v View) bool { return v.State == Idle && v.Missed != nil })
	if v.Missed.Count != 1 {
		t.Errorf("missed %+v, want the new request's one approval", v.Missed)
	}
}

// TestMissedRowCountsARequestsApprovals: approvals of one request that
// time out are counted together, "2 approvals".
func TestMissedRowCountsARequestsApprovals(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 6, 16, 47, 0, 0, time.UTC)
	m := BuildMenu(View{State: Idle, Confirm: true, Missed: &MissedView{Count: 2, At: at, Request: "write buy milk"}})
	if it := findItem(m.Items, IDAskAgain); it == nil || it.Label != "⚠ 2 approvals timed out at 16:47 — Ask again" {
		t.Errorf("row %+v", it)
	}
	if m = BuildMenu(View{State: Idle, Confirm: true}); findItem(m.Items, IDAskAgain) != nil {
		t.Error("an Ask again row with nothing missed")
	}
}

package app

import (
	"context"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell/rules"
)

var touchRule = rules.Rule{Kind: rules.Allow, Program: "touch", Folder: "~/proj",
	Examples: rules.Examples{Match: []string{"touch a"}, NoMatch: []string{"touch ../a"}}}

// proposingAgent asks about cmd with an Always allow proposal and reports
// the decision it gets.
func proposingAgent(cmd string, prop *rules.Rule, out chan<- Decision) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventAwaiting, Call: &agent.Call{Command: cmd}})
		d, err := c.Confirm(ctx, Pending{Command: cmd, Purpose: "executing", Tier: "confirm", Proposal: prop,
			NoProposal: "Always allow is not offered: it has a redirection"})
		out <- d
		return "done", err
	})
}

func TestMenuAlwaysAllowAndDenyWhyRows(t *testing.T) {
	t.Parallel()
	with := Pending{ID: "p1", Command: "touch a", Proposal: &touchRule}
	without := Pending{ID: "p2", Command: "echo x > y"}
	m := BuildMenu(View{State: AwaitingApproval, Pending: []Pending{with, without}, CanType: true})
	// Always allow… is a second step: a submenu that shows what the rule
	// matches and what still asks, with the one entry that saves it.
	sub := findItem(m.Items, PrefixPending+"p1:always")
	if sub == nil || sub.Kind != ItemSubmenu || sub.Label != "    Always allow…" {
		t.Fatalf("always allow submenu %+v", sub)
	}
	kids := strings.Join(outline(sub.Children, ""), "\n")
	for _, want := range []string{"|Saves the rule: always allow touch in ~/proj|", "|  runs without asking, e.g.: touch a|",
		"|  still asks, e.g.: touch ../a|", "always-allow:p1|action|Save this rule and run|"} {
		if !strings.Contains(kids, want) {
			t.Errorf("no %q in the Always allow… step:\n%s", want, kids)
		}
	}
	if it := findItem(m.Items, PrefixAlwaysAllow+"p1"); it == nil || findItem(sub.Children, PrefixAlwaysAllow+"p1") == nil {
		t.Fatal("Save this rule and run is not inside the Always allow… step")
	}
	for _, it := range m.Items {
		if it.ID == PrefixAlwaysAllow+"p1" {
			t.Fatal("a one-click Always allow row at the top level")
		}
	}
	if findItem(m.Items, PrefixAlwaysAllow+"p2") != nil {
		t.Fatal("Always allow offered without a proposal")
	}
	if findItem(m.Items, PrefixDenyWhy+"p1") == nil || findItem(m.Items, PrefixDenyWhy+"p2") == nil {
		t.Fatal("no Deny and say why… row")
	}
	asked := Pending{ID: "p3", Command: "cat secrets.txt", Tier: "safe", Rule: "your rule 2 (always ask for cat secrets.txt) asks before it runs"}
	m = BuildMenu(View{State: AwaitingApproval, Pending: []Pending{asked}})
	found := false
	for _, it := range m.Items {
		found = found || it.Kind == ItemText && strings.Contains(it.Label, "your rule 2 (always ask for cat")
	}
	if !found {
		t.Fatal("the rule that made a read-only command ask is not shown")
	}
	m = BuildMenu(View{State: AwaitingApproval, Pending: []Pending{with}, CanType: false})
	if findItem(m.Items, PrefixDenyWhy+"p1") != nil {
		t.Fatal("Deny and say why… shown with no text prompt to type the reason in")
	}
}

func TestMenuAlwaysAllowCarriesTheShownRule(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	h := start(t, proposingAgent("touch a", &touchRule, decided), nil)
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "touch it", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending", func(v View) bool { return len(v.Pending) == 1 })
	h.app.Post(MenuClick{ID: PrefixAlwaysAllow + v.Pending[0].ID})
	d := recv(t, "decision", decided)
	if !d.Approved || d.By != ByMenu || d.Rule == nil || d.Rule.String() != touchRule.String() {
		t.Fatalf("decision %+v", d)
	}
}

// TestMenuDenyWithReason: "Deny and say why…" opens the reason prompt,
// not the request prompt, and its answer denies the approval it names.
func TestMenuDenyWithReason(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	h := start(t, proposingAgent("touch a", nil, decided), func(o *Options) {
		o.Prompter = fakePrompter{text: "a new request", ok: true, reason: "  wrong folder \n", reasonOK: true}
	})
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "touch it", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending", func(v View) bool { return len(v.Pending) == 1 })
	// Without a proposal a forged click decides nothing.
	h.app.Post(MenuClick{ID: PrefixAlwaysAllow + v.Pending[0].ID})
	h.app.Post(MenuClick{ID: PrefixDenyWhy + v.Pending[0].ID})
	d := recv(t, "decision", decided)
	if d.Approved || d.By != ByMenu || d.Reason != "wrong folder" || d.Rule != nil {
		t.Fatalf("decision %+v", d)
	}
}

// TestDenyReasonOverTheSocket is the terminal path: the reason arrives as
// a DenyRequest naming the approval (what `hark send --deny-why` sends)
// and denies it; one for an approval no longer waiting says so.
func TestDenyReasonOverTheSocket(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	asked := make(chan string, 1)
	h := start(t, proposingAgent("touch a_b", nil, decided), func(o *Options) {
		// The terminal prompter's Reason returns once its window is gone,
		// with ok false: the text went over the socket.
		o.Prompter = fakePrompter{reasonFor: asked}
	})
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "touch it", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending", func(v View) bool { return len(v.Pending) == 1 })
	id := v.Pending[0].ID
	h.app.Post(MenuClick{ID: PrefixDenyWhy + id})
	if got := recv(t, "reason prompt", asked); got != id {
		t.Fatalf("the reason prompt was opened for %q, want %q", got, id)
	}
	reply := make(chan SendReply, 1)
	h.app.Post(DenyRequest{PendingID: id, Reason: " wrong folder ", Reply: reply})
	if r := recv(t, "deny reply", reply); !r.OK {
		t.Fatalf("deny reply %+v", r)
	}
	d := recv(t, "decision", decided)
	if d.Approved || d.Trash || d.Reason != "wrong folder" || d.PendingID != id {
		t.Fatalf("decision %+v", d)
	}
	late := make(chan SendReply, 1)
	h.app.Post(DenyRequest{PendingID: id, Reason: "again", Reply: late})
	if r := recv(t, "late deny reply", late); r.OK || !strings.Contains(r.Error, "no longer waiting") {
		t.Errorf("a deny for a settled approval answered %+v", r)
	}
}

// TestDenyReasonCancelledKeepsWaiting: a cancelled reason prompt denies
// nothing; the approval stays open (the prompt says so) and can still be
// answered.
func TestDenyReasonCancelledKeepsWaiting(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	asked := make(chan string, 1)
	h := start(t, proposingAgent("touch a", nil, decided), func(o *Options) {
		o.Prompter = fakePrompter{text: "a new request", ok: true, reasonAsked: asked}
	})
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "touch it", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending", func(v View) bool { return len(v.Pending) == 1 })
	h.app.Post(MenuClick{ID: PrefixDenyWhy + v.Pending[0].ID})
	if msg := recv(t, "reason prompt", asked); !strings.Contains(msg, "Cancel keeps it waiting") {
		t.Errorf("the reason prompt does not say what Cancel does: %q", msg)
	}
	select {
	case d := <-decided:
		t.Fatalf("a cancelled reason prompt decided %+v", d)
	default:
	}
	h.app.Post(MenuClick{ID: PrefixApprove + v.Pending[0].ID})
	if d := recv(t, "decision", decided); !d.Approved {
		t.Fatalf("decision after the cancelled prompt %+v", d)
	}
}

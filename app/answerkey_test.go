package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/scope"
)

// answerKey posts `hark approve` (approve) or `hark deny` and returns the
// reply.
func answerKey(t *testing.T, h *harness, r AnswerRequest) SendReply {
	t.Helper()
	reply := make(chan SendReply, 1)
	r.Reply = reply
	h.app.Post(r)
	return recv(t, "the answer's reply", reply)
}

// TestHarkApproveAnswersTheOldest: `hark approve` runs the oldest waiting
// approval once it has been up long enough to be read, and is recorded as
// answered from the command line; with nothing waiting it says so.
func TestHarkApproveAnswersTheOldest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Now()
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	decisions := make(chan Decision, 1)
	h := start(t, confirmingAgent("mkdir ~/notes", decisions), func(o *Options) {
		o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	})
	if r := answerKey(t, h, AnswerRequest{Approve: true}); r.OK || r.Error != "no approval is waiting" {
		t.Fatalf("with nothing waiting: %+v", r)
	}
	h.app.Post(SendRequest{Text: "make a notes folder", Reply: make(chan SendReply, 1)})
	h.views.wait(t, "the approval", func(v View) bool { return len(v.Pending) == 1 })

	// Pressed the moment it appeared: not approved, it stays.
	r := answerKey(t, h, AnswerRequest{Approve: true})
	if r.OK || !strings.Contains(r.Error, "appeared just now") {
		t.Fatalf("approved at once: %+v", r)
	}
	advance(3 * time.Second)
	r = answerKey(t, h, AnswerRequest{Approve: true})
	if !r.OK || !strings.Contains(r.Answer, "mkdir ~/notes") {
		t.Fatalf("reply %+v", r)
	}
	d := recv(t, "decision", decisions)
	if !d.Approved || d.Trash || d.By != ByCommandLine {
		t.Errorf("decision %+v, want approved by %q", d, ByCommandLine)
	}
}

// TestHarkDenyAnswersWithItsReason: `hark deny REASON` denies the oldest
// waiting approval at once, another program's included, and the reason
// reaches the asker word for word.
func TestHarkDenyAnswersWithItsReason(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), nil)
	reply := make(chan Decision, 1)
	h.app.Post(ApprovalRequest{Ctx: context.Background(), Pending: Pending{Command: "rm ~/a.txt", Client: "Claude Desktop", Tier: shell.Confirm}, Reply: reply})
	h.views.wait(t, "the approval", func(v View) bool { return len(v.Pending) == 1 })
	r := answerKey(t, h, AnswerRequest{Reason: "keep a.txt"})
	if !r.OK || !strings.HasPrefix(r.Answer, "Denied “rm ~/a.txt”") {
		t.Fatalf("reply %+v", r)
	}
	d := recv(t, "decision", reply)
	if d.Approved || d.Trash || d.Reason != "keep a.txt" || d.By != ByCommandLine {
		t.Errorf("decision %+v", d)
	}
}

// TestHarkApproveRefusesWhatNeedsAClick: what a spoken yes may not run, a
// key may not either, and never another program's command (it could run
// hark approve itself); each refusal says why and what to do instead, and
// the approval keeps waiting.
func TestHarkApproveRefusesWhatNeedsAClick(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		p    Pending
		want string
	}{
		"another program": {Pending{Command: "mkdir x", Client: "Claude Desktop"}, "Claude Desktop asked for it"},
		"without limits":  {Pending{Command: "make", Unlimited: true}, "a run without limits"},
		"further":         {Pending{Command: "make", Further: "⚠ It also wants to write ~/.cache/x"}, "going beyond what you approved"},
		"broad scope":     {Pending{Command: "find ~ -name x -delete", Scope: &scope.Scope{Broad: "/home/ana"}}, "a whole folder"},
		"hidden":          {Pending{Command: "rm a\u202eb"}, "hidden characters"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c.p.ID, c.p.Tier = "p1", shell.Confirm
			why := keyRefusal(c.p)
			if !strings.Contains(why, c.want) {
				t.Fatalf("refusal %q, want it to say %q", why, c.want)
			}
		})
	}
	if why := keyRefusal(Pending{ID: "p1", Command: "mkdir x", Tier: shell.Confirm}); why != "" {
		t.Errorf("a plain mkdir is refused: %q", why)
	}

	// Through the app: the reply says why and how to answer, and the
	// approval is still there.
	var mu sync.Mutex
	clock := time.Now()
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }
	})
	reply := make(chan Decision, 1)
	h.app.Post(ApprovalRequest{Ctx: context.Background(), Pending: Pending{Command: "mkdir ~/x", Client: "Claude Desktop", Tier: shell.Confirm}, Reply: reply})
	h.views.wait(t, "the approval", func(v View) bool { return len(v.Pending) == 1 })
	r := answerKey(t, h, AnswerRequest{Approve: true})
	if r.OK || !strings.Contains(r.Error, "Claude Desktop asked for it") || !strings.Contains(r.Error, "with a click in the Hark menu") || !strings.Contains(r.Error, "hark deny") {
		t.Fatalf("reply %+v", r)
	}
	select {
	case d := <-reply:
		t.Fatalf("answered: %+v", d)
	default:
	}
}

// TestHarkApproveTakesTheTrashFirst: for a deletion that offers Move to
// Trash, hark approve takes the safe choice, and only --delete deletes.
func TestHarkApproveTakesTheTrashFirst(t *testing.T) {
	t.Parallel()
	for _, del := range []bool{false, true} {
		var mu sync.Mutex
		clock := time.Now()
		h := start(t, answerAgent("ok"), func(o *Options) {
			o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }
		})
		// An entry with no client, as Hark's own turn puts it in the menu.
		e := &pendingEntry{turn: externalTurn, p: Pending{ID: "p1", Command: "rm -r ~/Downloads/old_builds", Tier: shell.Confirm, TrashOffered: true}, reply: make(chan Decision, 1)}
		h.app.Post(pendingAdd{turn: externalTurn, entry: e})
		h.views.wait(t, "the approval", func(v View) bool { return len(v.Pending) == 1 })
		r := answerKey(t, h, AnswerRequest{Approve: true, Delete: del})
		if !r.OK {
			t.Fatalf("delete=%v: %+v", del, r)
		}
		d := recv(t, "decision", e.reply)
		if d.Trash == del || d.Approved != del {
			t.Errorf("delete=%v: decision %+v", del, d)
		}
	}
}

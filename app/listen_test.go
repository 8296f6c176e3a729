package app

import (
	"strings"
	"testing"
)

func listen(t *testing.T, h *harness, a ListenAction) SendReply {
	t.Helper()
	reply := make(chan SendReply, 1)
	h.app.Post(ListenRequest{Action: a, Reply: reply})
	return recv(t, "listen reply "+string(a), reply)
}

// `hark listen` is the hotkey pressed from outside: a tap starts listening
// and the next one sends; --start while listening is fine, --stop when idle
// is refused with the reason; --cancel stops the request like the menu's
// Cancel, and is refused when there is nothing to cancel.
func TestListenActions(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("done"), nil)

	if r := listen(t, h, ListenStop); r.OK || r.Error != notListening {
		t.Errorf("stop while idle: %+v, want %q", r, notListening)
	}
	if r := listen(t, h, ListenCancel); r.OK || r.Error != nothingToStop {
		t.Errorf("cancel while idle: %+v, want %q", r, nothingToStop)
	}
	m := h.views.mark()
	if r := listen(t, h, ListenTap); !r.OK {
		t.Fatalf("tap while idle: %+v", r)
	}
	h.views.waitFrom(t, m, "listening", stateIs(Listening))
	recv(t, "recorder start", h.rec.started)
	if r := listen(t, h, ListenStart); !r.OK {
		t.Errorf("start while listening: %+v, want OK", r)
	}
	m = h.views.mark()
	if r := listen(t, h, ListenTap); !r.OK {
		t.Fatalf("second tap: %+v", r)
	}
	h.views.waitFrom(t, m, "transcribing after the second tap", stateIs(Transcribing))
	if req := recv(t, "agent request", h.agent.calls); req.Text != "list my downloads" {
		t.Errorf("the agent got %q, want the transcript", req.Text)
	}
	h.views.waitFrom(t, m, "idle after the answer", stateIs(Idle))
	if starts, stops := h.rec.counts(); starts != 1 || stops != 1 {
		t.Errorf("recorder started %d and stopped %d times, want 1 and 1", starts, stops)
	}

	// --start then --stop: the same turn.
	m = h.views.mark()
	if r := listen(t, h, ListenStart); !r.OK {
		t.Fatalf("start: %+v", r)
	}
	h.views.waitFrom(t, m, "listening again", stateIs(Listening))
	recv(t, "recorder start", h.rec.started)
	if r := listen(t, h, ListenStop); !r.OK {
		t.Fatalf("stop: %+v", r)
	}
	recv(t, "agent request", h.agent.calls)
	h.views.waitFrom(t, m, "idle", stateIs(Idle))
}

// --cancel while listening ends the recording without a request, as
// Escape and the menu's Cancel do.
func TestListenCancel(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("done"), nil)
	m := h.views.mark()
	if r := listen(t, h, ListenStart); !r.OK {
		t.Fatalf("start: %+v", r)
	}
	h.views.waitFrom(t, m, "listening", stateIs(Listening))
	recv(t, "recorder start", h.rec.started)
	if r := listen(t, h, ListenCancel); !r.OK {
		t.Fatalf("cancel: %+v", r)
	}
	h.views.waitFrom(t, m, "idle after cancel", stateIs(Idle))
	select {
	case req := <-h.agent.calls:
		t.Errorf("a cancelled recording reached the agent: %+v", req)
	default:
	}
}

// While another request runs, listen is refused with the menu's words;
// without voice input it says why.
func TestListenRefusals(t *testing.T) {
	t.Parallel()
	h := start(t, blockingAgent(), nil)
	h.app.Post(SendRequest{Text: "slow", Reply: make(chan SendReply, 1)})
	recv(t, "agent request", h.agent.calls)
	if r := listen(t, h, ListenTap); r.OK || r.Error != busyWithOther {
		t.Errorf("tap while busy: %+v, want %q", r, busyWithOther)
	}

	nv := start(t, answerAgent("x"), func(o *Options) { o.Recorder = nil })
	if r := listen(t, nv, ListenTap); r.OK || !strings.Contains(r.Error, "voice input is not available") {
		t.Errorf("tap without voice: %+v, want voice unavailable", r)
	}
	if n := recv(t, "notification", nv.notifier.got); n.title != "Can't listen" {
		t.Errorf("notified %+v, want the same notice a key press gives", n)
	}
	if r := listen(t, nv, ListenAction("hold")); r.OK || !strings.Contains(r.Error, "unknown listen action") {
		t.Errorf("unknown action: %+v", r)
	}
}

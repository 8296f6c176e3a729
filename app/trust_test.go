package app

import (
	"context"
	"errors"
	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEndingSaysWhatHarkKnows: after a denial the final notification and
// the `hark send --wait` answer end with Hark's own fact when the model
// claims otherwise, the claim flagged and the title saying so, and the
// model's Markdown arrives as plain text.
func TestEndingSaysWhatHarkKnows(t *testing.T) {
	t.Parallel()
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		d, err := c.Confirm(ctx, Pending{Command: "rm -r old_builds"})
		if err != nil || d.Approved {
			return "", errors.New("expected a denial")
		}
		return "**Deleted it.**", nil
	})
	h := start(t, ag, nil)
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "delete old builds", Wait: true, Reply: reply})
	p := recv(t, "approval", h.approver.asked)
	h.app.Post(MenuClick{ID: PrefixDeny + p.ID})
	want := "Hark: 1 command denied — nothing changed.\n⚠ The model says “Deleted it”, but that command did not run (you denied it)."
	if r := recv(t, "reply", reply); r.Answer != want {
		t.Errorf("send answer %q, want %q", r.Answer, want)
	}
	n := recv(t, "final notification", h.notifier.got)
	if n.body != want || n.title != "That didn't happen" {
		t.Errorf("notification %q: %q, want %q", n.title, n.body, want)
	}
}

// TestEndingAfterTimeout names the timeout and how long it was.
func TestEndingAfterTimeout(t *testing.T) {
	t.Parallel()
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		// The agent owns the confirmation timeout: it asks under a
		// deadline and says when it ends.
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		dl, _ := ctx.Deadline()
		c.Confirm(ctx, Pending{Command: "rm x", Deadline: dl})
		return "I left it alone.", nil
	})
	// The setting is not what counts: the agent's deadline is.
	h := start(t, ag, func(o *Options) { o.Settings.ConfirmTimeout = settings.Duration(5 * time.Minute) })
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "x", Wait: true, Reply: reply})
	r := recv(t, "reply", reply)
	if !strings.HasSuffix(r.Answer, "\n\napproval timed out after 1 s — nothing changed.") {
		t.Errorf("answer %q should end with the timeout", r.Answer)
	}
}

// fakeTimers collects the timers the app arms so a test can fire them.
// Only re-check timers are collected: the render throttle's (under a
// second) fire at once.
type fakeTimers struct {
	mu   sync.Mutex
	fs   []func()
	live []*atomic.Bool
}

func (f *fakeTimers) after(d time.Duration, fn func()) func() bool {
	if d < time.Second {
		return time.AfterFunc(d, fn).Stop
	}
	var stopped atomic.Bool
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fs = append(f.fs, func() {
		if !stopped.Load() {
			fn()
		}
	})
	f.live = append(f.live, &stopped)
	return func() bool { return !stopped.Swap(true) }
}

// armed counts the timers neither fired nor stopped.
func (f *fakeTimers) armed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.live[len(f.live)-len(f.fs):] {
		if !s.Load() {
			n++
		}
	}
	return n
}

func (f *fakeTimers) fireAll() int {
	f.mu.Lock()
	fs := f.fs
	f.fs = nil
	f.mu.Unlock()
	for _, fn := range fs {
		fn()
	}
	return len(fs)
}

// TestProblemsAreRechecked: a failed check runs again on the timer and
// after a request, and its problem clears as soon as it passes; with no
// problem left no timer is armed (an idle Hark stays asleep).
func TestProblemsAreRechecked(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	var runs atomic.Int32
	timers := &fakeTimers{}
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.afterFunc = timers.after
		o.Checks = map[string]func(context.Context) error{
			"ollama": func(context.Context) error {
				runs.Add(1)
				if up.Load() {
					return nil
				}
				return errors.New("Ollama is not running at 127.0.0.1:11434 — start it with `ollama serve`")
			},
		}
	})
	h.views.waitFrom(t, 0, "ollama problem", func(v View) bool { return v.Problems["ollama"].Title == "Ollama not running" })
	// Still down: the timer fires, the check runs again, the problem stays.
	waitFor(t, "re-check timer", func() bool { return timers.fireAll() > 0 })
	waitFor(t, "second check", func() bool { return runs.Load() >= 2 })
	up.Store(true)
	m := h.views.mark()
	waitFor(t, "re-check timer", func() bool { return timers.fireAll() > 0 })
	h.views.waitFrom(t, m, "problem cleared", func(v View) bool { _, ok := v.Problems["ollama"]; return !ok })
	// Nothing is armed while nothing is wrong.
	h.app.Post(Problem{Source: "unrelated-sync", Message: "x"})
	h.views.waitFrom(t, m, "sync", func(v View) bool { _, ok := v.Problems["unrelated-sync"]; return ok })
	if n := timers.armed(); n != 0 {
		t.Errorf("%d timers armed with no checked problem standing", n)
	}
	// A request that Ollama answered clears its problem at once, before
	// any check.
	h.app.Post(Problem{Source: "ollama", Message: "down again"})
	m = h.views.mark()
	h.app.Post(SendRequest{Text: "hi", Reply: make(chan SendReply, 1)})
	h.views.waitFrom(t, m, "cleared by an answer", func(v View) bool {
		_, ok := v.Problems["ollama"]
		return !ok && v.State == Idle
	})
}

// TestRequestRechecksProblems: every finished request re-runs the checks
// of standing problems.
func TestRequestRechecksProblems(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.afterFunc = (&fakeTimers{}).after // the slow timer never fires here
		o.Checks = map[string]func(context.Context) error{
			"tray": func(context.Context) error {
				if up.Load() {
					return nil
				}
				return errors.New("no StatusNotifierWatcher")
			},
		}
	})
	h.views.waitFrom(t, 0, "tray problem", func(v View) bool { _, ok := v.Problems["tray"]; return ok })
	up.Store(true)
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "hi", Reply: make(chan SendReply, 1)})
	h.views.waitFrom(t, m, "cleared after the request", func(v View) bool { _, ok := v.Problems["tray"]; return !ok })
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type fakeYesNo struct {
	answer bool
	asked  chan string
}

func (f fakeYesNo) Ask(ctx context.Context, title, message string) (bool, error) {
	f.asked <- message
	return f.answer, nil
}

// TestConfirmOffAsksFirst: unticking the box asks once; No keeps it on,
// Yes turns it off, and ticking it again asks nothing.
func TestConfirmOffAsksFirst(t *testing.T) {
	t.Parallel()
	for _, yes := range []bool{false, true} {
		q := fakeYesNo{answer: yes, asked: make(chan string, 2)}
		h := start(t, answerAgent("ok"), func(o *Options) { o.YesNo = q })
		h.app.Post(MenuClick{ID: IDConfirm})
		if msg := recv(t, "question", q.asked); !strings.Contains(msg, "without asking") ||
			!strings.Contains(msg, "goes to the Trash") || !strings.Contains(msg, "are permanent") {
			t.Errorf("question %q does not say what changes, and what happens to deletions", msg)
		}
		if !yes {
			// A later event is handled after the answer: confirmation stays.
			h.app.Post(Problem{Source: "sync", Message: "x"})
			v := h.views.waitFrom(t, 0, "sync", func(v View) bool { _, ok := v.Problems["sync"]; return ok })
			if !v.Confirm {
				t.Error("No turned confirmation off")
			}
			continue
		}
		h.views.waitFrom(t, 0, "confirmation off", func(v View) bool { return !v.Confirm })
		m := h.views.mark()
		h.app.Post(MenuClick{ID: IDConfirm})
		h.views.waitFrom(t, m, "confirmation on", func(v View) bool { return v.Confirm })
		select {
		case <-q.asked:
			t.Error("turning confirmation on asked a question")
		default:
		}
	}
}

// TestProblemsItemOpensTheDetails: Problems… opens a text with every
// problem in full.
func TestProblemsItemOpensTheDetails(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), nil)
	h.app.Post(Problem{Source: "hotkey", Message: "no X display — set DISPLAY or use hark send"})
	h.views.waitFrom(t, 0, "problem", func(v View) bool { _, ok := v.Problems["hotkey"]; return ok })
	h.app.Post(MenuClick{ID: IDProblems})
	path := recv(t, "opened", h.opener.opened)
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "no X display — set DISPLAY") || !strings.Contains(string(b), "hark doctor") {
		t.Errorf("%s: %q, %v; want the full detail and where to look further", path, b, err)
	}
}

// TestShowFullCommand opens the whole of a long pending command.
func TestShowFullCommand(t *testing.T) {
	t.Parallel()
	cmd := "echo " + strings.Repeat("x", 3000) + " ; rm -rf ~"
	decided := make(chan Decision, 1)
	h := start(t, confirmingAgent(cmd, decided), nil)
	h.app.Post(SendRequest{Text: "go", Reply: make(chan SendReply, 1)})
	p := recv(t, "approval", h.approver.asked)
	h.app.Post(MenuClick{ID: PrefixShowFull + p.ID})
	path := recv(t, "opened", h.opener.opened)
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), cmd) {
		t.Errorf("%s does not hold the whole command (%v)", path, err)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + p.ID})
	recv(t, "decision", decided)
}

// TestHotkeyAnswersWithoutVoice: pressing the hotkey with no voice input
// posts a notification saying why and how to type instead.
func TestHotkeyAnswersWithoutVoice(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), func(o *Options) { o.Recorder = nil })
	h.app.Post(KeyDown{})
	n := recv(t, "notification", h.notifier.got)
	if !strings.Contains(n.body, "not available") || !strings.Contains(n.body, `hark send "your request"`) {
		t.Errorf("notification %q / %q should say why and how to type", n.title, n.body)
	}
	v := h.views.waitFrom(t, 0, "the note", func(v View) bool { return strings.Contains(v.Note, "not available") })
	if m := BuildMenu(v); m.Icon != "degraded" {
		t.Errorf("icon %q with voice missing, want degraded", m.Icon)
	}
}

// TestAuditOpensAsText: Open audit log shows the readable table, not the
// raw JSON lines.
func TestAuditOpensAsText(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.AuditText = func() (string, error) { return "TIME  DECISION\n10:00 denied\n", nil }
	})
	h.app.Post(MenuClick{ID: IDAuditLog})
	path := recv(t, "opened", h.opener.opened)
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "10:00 denied") || path == h.paths.Audit {
		t.Errorf("opened %s (%q, %v); want the rendered text, not the raw log", path, b, err)
	}
}

// TestOpenerFallsBack: when xdg-open fails the file opens in the user's
// editor in a terminal; when that fails too the error names the file.
func TestOpenerFallsBack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		editor  string
		fails   map[string]bool
		want    string // the program that opened it, "" for an error
		wantErr string
	}{
		{"xdg-open works", "vi", nil, "/bin/xdg-open", ""},
		{"xdg-open exit 3, editor in a terminal", "vi", map[string]bool{"/bin/xdg-open": true}, "/bin/xterm", ""},
		{"nothing works", "", map[string]bool{"/bin/xdg-open": true}, "", "the file is /tmp/x.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var opened string
			o := ExecOpener{
				goos: "linux",
				lookPath: func(name string) (string, error) {
					if name == "xdg-open" || name == "xterm" {
						return "/bin/" + name, nil
					}
					return "", errors.New("not found")
				},
				getenv: func(k string) string {
					if k == "EDITOR" {
						return c.editor
					}
					return ""
				},
				run: func(_ time.Duration, name string, args ...string) error {
					if c.fails[name] {
						return errors.New("exit status 3")
					}
					opened = name
					return nil
				},
			}
			err := o.Open("/tmp/x.txt")
			if opened != c.want || (c.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("opened by %q, err %v; want %q, error containing %q", opened, err, c.want, c.wantErr)
			}
		})
	}
}

package app

import (
	"context"
	"errors"
	"fmt"
	"github.com/hark-sh/hark/agent"
	"github.com/ollama/ollama/api"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

func TestPushToTalkTurn(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("You have 3 files in Downloads."), nil)

	m := h.views.mark()
	h.app.Post(KeyDown{})
	h.views.waitFrom(t, m, "listening", stateIs(Listening))
	recv(t, "recorder start", h.rec.started)

	m = h.views.mark()
	h.app.Post(KeyUp{})
	h.views.waitFrom(t, m, "transcribing", stateIs(Transcribing))
	recv(t, "transcription", h.tr.called)
	req := recv(t, "agent request", h.agent.calls)
	if req.Text != "list my downloads" || !req.ConfirmBeforeExecute {
		t.Errorf("agent got %+v, want the transcript from voice with confirmation on", req)
	}
	v := h.views.waitFrom(t, m, "idle after the answer", func(v View) bool { return v.State == Idle && v.Stream != "" })
	if v.Stream != "You have 3 files in Downloads." {
		t.Errorf("status shows %q, want the answer", v.Stream)
	}
	n := recv(t, "answer notification", h.notifier.got)
	if n.body != "You have 3 files in Downloads." {
		t.Errorf("notified %+v, want the answer", n)
	}
	if starts, stops := h.rec.counts(); starts != 1 || stops != 1 {
		t.Errorf("recorder started %d and stopped %d times, want 1 and 1", starts, stops)
	}
}

func TestToggleMode(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("done"), func(o *Options) { o.Settings.HotkeyMode = "toggle" })

	m := h.views.mark()
	h.app.Post(KeyDown{})
	h.views.waitFrom(t, m, "listening", stateIs(Listening))
	recv(t, "recorder start", h.rec.started)
	h.app.Post(KeyUp{}) // ignored in toggle mode
	m = h.views.mark()
	h.app.Post(KeyDown{})
	h.views.waitFrom(t, m, "transcribing after the second press", stateIs(Transcribing))
	recv(t, "agent request", h.agent.calls)
	h.views.waitFrom(t, m, "idle", stateIs(Idle))
	if v := h.views.waitFrom(t, 0, "a listening line", stateIs(Listening)); !strings.Contains(StatusLine(v), "press ctrl+alt+space again") {
		t.Errorf("listening status %q does not say how to stop in toggle mode", StatusLine(v))
	}
}

func TestKeyPressWhileBusyIsIgnoredAndSaid(t *testing.T) {
	t.Parallel()
	h := start(t, blockingAgent(), nil)
	h.app.Post(KeyDown{})
	recv(t, "recorder start", h.rec.started)
	h.app.Post(KeyUp{})
	recv(t, "agent request", h.agent.calls)

	m := h.views.mark()
	h.app.Post(KeyDown{})
	v := h.views.waitFrom(t, m, "busy remark", hasNote("still busy"))
	if !strings.Contains(StatusLine(v), "choose Cancel") {
		t.Errorf("status %q does not say how to stop the running request", StatusLine(v))
	}
	h.app.Post(KeyUp{})
	// A send while busy is refused with a reason, too.
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "another", Reply: reply})
	if r := recv(t, "send reply", reply); r.OK || !strings.Contains(r.Error, "busy") {
		t.Errorf("send while busy got %+v, want a busy error", r)
	}
	if starts, _ := h.rec.counts(); starts != 1 {
		t.Errorf("recorder started %d times, want 1: a busy key press must not start a turn", starts)
	}
}

func TestCancelInEachStage(t *testing.T) {
	t.Parallel()
	type stage struct {
		name string
		// setup returns the agent and a function that drives the app into
		// the stage and returns a channel closed when the stage has seen
		// its context cancelled.
		agent func() (*fakeAgent, chan struct{})
		drive func(t *testing.T, h *harness)
		check func(t *testing.T, h *harness, observed chan struct{})
	}
	ctxWatcher := func(ctx context.Context, c chan struct{}) { <-ctx.Done(); close(c) }
	stages := []stage{
		{
			name:  "listening",
			agent: func() (*fakeAgent, chan struct{}) { return answerAgent("unused"), make(chan struct{}) },
			drive: func(t *testing.T, h *harness) {
				h.app.Post(KeyDown{})
				recv(t, "recorder start", h.rec.started)
			},
			check: func(t *testing.T, h *harness, _ chan struct{}) {
				h.rec.mu.Lock()
				ctx := h.rec.ctx
				h.rec.mu.Unlock()
				if ctx.Err() == nil {
					t.Error("the recording context was not cancelled")
				}
				if _, stops := h.rec.counts(); stops != 1 {
					t.Errorf("recorder stopped %d times, want 1 (release the device)", stops)
				}
			},
		},
		{
			name:  "transcribing",
			agent: func() (*fakeAgent, chan struct{}) { return answerAgent("unused"), make(chan struct{}) },
			drive: func(t *testing.T, h *harness) {
				h.app.Post(KeyDown{})
				recv(t, "recorder start", h.rec.started)
				h.app.Post(KeyUp{})
				ctx := recv(t, "transcription", h.tr.called)
				go func() { <-ctx.Done(); h.tr.at <- time.Time{} }()
			},
			check: func(t *testing.T, h *harness, _ chan struct{}) {
				recv(t, "transcription context cancelled", h.tr.at)
				if len(h.agent.calls) != 0 {
					t.Error("the agent ran after a cancelled transcription")
				}
			},
		},
		{
			name: "thinking",
			agent: func() (*fakeAgent, chan struct{}) {
				seen := make(chan struct{})
				return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
					on(agent.Event{Kind: agent.EventText, Text: "Let me look"})
					ctxWatcher(ctx, seen)
					return "", ctx.Err()
				}), seen
			},
			drive: func(t *testing.T, h *harness) {
				h.app.Post(SendRequest{Text: "look", Reply: make(chan SendReply, 1)})
				recv(t, "agent request", h.agent.calls)
			},
			check: func(t *testing.T, h *harness, seen chan struct{}) { recv(t, "model request cancelled", seen) },
		},
		{
			name: "awaiting approval",
			agent: func() (*fakeAgent, chan struct{}) {
				seen := make(chan struct{})
				return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
					d, _ := c.Confirm(ctx, Pending{Command: "rm -rf build"})
					if d.Approved || d.By != ByCancel {
						return "", fmt.Errorf("decision %+v, want a denial by cancel", d)
					}
					close(seen)
					return "", ctx.Err()
				}), seen
			},
			drive: func(t *testing.T, h *harness) {
				h.app.Post(SendRequest{Text: "clean", Reply: make(chan SendReply, 1)})
				recv(t, "approval asked", h.approver.asked)
			},
			check: func(t *testing.T, h *harness, seen chan struct{}) {
				recv(t, "confirmation denied by cancel", seen)
				recv(t, "notification withdrawn", h.approver.withdrew)
			},
		},
		{
			name: "running",
			agent: func() (*fakeAgent, chan struct{}) {
				seen := make(chan struct{})
				return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
					on(agent.Event{Kind: agent.EventRunning, Call: &agent.Call{Command: "sleep 100"}})
					ctxWatcher(ctx, seen)
					return "", ctx.Err()
				}), seen
			},
			drive: func(t *testing.T, h *harness) {
				m := h.views.mark()
				h.app.Post(SendRequest{Text: "wait", Reply: make(chan SendReply, 1)})
				h.views.waitFrom(t, m, "running", stateIs(Running))
			},
			check: func(t *testing.T, h *harness, seen chan struct{}) { recv(t, "command context cancelled", seen) },
		},
	}
	for _, s := range stages {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ag, seen := s.agent()
			tr := newFakeTranscriber("hello")
			tr.block = true
			h := start(t, ag, func(o *Options) { o.Transcriber = tr })
			h.tr = tr
			s.drive(t, h)
			m := h.views.mark()
			h.app.Post(MenuClick{ID: IDCancel})
			v := h.views.waitFrom(t, m, "idle after cancel", func(v View) bool { return v.State == Idle && v.Note == "cancelled" })
			if len(v.Pending) != 0 {
				t.Errorf("%d commands still pending after cancel", len(v.Pending))
			}
			s.check(t, h, seen)
			// The app takes a new request after a cancel.
			h.app.Post(KeyDown{})
			recv(t, "recorder start after cancel", h.rec.started)
		})
	}
}

func TestCancelIsReportedToSendWait(t *testing.T) {
	t.Parallel()
	h := start(t, blockingAgent(), nil)
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "slow", Wait: true, Reply: reply})
	recv(t, "agent request", h.agent.calls)
	h.app.Post(MenuClick{ID: IDCancel})
	if r := recv(t, "reply", reply); r.OK || !strings.Contains(r.Error, "cancelled") {
		t.Errorf("got %+v, want a cancelled error", r)
	}
}

func TestConfirmerFirstAnswerWins(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		timeout      time.Duration
		act          func(t *testing.T, h *harness, id string)
		wantApproved bool
		wantBy       string
		wantWithdraw bool
	}{
		{
			name: "notification approve, then a menu deny is ignored",
			act: func(t *testing.T, h *harness, id string) {
				h.approver.click(id, true)
				h.app.Post(MenuClick{ID: PrefixDeny + id})
			},
			wantApproved: true, wantBy: ByNotification, wantWithdraw: false,
		},
		{
			name: "notification deny",
			act: func(t *testing.T, h *harness, id string) {
				h.approver.click(id, false)
			},
			wantApproved: false, wantBy: ByNotification, wantWithdraw: false,
		},
		{
			name: "menu approve withdraws the notification, whose late answer is ignored",
			act: func(t *testing.T, h *harness, id string) {
				h.app.Post(MenuClick{ID: PrefixApprove + id})
				recv(t, "withdraw", h.approver.withdrew)
				h.approver.click(id, false)
			},
			wantApproved: true, wantBy: ByMenu, wantWithdraw: true,
		},
		{
			name: "menu deny",
			act: func(t *testing.T, h *harness, id string) {
				h.app.Post(MenuClick{ID: PrefixDeny + id})
			},
			wantApproved: false, wantBy: ByMenu, wantWithdraw: true,
		},
		{
			name:         "timeout denies and withdraws",
			timeout:      50 * time.Millisecond,
			act:          func(t *testing.T, h *harness, id string) {},
			wantApproved: false, wantBy: ByTimeout, wantWithdraw: true,
		},
		{
			name: "cancel denies and withdraws",
			act: func(t *testing.T, h *harness, id string) {
				h.app.Post(MenuClick{ID: IDCancel})
			},
			wantApproved: false, wantBy: ByCancel, wantWithdraw: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			decided := make(chan Decision, 1)
			h := start(t, confirmingAgentWithin("rm -rf ~/Downloads/old", decided, c.timeout), nil)
			m := h.views.mark()
			h.app.Post(SendRequest{Text: "clean up", Reply: make(chan SendReply, 1)})
			p := recv(t, "approval notification", h.approver.asked)
			v := h.views.waitFrom(t, m, "pending in the menu", func(v View) bool { return len(v.Pending) == 1 })
			if v.Pending[0].ID != p.ID || v.Pending[0].Command != "rm -rf ~/Downloads/old" {
				t.Fatalf("menu pending %+v, notification %+v: want the same command and ID", v.Pending[0], p)
			}
			if v.State != AwaitingApproval {
				t.Errorf("state %v, want awaiting-approval", v.State)
			}
			c.act(t, h, p.ID)
			d := recv(t, "decision", decided)
			if d.Approved != c.wantApproved || d.By != c.wantBy || d.PendingID != p.ID {
				t.Errorf("decision %+v, want approved=%v by %s for %s", d, c.wantApproved, c.wantBy, p.ID)
			}
			h.views.waitFrom(t, m, "menu entry removed", func(v View) bool { return len(v.Pending) == 0 && !v.State.Busy() })
			if got := h.approver.withdrawals(); (len(got) == 1) != c.wantWithdraw {
				t.Errorf("withdrawn %v, want withdraw=%v", got, c.wantWithdraw)
			}
		})
	}
}

// TestConfirmerRace answers from the notification and the menu at the same
// moment many times; exactly one answer must count each time (run with
// -race).
func TestConfirmerRace(t *testing.T) {
	t.Parallel()
	const rounds = 50
	decided := make(chan Decision, rounds)
	h := start(t, confirmingAgent("touch x", decided), nil)
	for i := 0; i < rounds; i++ {
		reply := make(chan SendReply, 1)
		h.app.Post(SendRequest{Text: "go", Wait: true, Reply: reply})
		p := recv(t, "approval notification", h.approver.asked)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); h.approver.click(p.ID, true) }()
		go func() { defer wg.Done(); h.app.Post(MenuClick{ID: PrefixDeny + p.ID}) }()
		wg.Wait()
		d := recv(t, "decision", decided)
		r := recv(t, "run end", reply)
		want := "did not run touch x\n\n1 command denied — nothing changed."
		if d.Approved {
			want = "ran touch x"
		}
		if r.Answer != want || (d.By == ByNotification) != d.Approved {
			t.Fatalf("round %d: decision %+v, answer %q: the run must follow the single winning answer", i, d, r.Answer)
		}
	}
	if len(decided) != 0 {
		t.Errorf("%d extra decisions", len(decided))
	}
}

func TestApproverFailureFallsBackToMenu(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	h := start(t, confirmingAgent("mkdir /tmp/x", decided), nil)
	h.approver.askErr = errors.New("no notification server")
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "make it", Reply: make(chan SendReply, 1)})
	recv(t, "ask attempt", h.approver.asked)
	v := h.views.waitFrom(t, m, "remark and pending", func(v View) bool {
		return len(v.Pending) == 1 && strings.Contains(v.Note, "approve from this menu")
	})
	h.app.Post(MenuClick{ID: PrefixApprove + v.Pending[0].ID})
	if d := recv(t, "decision", decided); !d.Approved || d.By != ByMenu {
		t.Errorf("decision %+v, want approved from the menu", d)
	}
	if w := h.approver.withdrawals(); len(w) != 0 {
		t.Errorf("withdrew %v, but nothing was posted", w)
	}
}

func TestSendWaitReturnsAnswer(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("3 files"), nil)
	cases := []struct {
		name string
		req  SendRequest
		want SendReply
	}{
		{"wait", SendRequest{Text: "how many", Wait: true}, SendReply{OK: true, Answer: "3 files"}},
		{"no wait", SendRequest{Text: "how many"}, SendReply{OK: true}},
		{"empty", SendRequest{Text: "  "}, SendReply{Error: "nothing to send"}},
	}
	for _, c := range cases {
		reply := make(chan SendReply, 1)
		c.req.Reply = reply
		m := h.views.mark()
		h.app.Post(c.req)
		got := recv(t, c.name, reply)
		if got.OK != c.want.OK || got.Answer != c.want.Answer || !strings.Contains(got.Error, c.want.Error) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		if c.want.OK {
			r := recv(t, "agent request", h.agent.calls)
			if r.Text != "how many" {
				t.Errorf("%s: agent got %+v", c.name, r)
			}
			h.views.waitFrom(t, m, "idle", func(v View) bool { return v.State == Idle && v.Stream == "3 files" })
		}
	}
}

func TestErrorsBecomeNotificationsAndErrorState(t *testing.T) {
	t.Parallel()
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		return "", errors.New("Ollama is not running at 127.0.0.1:11434 — start it with `ollama serve`")
	})
	h := start(t, ag, nil)
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "hi", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "error state", stateIs(Error))
	if !strings.Contains(StatusLine(v), "ollama serve") {
		t.Errorf("status %q does not carry the error", StatusLine(v))
	}
	if n := recv(t, "error notification", h.notifier.got); !strings.Contains(n.body, "ollama serve") {
		t.Errorf("notification %+v does not carry the error", n)
	}
	// Error is not busy: the next key press starts a turn.
	h.app.Post(KeyDown{})
	recv(t, "recorder start from the error state", h.rec.started)
}

func TestNoSpeechIsNotAnError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		audio speech.Audio
		trErr error
		want  string
	}{
		{"tap of the key", speech.Audio{Samples: make([]float32, 800), SampleRate: 16000}, nil, "didn't catch that"},
		{"silence reported by the transcriber", speech.Audio{Samples: make([]float32, 16000), SampleRate: 16000},
			fmt.Errorf("%w: no speech was heard", speech.ErrNoSpeech), "no speech was heard"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := newFakeTranscriber("")
			tr.err = c.trErr
			h := start(t, answerAgent("unused"), func(o *Options) { o.Transcriber = tr })
			h.rec.audio = c.audio
			m := h.views.mark()
			h.app.Post(KeyDown{})
			recv(t, "recorder start", h.rec.started)
			h.app.Post(KeyUp{})
			v := h.views.waitFrom(t, m, "idle with a remark", func(v View) bool { return v.State == Idle && v.Note != "" })
			if !strings.Contains(v.Note, c.want) {
				t.Errorf("remark %q, want it to contain %q", v.Note, c.want)
			}
			if len(h.agent.calls) != 0 {
				t.Error("the agent ran on no speech")
			}
		})
	}
}

func TestProblemsShowUntilCleared(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.Checks = map[string]func(context.Context) error{
			"ollama": func(context.Context) error {
				return errors.New("Ollama is not running — start it with `ollama serve`")
			},
		}
	})
	h.views.waitFrom(t, 0, "ollama problem", func(v View) bool { return strings.Contains(v.Problems["ollama"].Detail, "ollama serve") })
	m := h.views.mark()
	h.app.Post(Problem{Source: "hotkey", Message: "no X display"})
	v := h.views.waitFrom(t, m, "hotkey problem", func(v View) bool { return v.Problems["hotkey"].Detail != "" })
	// With Ollama down as well, typing cannot work either: the status
	// names what is missing and never says "still works".
	if s := StatusLine(v); !strings.HasPrefix(s, "Not ready: Ollama not running") || strings.Contains(s, "still works") {
		t.Errorf("status %q should say what stops every request", s)
	}
	m = h.views.mark()
	h.app.Post(Problem{Source: "hotkey"})
	h.views.waitFrom(t, m, "hotkey problem cleared", func(v View) bool { return v.Problems["hotkey"].Detail == "" })
}

func TestSettingsErrorAndWarmup(t *testing.T) {
	t.Parallel()
	w := &warmTranscriber{fakeTranscriber: newFakeTranscriber("x"), err: errors.New("model base.en is not installed — run `hark models download base.en`")}
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.SettingsError = errors.New(`key "hotkeyMode": must be "push-to-talk" or "toggle"`)
		o.Transcriber = w
	})
	v := h.views.waitFrom(t, 0, "warm-up problem", func(v View) bool { return v.Problems["transcriber"].Detail != "" })
	if !strings.Contains(v.Problems["settings"].Detail, "hotkeyMode") || !strings.Contains(v.Problems["transcriber"].Detail, "hark models download") {
		t.Errorf("problems %v should name the settings key and the model fix", v.Problems)
	}
}

type warmTranscriber struct {
	*fakeTranscriber
	err error
}

func (w *warmTranscriber) Warm(context.Context) error { return w.err }

func TestConfirmToggleWritesThroughAndSurvivesRestart(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), nil)
	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDConfirm})
	h.views.waitFrom(t, m, "checkbox off", func(v View) bool { return !v.Confirm })
	s, err := settings.Load(h.paths.Settings)
	if err != nil || s.ConfirmBeforeExecute {
		t.Fatalf("settings on disk: confirm=%v err=%v, want false", s.ConfirmBeforeExecute, err)
	}
	// The next request runs without confirmation.
	h.app.Post(SendRequest{Text: "x", Reply: make(chan SendReply, 1)})
	if r := recv(t, "agent request", h.agent.calls); r.ConfirmBeforeExecute {
		t.Error("the request after switching confirmation off still asks to confirm")
	}
	// A restart reads the setting back.
	s2, err := settings.Load(h.paths.Settings)
	if err != nil {
		t.Fatal(err)
	}
	v := BuildMenu(View{Confirm: s2.ConfirmBeforeExecute})
	if it := findItem(v.Items, IDConfirm); it == nil || it.Checked {
		t.Errorf("after restart the checkbox is %+v, want unchecked", it)
	}
}

func TestConfirmToggleKeepsOtherKeysAndRefusesBrokenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := dir + "/settings.json"
	cases := []struct {
		name    string
		content string
		wantErr bool
	}{
		{"missing file", "", false},
		{"other keys kept", `{"ollamaModel": "llama3.2:3b"}`, false},
		{"broken file left alone", `{"ollamaModel": `, true},
		{"unknown key left alone", `{"ollamaModle": "x"}`, true},
	}
	for i, c := range cases {
		p := fmt.Sprintf("%s.%d", path, i)
		if c.content != "" {
			if err := os.WriteFile(p, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		err := SaveConfirmBeforeExecute(p, false)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err=%v, wantErr=%v", c.name, err, c.wantErr)
			continue
		}
		if c.wantErr {
			got, _ := os.ReadFile(p)
			if string(got) != c.content {
				t.Errorf("%s: the file was changed to %q", c.name, got)
			}
			if !strings.Contains(err.Error(), "fix it in Settings") {
				t.Errorf("%s: error %q does not say what to do", c.name, err)
			}
			continue
		}
		s, err := settings.Load(p)
		if err != nil || s.ConfirmBeforeExecute {
			t.Errorf("%s: loaded confirm=%v err=%v", c.name, s.ConfirmBeforeExecute, err)
		}
		if c.name == "other keys kept" && s.OllamaModel != "llama3.2:3b" {
			t.Errorf("%s: ollamaModel became %q", c.name, s.OllamaModel)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: settings file mode %v (err %v), want 0600", c.name, fi.Mode().Perm(), err)
		}
	}
}

func TestMenuActionsOpenFiles(t *testing.T) {
	t.Parallel()
	// The agent's own store is the history, as in the real app.
	hist := agent.NewStore(t.TempDir(), agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
	conv := &agent.Conversation{ID: "20261130-1", Title: "list my downloads", Model: "m",
		Messages: []api.Message{{Role: "user", Content: "list my downloads"}, {Role: "assistant", Content: "**3 files**"}},
		Runs:     []agent.RunMetrics{{Outcome: agent.OutcomeCompleted}}}
	if err := hist.Save(conv); err != nil {
		t.Fatal(err)
	}
	h := start(t, answerAgent("ok"), func(o *Options) { o.History = hist })
	v := h.views.waitFrom(t, 0, "recent conversations", func(v View) bool { return len(v.Recent) == 1 })
	if l := v.Recent[0].Label; !strings.HasPrefix(l, "list my downloads · ") {
		t.Errorf("Recent label %q, want the title and when", l)
	}

	h.app.Post(MenuClick{ID: IDSettings})
	if p := recv(t, "settings opened", h.opener.opened); p != h.paths.Settings {
		t.Errorf("opened %s, want %s", p, h.paths.Settings)
	}
	if _, err := settings.Load(h.paths.Settings); err != nil {
		t.Errorf("Settings… created a file that does not load: %v", err)
	}
	if _, err := os.Stat(h.paths.Settings); err != nil {
		t.Errorf("Settings… did not create the file: %v", err)
	}

	h.app.Post(MenuClick{ID: IDAuditLog})
	if p := recv(t, "audit opened", h.opener.opened); p != h.paths.Audit {
		t.Errorf("opened %s, want %s", p, h.paths.Audit)
	}

	h.app.Post(MenuClick{ID: PrefixConversation + "20261130-1"})
	p := recv(t, "transcript opened", h.opener.opened)
	got, err := os.ReadFile(p)
	if err != nil || string(got) != agent.Transcript(conv) || !strings.Contains(string(got), "Model: 3 files") {
		t.Errorf("transcript file %s holds %q (err %v)", p, got, err)
	}

	m := h.views.mark()
	h.app.Post(MenuClick{ID: PrefixConversation + "missing"})
	h.views.waitFrom(t, m, "remark for a missing conversation", hasNote("hark history show missing"))
}

// The loop owns the conversation: a follow-up continues it until New
// conversation, after which the next request starts a fresh one, follow-up
// or not.
func TestNewConversationAndTypedRequest(t *testing.T) {
	t.Parallel()
	hist := agent.NewStore(t.TempDir(), agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
	clock := &testClock{t: time.Date(2026, 12, 6, 16, 51, 0, 0, time.Local)}
	ag := storingAgent(hist, clock.now)
	h := start(t, ag, func(o *Options) {
		o.History, o.now = hist, clock.now
		o.Prompter = fakePrompter{text: "and show disk usage too\n", ok: true}
	})
	ask := func(text string) request {
		t.Helper()
		m := h.views.mark()
		h.app.Post(SendRequest{Text: text, Reply: make(chan SendReply, 1)})
		r := recv(t, "agent request", ag.calls)
		h.views.waitFrom(t, m, "the answer to "+text, answeredWith(text))
		return r
	}
	first, second := ask("list my downloads"), ask("and sort them by size")
	if first.Conv == nil || first.Conv != second.Conv {
		t.Fatalf("a follow-up started another conversation: %p then %p", first.Conv, second.Conv)
	}
	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDNewConversation})
	h.views.waitFrom(t, m, "new conversation remark", hasNote("new conversation"))
	h.app.Post(MenuClick{ID: IDTypeRequest})
	r := recv(t, "typed request", ag.calls)
	if r.Text != "and show disk usage too" {
		t.Errorf("agent got %+v", r)
	}
	if r.Conv == nil || r.Conv == first.Conv {
		t.Errorf("after New conversation the request continued the old one")
	}
}

func TestQuitEndsRunAndCancelsTheTurn(t *testing.T) {
	t.Parallel()
	h := start(t, blockingAgent(), nil)
	h.app.Post(SendRequest{Text: "slow", Reply: make(chan SendReply, 1)})
	recv(t, "agent request", h.agent.calls)
	h.app.Post(MenuClick{ID: IDQuit})
	recv(t, "Run to return", h.done)
	h.done <- struct{}{} // for the cleanup
	if h.app.Post(KeyDown{}) {
		t.Error("Post after Run ended reported success")
	}
}

func TestStreamingIsThrottled(t *testing.T) {
	t.Parallel()
	// A clock that stands still and timers the test fires by hand make the
	// count exact: a burst inside one interval renders once at once and once
	// when the timer fires, with the latest text.
	var mu sync.Mutex
	var timers []func()
	clock := time.Unix(1000, 0)
	streamed := make(chan struct{})
	finish := make(chan struct{})
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		for i := 0; i < 500; i++ {
			on(agent.Event{Kind: agent.EventText, Text: fmt.Sprintf("w%d ", i)})
		}
		close(streamed)
		<-finish
		return "done", nil
	})
	h := start(t, ag, func(o *Options) {
		o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
		o.afterFunc = func(d time.Duration, f func()) func() bool {
			mu.Lock()
			defer mu.Unlock()
			if d <= 0 || d > time.Second/MaxRendersPerSecond {
				t.Errorf("timer for %v, want within one interval", d)
			}
			timers = append(timers, f)
			return func() bool { return true }
		}
	})
	h.app.Post(SendRequest{Text: "talk", Reply: make(chan SendReply, 1)})
	recv(t, "stream", streamed)
	// Every chunk has reached the loop once a later event has been handled.
	h.app.Post(Problem{Source: "sync", Message: "x"})
	h.views.waitFrom(t, 0, "sync", func(v View) bool { return v.Problems["sync"].Detail != "" })
	before := h.menu.count()
	mu.Lock()
	armed := len(timers)
	mu.Unlock()
	if armed != 1 {
		t.Fatalf("%d timers armed for a burst of 500 chunks, want exactly 1", armed)
	}
	views := h.views.mark()
	mu.Lock()
	clock = clock.Add(time.Second / MaxRendersPerSecond)
	fire := timers[0]
	mu.Unlock()
	fire()
	v := h.views.waitFrom(t, views, "flushed text", func(v View) bool { return strings.HasSuffix(strings.TrimSpace(v.Stream), "w499") })
	if !strings.Contains(StatusLine(v), "w499") {
		t.Errorf("status %q does not end with the latest words", StatusLine(v))
	}
	// Streamed chunks rendered: one at the start of the burst and one flush.
	h.views.mu.Lock()
	streamRenders := 0
	for _, x := range h.views.all {
		if x.Stream != "" && x.State == Thinking {
			streamRenders++
		}
	}
	h.views.mu.Unlock()
	if streamRenders > 3 {
		t.Errorf("%d renders of streamed text for 500 chunks inside one interval, want at most 3", streamRenders)
	}
	if h.menu.count() <= before-1 {
		t.Error("the flush did not reach the menu")
	}
	close(finish)
	h.views.waitFrom(t, views, "idle", stateIs(Idle))
	mu.Lock()
	armed = len(timers)
	mu.Unlock()
	if armed != 1 {
		t.Errorf("%d timers armed in total; an idle app must arm none", armed)
	}
}

func findItem(items []MenuItem, id string) *MenuItem {
	for i := range items {
		if items[i].ID == id {
			return &items[i]
		}
		if it := findItem(items[i].Children, id); it != nil {
			return it
		}
	}
	return nil
}

func TestApproverWithoutActionsSaysSo(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	h := start(t, confirmingAgent("mkdir /tmp/y", decided), nil)
	h.approver.actions = false
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "make it", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "remark", func(v View) bool { return len(v.Pending) == 1 && strings.Contains(v.Note, "answer in this menu") })
	h.app.Post(MenuClick{ID: PrefixDeny + v.Pending[0].ID})
	if d := recv(t, "decision", decided); d.Approved || d.By != ByMenu {
		t.Errorf("decision %+v, want denied from the menu", d)
	}
}

func TestRecordingStopsAtMaximumLength(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), func(o *Options) { o.Settings.MaxRecording = settings.Duration(50 * time.Millisecond) })
	h.app.Post(KeyDown{})
	recv(t, "recorder start", h.rec.started)
	// No KeyUp: the maximum length ends the recording by itself.
	recv(t, "transcription", h.tr.called)
	recv(t, "agent request", h.agent.calls)
	h.app.Post(KeyUp{}) // the late release changes nothing
	h.views.waitFrom(t, 0, "idle", stateIs(Idle))
	if _, stops := h.rec.counts(); stops != 1 {
		t.Errorf("recorder stopped %d times, want 1", stops)
	}
}

// warnings records log lines at warning level or above.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.lines = append(w.lines, string(p))
	w.mu.Unlock()
	return len(p), nil
}

func TestQuitWhileAwaitingApprovalSettlesAtOnce(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	logged := &warnings{}
	h := start(t, confirmingAgent("rm -r old", decided), func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "clean", Wait: true, Reply: reply})
	recv(t, "approval asked", h.approver.asked)
	h.app.Post(Quit{})
	recv(t, "Run to return", h.done)
	h.done <- struct{}{}
	if d := recv(t, "decision", decided); d.Approved || d.By != ByCancel {
		t.Errorf("decision %+v, want a denial by cancel", d)
	}
	if r := recv(t, "send reply", reply); r.OK {
		t.Errorf("send got %+v, want an error: the request did not finish", r)
	}
	logged.mu.Lock()
	defer logged.mu.Unlock()
	for _, l := range logged.lines {
		if strings.Contains(l, "did not stop") {
			t.Errorf("quitting waited for the turn to time out: %s", l)
		}
	}
}

// fakeLoginItem records the login item's state as a file would.
type fakeLoginItem struct {
	mu  sync.Mutex
	on  bool
	err error
}

func (f *fakeLoginItem) Enabled() (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.on, nil
}

func (f *fakeLoginItem) SetEnabled(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.on = on
	return nil
}

func TestLaunchAtLoginCheckboxAndOpenLog(t *testing.T) {
	t.Parallel()
	li := &fakeLoginItem{on: true}
	logFile := filepath.Join(t.TempDir(), "hark.log")
	h := start(t, answerAgent("ok"), func(o *Options) { o.LoginItem = li; o.LogFile = logFile })
	h.views.waitFrom(t, 0, "checkbox reflects the login item", func(v View) bool { return v.HasLogin && v.Login && v.HasLog })

	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDLoginItem})
	h.views.waitFrom(t, m, "checkbox cleared", func(v View) bool { return !v.Login })
	if on, _ := li.Enabled(); on {
		t.Fatal("clicking the checked item did not turn launch at login off")
	}

	li.mu.Lock()
	li.err = errors.New("read-only folder")
	li.mu.Unlock()
	m = h.views.mark()
	h.app.Post(MenuClick{ID: IDLoginItem})
	h.views.waitFrom(t, m, "failure said, checkbox unchanged", func(v View) bool {
		return !v.Login && strings.Contains(v.Note, "read-only folder")
	})

	h.app.Post(MenuClick{ID: IDLog})
	if p := recv(t, "log opened", h.opener.opened); p != logFile {
		t.Errorf("opened %s, want %s", p, logFile)
	}
}

func TestMenuLoginAndLogEntries(t *testing.T) {
	t.Parallel()
	ids := func(m Menu) map[string]MenuItem {
		out := map[string]MenuItem{}
		for _, it := range m.Items {
			out[it.ID] = it
		}
		return out
	}
	without := ids(BuildMenu(View{Hotkey: "ctrl+alt+space"}))
	if _, ok := without[IDLoginItem]; ok {
		t.Error("Launch at login shown without a login item")
	}
	if _, ok := without[IDLog]; ok {
		t.Error("Open log shown without a log file")
	}
	with := ids(BuildMenu(View{Hotkey: "ctrl+alt+space", HasLogin: true, Login: true, HasLog: true}))
	if it := with[IDLoginItem]; it.Kind != ItemCheckbox || !it.Checked || it.Label != "Launch at login" {
		t.Errorf("login item entry = %+v", it)
	}
	if it := with[IDLog]; it.Kind != ItemAction || it.Label != "Open log" {
		t.Errorf("log entry = %+v", it)
	}
}

// TestSpokenApprovalCarriesTheTranscript: when a command that needs
// approval came from speech, the approval (menu and notification) carries
// what Hark heard; a typed request's approval does not.
func TestSpokenApprovalCarriesTheTranscript(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 2)
	tr := newFakeTranscriber("delete the old bills")
	h := start(t, confirmingAgent("rm -r old-builds", decided), func(o *Options) { o.Transcriber = tr })
	h.app.Post(KeyDown{})
	recv(t, "recorder start", h.rec.started)
	h.app.Post(KeyUp{})
	p := recv(t, "approval asked", h.approver.asked)
	if p.Heard != "delete the old bills" {
		t.Errorf("spoken approval Heard = %q", p.Heard)
	}
	v := h.views.wait(t, "pending in the menu", func(v View) bool { return len(v.Pending) == 1 })
	if v.Pending[0].Heard != "delete the old bills" {
		t.Errorf("menu's pending Heard = %q", v.Pending[0].Heard)
	}
	m := h.views.mark()
	h.app.Post(MenuClick{ID: PrefixDeny + p.ID})
	recv(t, "decision", decided)
	// Idle after the turn, not the idle view from before the key was pressed.
	h.views.waitFrom(t, m, "idle", stateIs(Idle))

	h.app.Post(SendRequest{Text: "delete the old builds", Reply: make(chan SendReply, 1)})
	if p := recv(t, "typed approval asked", h.approver.asked); p.Heard != "" {
		t.Errorf("typed approval Heard = %q, want none", p.Heard)
	}
}

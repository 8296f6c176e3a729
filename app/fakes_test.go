package app

import (
	"context"
	"github.com/hark-sh/hark/agent"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech"
)

// waitTimeout bounds every wait in these tests; nothing should take close.
const waitTimeout = 5 * time.Second

// fakeRecorder records Start/Stop. Stop sleeps for tail, like the real one
// that keeps recording after release.
type fakeRecorder struct {
	mu       sync.Mutex
	starts   int
	stops    int
	startErr error
	tail     time.Duration
	audio    speech.Audio
	ctx      context.Context
	started  chan struct{} // receives once per Start
}

func newFakeRecorder() *fakeRecorder {
	return &fakeRecorder{
		audio:   speech.Audio{Samples: make([]float32, 16000), SampleRate: 16000},
		started: make(chan struct{}, 16),
	}
}

func (r *fakeRecorder) Start(ctx context.Context) error {
	r.mu.Lock()
	r.starts++
	r.ctx = ctx
	err := r.startErr
	r.mu.Unlock()
	r.started <- struct{}{}
	return err
}

func (r *fakeRecorder) Stop() (speech.Audio, error) {
	r.mu.Lock()
	r.stops++
	tail, audio := r.tail, r.audio
	r.mu.Unlock()
	if tail > 0 {
		time.Sleep(tail)
	}
	return audio, nil
}

func (r *fakeRecorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts, r.stops
}

// fakeTranscriber returns text, optionally blocking until release is closed
// or its context ends.
type fakeTranscriber struct {
	text    string
	err     error
	block   bool
	release chan struct{}
	called  chan context.Context // receives the ctx of each call
	at      chan time.Time       // when each call began
}

func newFakeTranscriber(text string) *fakeTranscriber {
	return &fakeTranscriber{text: text, release: make(chan struct{}), called: make(chan context.Context, 16), at: make(chan time.Time, 16)}
}

func (f *fakeTranscriber) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	f.at <- time.Now()
	f.called <- ctx
	if f.block {
		select {
		case <-f.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return f.text, f.err
}

// request is what the fake agent saw of one RunWith call.
type request struct {
	Text                 string
	ConfirmBeforeExecute bool
	ConfirmTimeout       time.Duration
	Conv                 *agent.Conversation
}

// fakeAgent runs a scripted function per request and records requests. It
// has the method set of *agent.Agent that the core uses.
type fakeAgent struct {
	mu       sync.Mutex
	requests []request
	run      func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error)
	calls    chan request
}

func newFakeAgent(run func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error)) *fakeAgent {
	return &fakeAgent{run: run, calls: make(chan request, 256)}
}

func (f *fakeAgent) RunWith(ctx context.Context, conv *agent.Conversation, text string, o agent.RequestOptions) (agent.Outcome, error) {
	r := request{Text: text, ConfirmBeforeExecute: o.NoConfirm == nil || !*o.NoConfirm, ConfirmTimeout: o.ConfirmTimeout, Conv: conv}
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
	f.calls <- r
	// The fake counts what happened the way the agent does (RunMetrics),
	// since the app's ending shows the agent's count.
	var mu sync.Mutex
	var m agent.RunMetrics
	on := func(ev agent.Event) {
		mu.Lock()
		switch {
		case ev.Kind == agent.EventProposed && ev.Call != nil && ev.Call.Tier == shell.Forbidden:
			m.Refused++
		case ev.Kind == agent.EventResult && ev.Result != nil && ev.Result.Executed:
			m.Commands++
			if ev.Result.ExitCode != 0 {
				m.Failed++
			}
		}
		mu.Unlock()
		if o.OnEvent != nil {
			o.OnEvent(ev)
		}
	}
	var c agent.Confirmer
	if o.Confirmer != nil {
		c = agent.ConfirmerFunc(func(ctx context.Context, p agent.Pending) (agent.Decision, error) {
			d, err := o.Confirmer.Confirm(ctx, p)
			mu.Lock()
			switch {
			case d.By == agent.ByTimeout:
				m.Denied++
				m.TimedOut++
			case d.Trash && p.TrashOffered:
				m.Trashed++ // the agent counts a trash that moved everything
			case !d.Approved && d.By != agent.ByCancel:
				m.Denied++
			}
			mu.Unlock()
			return d, err
		})
	}
	answer, err := f.run(ctx, r, c, on)
	mu.Lock()
	defer mu.Unlock()
	return agent.Outcome{Answer: answer, Metrics: m}, err
}

// answerAgent answers every request at once.
func answerAgent(answer string) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventFinal, Text: answer})
		return answer, nil
	})
}

// blockingAgent waits for its context to end, like a slow model.
func blockingAgent() *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
}

// confirmingAgent asks c once about cmd and reports the decision on out.
func confirmingAgent(cmd string, out chan<- Decision) *fakeAgent {
	return confirmingAgentWithin(cmd, out, 0)
}

// confirmingAgentWithin is confirmingAgent with a confirmation timeout put
// on the context, as the real agent does: the agent owns the one timeout.
func confirmingAgentWithin(cmd string, out chan<- Decision, timeout time.Duration) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventAwaiting, Call: &agent.Call{Command: cmd}})
		cctx := ctx
		if timeout > 0 {
			var cancel context.CancelFunc
			cctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		d, err := c.Confirm(cctx, Pending{Command: cmd, Purpose: "executing", Tier: "confirm"})
		out <- d
		if err != nil {
			return "", err
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if d.Approved {
			return "ran " + cmd, nil
		}
		return "did not run " + cmd, nil
	})
}

type notification struct{ title, body string }

type fakeNotifier struct {
	mu   sync.Mutex
	sent []notification
	got  chan notification
}

func newFakeNotifier() *fakeNotifier { return &fakeNotifier{got: make(chan notification, 16)} }

func (f *fakeNotifier) Notify(title, body string) error {
	f.mu.Lock()
	f.sent = append(f.sent, notification{title, body})
	f.mu.Unlock()
	f.got <- notification{title, body}
	return nil
}

// fakeApprover keeps the answer callbacks so a test can act as the user
// clicking the notification.
type fakeApprover struct {
	mu        sync.Mutex
	answers   map[string]func(Decision)
	withdrawn []string
	actions   bool
	askErr    error
	asked     chan Pending
	withdrew  chan string
}

func newFakeApprover() *fakeApprover {
	return &fakeApprover{answers: map[string]func(Decision){}, actions: true, asked: make(chan Pending, 256), withdrew: make(chan string, 256)}
}

func (f *fakeApprover) Ask(p Pending, answer func(Decision)) error {
	f.mu.Lock()
	err := f.askErr
	if err == nil {
		f.answers[p.ID] = answer
	}
	f.mu.Unlock()
	f.asked <- p
	return err
}

func (f *fakeApprover) Withdraw(id string) error {
	f.mu.Lock()
	f.withdrawn = append(f.withdrawn, id)
	f.mu.Unlock()
	f.withdrew <- id
	return nil
}

func (f *fakeApprover) Actions() bool { return f.actions }

func (f *fakeApprover) click(id string, approve bool) {
	f.mu.Lock()
	answer := f.answers[id]
	f.mu.Unlock()
	answer(Decision{Approved: approve})
}

// answer acts on the notification of pending id with d (Say it again).
func (f *fakeApprover) answer(id string, d Decision) {
	f.mu.Lock()
	answer := f.answers[id]
	f.mu.Unlock()
	answer(d)
}

func (f *fakeApprover) withdrawals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.withdrawn...)
}

// fakeMenu records every rendered menu.
type fakeMenu struct {
	mu    sync.Mutex
	menus []Menu
}

func (f *fakeMenu) Render(m Menu) {
	f.mu.Lock()
	f.menus = append(f.menus, m)
	f.mu.Unlock()
}

func (f *fakeMenu) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.menus)
}

func (f *fakeMenu) last() Menu {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.menus[len(f.menus)-1]
}

type fakeOpener struct {
	mu     sync.Mutex
	paths  []string
	opened chan string
}

func newFakeOpener() *fakeOpener { return &fakeOpener{opened: make(chan string, 16)} }

func (f *fakeOpener) Open(path string) error {
	f.mu.Lock()
	f.paths = append(f.paths, path)
	f.mu.Unlock()
	f.opened <- path
	return nil
}

// fakePrompter answers the request prompt with text and the reason
// prompt with reason, each with its own ok, so a test tells them apart.
type fakePrompter struct {
	text        string
	ok          bool
	reason      string
	reasonOK    bool
	reasonFor   chan string // when set, receives each Reason's pendingID
	reasonAsked chan string // when set, receives each Reason's message
}

func (f fakePrompter) Prompt(ctx context.Context, title, message string) (string, bool, error) {
	return f.text, f.ok, nil
}

func (f fakePrompter) Reason(ctx context.Context, pendingID, title, message string) (string, bool, error) {
	if f.reasonFor != nil {
		f.reasonFor <- pendingID
	}
	if f.reasonAsked != nil {
		f.reasonAsked <- message
	}
	return f.reason, f.reasonOK, nil
}

// views collects every View the loop renders, so tests wait for a state
// instead of sleeping.
type views struct {
	mu      sync.Mutex
	all     []View
	changed chan struct{}
}

func newViews() *views { return &views{changed: make(chan struct{})} }

func (v *views) observe(view View) {
	v.mu.Lock()
	v.all = append(v.all, view)
	close(v.changed)
	v.changed = make(chan struct{})
	v.mu.Unlock()
}

// wait returns the first View ever rendered that satisfies ok, however
// old; use waitNow or waitFrom for a state that earlier views also had.
func (v *views) wait(t *testing.T, what string, ok func(View) bool) View {
	t.Helper()
	deadline := time.After(waitTimeout)
	seen := 0
	for {
		v.mu.Lock()
		for ; seen < len(v.all); seen++ {
			if ok(v.all[seen]) {
				got := v.all[seen]
				v.mu.Unlock()
				return got
			}
		}
		ch := v.changed
		last := View{}
		if len(v.all) > 0 {
			last = v.all[len(v.all)-1]
		}
		v.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; last view: state=%v status=%q pending=%d", what, last.State, StatusLine(last), len(last.Pending))
		}
	}
}

// waitNow waits for a View, looking only at views rendered from now on.
func (v *views) waitNow(t *testing.T, what string, ok func(View) bool) View {
	t.Helper()
	v.mu.Lock()
	start := len(v.all)
	v.mu.Unlock()
	return v.waitFrom(t, start, what, ok)
}

func (v *views) waitFrom(t *testing.T, start int, what string, ok func(View) bool) View {
	t.Helper()
	deadline := time.After(waitTimeout)
	seen := start
	for {
		v.mu.Lock()
		for ; seen < len(v.all); seen++ {
			if ok(v.all[seen]) {
				got := v.all[seen]
				v.mu.Unlock()
				return got
			}
		}
		ch := v.changed
		v.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (v *views) mark() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.all)
}

func stateIs(s State) func(View) bool {
	return func(v View) bool { return v.State == s && !v.Cancelling }
}

// harness is a running App with fakes.
type harness struct {
	app      *App
	rec      *fakeRecorder
	tr       *fakeTranscriber
	agent    *fakeAgent
	notifier *fakeNotifier
	approver *fakeApprover
	menu     *fakeMenu
	opener   *fakeOpener
	views    *views
	paths    settings.Paths
	done     chan struct{}
}

func testPaths(dir string) settings.Paths {
	return settings.Paths{
		Settings: filepath.Join(dir, "settings.json"),
		Models:   filepath.Join(dir, "models"),
		History:  filepath.Join(dir, "history"),
		Audit:    filepath.Join(dir, "audit.jsonl"),
		Logs:     filepath.Join(dir, "logs"),
		Runtime:  filepath.Join(dir, "run"),
	}
}

// start runs an App with fakes; edit may change the options first.
func start(t *testing.T, agent *fakeAgent, edit func(*Options)) *harness {
	t.Helper()
	h := &harness{
		rec:      newFakeRecorder(),
		tr:       newFakeTranscriber("list my downloads"),
		agent:    agent,
		notifier: newFakeNotifier(),
		approver: newFakeApprover(),
		menu:     &fakeMenu{},
		opener:   newFakeOpener(),
		views:    newViews(),
		paths:    testPaths(t.TempDir()),
		done:     make(chan struct{}, 1),
	}
	s := settings.Defaults()
	s.Hotkey = "ctrl+alt+space"
	// The tests post KeyDown and KeyUp microseconds apart, which hybrid
	// mode (the default) reads as a tap; keymode_test.go covers hybrid.
	s.HotkeyMode = ModePushToTalk
	o := Options{
		Settings:    s,
		Paths:       h.paths,
		Recorder:    h.rec,
		Transcriber: h.tr,
		Agent:       agent,
		Notifier:    h.notifier,
		Approver:    h.approver,
		Menu:        h.menu,
		Opener:      h.opener,
		observe:     h.views.observe,
	}
	if edit != nil {
		edit(&o)
	}
	h.app = New(o)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.app.Run(ctx); h.done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(waitTimeout):
			t.Error("Run did not return after its context ended")
		}
	})
	h.views.wait(t, "first render", func(View) bool { return true })
	return h
}

func recv[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func hasNote(s string) func(View) bool {
	return func(v View) bool { return strings.Contains(v.Note, s) }
}

package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// State is what the app is doing.
type State int

// The states of the app. Idle and Error accept a new request; the others are
// busy with a turn.
const (
	Idle State = iota
	Listening
	Transcribing
	Thinking
	AwaitingApproval
	Running
	Error
)

func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Listening:
		return "listening"
	case Transcribing:
		return "transcribing"
	case Thinking:
		return "thinking"
	case AwaitingApproval:
		return "awaiting-approval"
	case Running:
		return "running"
	case Error:
		return "error"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Busy reports whether a turn is under way in s.
func (s State) Busy() bool { return s != Idle && s != Error }

// ErrStopped is returned by a Confirmer whose app has shut down.
var ErrStopped = errors.New("hark is shutting down")

// Options are the adapters and settings the core runs with. Settings and
// Paths are required; a nil adapter disables what it backs (no Recorder:
// voice input says why it is unavailable; no Approver: approvals come from
// the menu only; no Prompter: "Type a request…" is hidden).
type Options struct {
	Settings settings.Settings
	Paths    settings.Paths
	// SettingsError is the error from loading the settings file, if any. The
	// defaults are in use and the status line says what to fix.
	SettingsError error
	// NoSandbox, when set, says why commands here run with no sandbox and
	// what would give them one. Confirmation then stays on: its checkbox
	// is disabled, and a settings file that turns it off is not applied
	// (a problem row says so).
	NoSandbox string

	Recorder    Recorder
	Transcriber Transcriber
	Agent       Agent
	Notifier    Notifier
	Approver    Approver
	Menu        MenuRenderer
	Opener      Opener // nil: ExecOpener
	Prompter    Prompter
	History     History
	LoginItem   LoginItem     // nil: no "Launch at login" checkbox
	Escape      EscapeGrabber // nil: Escape does not cancel
	Cues        CuePlayer     // nil: no sound cues
	// Speaker reads approvals and answers aloud when the speak setting
	// is on; nil: Hark never speaks.
	Speaker Speaker
	Trash   Trash // nil: no "Undo last trash"
	// Viewer shows Show full command… in a window that wraps long lines
	// (zenity --text-info, a terminal's less); nil or failing: the
	// Opener, then a notification.
	Viewer TextViewer
	// Home is written ~ in approvals, as commands and previews write it;
	// empty: the user's home folder.
	Home string
	// Puller downloads the Ollama model when the "ollama" check finds it
	// not pulled: the problem row offers "Download MODEL (SIZE)". Nil: no
	// offer. A "gpu" check, when given, runs again after the first load.
	Puller ModelPuller
	// Speech, when set, offers the speech models voice input lacks for
	// download from the menu (speechmodel.go); a request spoken before
	// they are in place is kept and runs once they are.
	Speech *SpeechModels

	// LogFile is Hark's log, opened by "Open log"; empty hides the entry.
	LogFile string
	// AuditText renders the audit log as readable text (what `hark
	// audit` prints) for "Open audit log"; nil opens the raw file.
	AuditText func() (string, error)

	// Checks run in the background when Run starts; an error shows as a
	// problem under the check's name ("ollama": OllamaCheck(host)). A check
	// whose problem stands runs again after every request and on a slow
	// timer that backs off (RecheckFirst, doubling up to RecheckMax), and
	// its problem clears as soon as it passes. A problem reported with the
	// same Source by Post is re-checked the same way.
	Checks map[string]func(ctx context.Context) error
	// RecheckFirst and RecheckMax bound the re-check timer; zero: 15 s and
	// 4 min. Nothing is timed while no checked problem stands, so an idle
	// healthy Hark wakes for nothing.
	RecheckFirst, RecheckMax time.Duration
	// WatchEvery is how often settings.json and the Trash record (a Trash
	// with a StateFile) are looked at for changes made outside the app;
	// zero: 2 s, negative: never. Where the system tells of file changes
	// (inotify on Linux) a change is seen at once and the look is only a
	// backstop.
	WatchEvery time.Duration
	// fileEvents, for tests, replaces the system's file-change
	// notification: each value says one of the watched files may have
	// changed.
	fileEvents func(ctx context.Context, paths []string) <-chan struct{}

	// YesNo, when set, asks before confirmation is switched off (a native
	// dialog). Nil: the switch happens at once, and the menu, tooltip and
	// icon say so.
	YesNo YesNo

	Logger *slog.Logger // nil: slog.Default()

	// OnTranscribeStart, when set, is called as transcription begins with
	// the time from key-up (or toggle stop) to that moment: the latency
	// Hark budgets as the recording tail plus under 20 ms.
	OnTranscribeStart func(sinceKeyUp time.Duration)

	// For tests: every View the loop renders (before deduplication), and
	// the clock and timers of the render throttle.
	observe   func(View)
	now       func() time.Time
	afterFunc func(time.Duration, func()) func() bool
}

// MinRecording is the shortest recording worth transcribing; shorter ones
// are a tap of the key, not speech.
const MinRecording = 300 * time.Millisecond

// recentCount is how many conversations the Recent submenu lists.
const recentCount = 10

// App is the menu-bar core. Create it with New, start Run, and send inputs
// with Post.
type App struct {
	o      Options
	log    *slog.Logger
	events chan Event
	done   chan struct{} // closed when Run returns
	loop   inbox         // events and done, for goroutines other than Run
	// keyed runs notifications in the order posted (notify, notifyKey,
	// withdrawNote).
	keyed chan func()
	turns sync.WaitGroup
	ids   atomic.Int64 // pending IDs
	// preloading is set while a preload runs, so key presses in quick
	// succession start one load, not one each.
	preloading atomic.Bool

	// Everything below is owned by the Run goroutine.
	settings settings.Settings
	// conv is the conversation the last request went to, nil until the
	// first one and after New conversation. A turn takes the pointer when
	// it starts and, once it has the request's words, continues it only
	// when they read as a follow-up (agent.ConversationFor), else starts a
	// new one, and tells the loop which (convChosen). Only one turn runs
	// at a time, and the loop never reads inside it.
	conv     *agent.Conversation
	state    State
	turn     *turn
	turnSeq  int
	pending  []*pendingEntry
	problems map[string]ProblemInfo
	// checking marks checks under way, so a slow one is never run twice
	// at once; true means it was asked for again meanwhile and runs once
	// more when it ends (see runCheck).
	checking    map[string]bool
	recheckStop func() bool // the pending re-check timer, nil when none
	// countdownStop is the timer that redraws the approval countdown
	// once a second; armed only while an approval is pending.
	countdownStop func() bool
	recheckWait   time.Duration
	// launchAtLogin mirrors the login item, for the checkbox.
	launchAtLogin bool
	trashLast     string // View.UndoTrash
	// restartNoted is the list of settings last announced as waiting for a
	// restart, so a later save of the same file does not say it again.
	restartNoted string
	note         string // transient remark, cleared by the next state change
	detail       string // the command being run or proposed, or a status such as "loading model…"
	statusDetail bool   // detail is a status that the first streamed text replaces
	stream       string // streamed words of the current reply
	lastError    string
	// lastMissing is the model the last failed request found not pulled,
	// so a download of it can retire that error.
	lastMissing string
	recent      []RecentItem
	throttle    *throttle
	lastRender  *Menu
	keys        keyState
	// pull is the download under way, nil when none; pullSizes the
	// totals downloads have learnt, for the offer's "(SIZE)".
	pull      *pullJob
	pullSizes map[string]int64
	// pullKept is how far a cancelled or failed download of a model got:
	// Ollama keeps that part, so the offer says it resumes.
	pullKept map[string]agent.PullProgress
	// answer is a spoken answer to an approval being recorded, nil when
	// none.
	answer *answerRec
	// speaking is speech under way, nil when silent; described[id] is
	// whether approval id's spoken description was heard to its end
	// (absent: it was not spoken).
	speaking  *speechRun
	described map[string]bool
	// relisten: Say it again cancelled the turn; listen when it ends.
	relisten bool
	// retrying is set while Say it again or Ask again starts its turn:
	// the same request again, which stays in conv whatever its words.
	retrying bool
	// settingsNote says what the last edit of settings.json changed, for
	// the Settings… row; never in the status row, whose length must not
	// move the menu under the pointer.
	settingsNote string
	// missed is the approvals that timed out unanswered, kept for the
	// menu's Ask again row until it is chosen; nil when none.
	missed *missedApprovals
	// held is a recording made while no speech model was there to
	// transcribe it, nil when none: it runs once the model is in place.
	held *speech.Audio
}

// turn is the loop's record of one request from key-down (or typed text)
// to the final answer. Only the loop touches it; the turn's goroutine has
// a turnRun of its own.
type turn struct {
	id         int
	ctxParent  context.Context // the loop's context, for work after the turn
	cancel     context.CancelFunc
	stop       chan<- time.Time // capacity 1: the key-up time ends the recording
	stopped    bool
	cancelling bool
	text       string // typed or sent text, then what was heard; for the menu
	reply      chan<- SendReply
	// timeout is how long the last approval that timed out waited, for
	// the ending ("approval timed out after 2 min"); the agent counts the
	// rest of the ending's facts.
	timeout time.Duration
}

// Private events from the loop's helper goroutines and timers.
type (
	renderFlush  struct{}
	recentLoaded struct {
		list []RecentItem
		err  error
	}
	noteEvent   struct{ text string }
	typedText   struct{ text string }
	toggleSaved struct {
		value bool
		err   error
	}
	loginSaved struct {
		value bool
		err   error
	}
	checkDone struct {
		source string
		err    error
	}
	recheckTick   struct{}
	confirmAnswer struct{ off bool }
)

func (renderFlush) isEvent()   {}
func (recentLoaded) isEvent()  {}
func (noteEvent) isEvent()     {}
func (typedText) isEvent()     {}
func (toggleSaved) isEvent()   {}
func (loginSaved) isEvent()    {}
func (checkDone) isEvent()     {}
func (recheckTick) isEvent()   {}
func (confirmAnswer) isEvent() {}

// New builds an App. Nothing runs until Run.
func New(o Options) *App {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.afterFunc == nil {
		o.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	a := &App{
		o:         o,
		log:       o.Logger,
		events:    make(chan Event, 64),
		done:      make(chan struct{}),
		settings:  o.Settings,
		problems:  map[string]ProblemInfo{},
		checking:  map[string]bool{},
		pullSizes: map[string]int64{},
		pullKept:  map[string]agent.PullProgress{},
		described: map[string]bool{},
	}
	a.loop = inbox{events: a.events, done: a.done}
	if a.o.Opener == nil {
		a.o.Opener = ExecOpener{Failed: a.openFailed}
	}
	a.throttle = newThrottle(time.Second/MaxRendersPerSecond, o.now, o.afterFunc, func() { a.post(renderFlush{}) })
	if o.SettingsError != nil {
		a.setProblem(Problem{Source: "settings", Message: fmt.Sprintf("%v\nFix it in Settings…; every other setting is in use, and the keys named here have their defaults.", o.SettingsError)})
	}
	a.holdConfirm(&a.settings)
	if o.Recorder == nil || o.Transcriber == nil {
		a.setProblem(Problem{Source: "voice", Message: "voice input is not available in this build — use Type a request… or `hark send`"})
	}
	if o.Agent == nil {
		a.setProblem(Problem{Source: "agent", Message: "no agent configured — requests cannot run"})
	}
	for k, f := range o.Checks {
		if f == nil {
			// A check the wiring has none of (the "gpu" check on a runtime
			// that reports no placement) is no check at all.
			delete(o.Checks, k)
		}
	}
	if w, ok := o.Transcriber.(Warmer); ok && o.Checks["transcriber"] == nil {
		// Loading the model is the transcriber's check: a model file put
		// in place later is picked up by the re-check.
		checks := map[string]func(context.Context) error{"transcriber": w.Warm}
		for k, f := range o.Checks {
			checks[k] = f
		}
		a.o.Checks = checks
	}
	a.offerSpeech()
	if o.LoginItem != nil {
		// The login-item file is the truth (the user may have removed it in
		// the desktop's own settings); reading it is one small file.
		on, err := o.LoginItem.Enabled()
		if err != nil {
			a.log.Warn("reading the login item", "err", err)
		}
		a.launchAtLogin = on
	}
	return a
}

// Post hands an event to the loop. It blocks until the loop has taken it
// (so clicks are never dropped) and returns false once Run has ended.
func (a *App) Post(e Event) bool { return a.post(e) }

func (a *App) post(e Event) bool { return a.loop.post(e) }

// Done is closed when Run has returned.
func (a *App) Done() <-chan struct{} { return a.done }

// Run is the event loop. It returns when ctx ends or a Quit event (or the
// Quit menu item) arrives, after cancelling a running turn and waiting up to
// two seconds for it to let go of the microphone.
func (a *App) Run(ctx context.Context) {
	defer close(a.done)
	ctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	a.startBackground(ctx)
	a.renderNow()
	for {
		var e Event
		select {
		case <-ctx.Done():
			a.shutdown()
			return
		case e = <-a.events:
		}
		if _, quit := e.(Quit); quit {
			a.shutdown()
			return
		}
		if c, ok := e.(MenuClick); ok && c.ID == IDQuit {
			a.shutdown()
			return
		}
		a.handle(ctx, e)
	}
}

func (a *App) shutdown() {
	if a.turn != nil {
		a.turn.cancel()
	}
	a.bargeIn()
	a.dropAnswer()
	a.releaseEscape()
	for _, e := range a.pending {
		if e.turn == externalTurn {
			e.cancel() // no turn's cancel reaches another program's approval
		}
	}
	a.throttle.stop()
	if a.recheckStop != nil {
		a.recheckStop()
	}
	waited := make(chan struct{})
	go func() { a.turns.Wait(); close(waited) }()
	timeout := time.NewTimer(2 * time.Second)
	defer timeout.Stop()
	// Keep answering the turn while it winds down: an open confirmation
	// waits for the loop to settle it as cancelled.
	settle := func(e Event) {
		switch e := e.(type) {
		case answered:
			a.decide(e.d)
		case pendingAdd:
			e.entry.cancel()
		case turnDone:
			if a.turn != nil && a.turn.id == e.turn && a.turn.reply != nil {
				a.turn.reply <- SendReply{Error: "Hark quit before the request finished"}
				a.turn.reply = nil
			}
		case SendRequest:
			e.Reply <- SendReply{Error: "Hark is quitting; start it again with `hark`"}
		case ListenRequest:
			e.Reply <- SendReply{Error: listenQuitting}
		case DenyRequest:
			e.Reply <- SendReply{Error: "Hark is quitting; the command was not run"}
		case ApprovalRequest:
			e.Reply <- Decision{PendingID: e.Pending.ID, By: ByCancel}
		}
	}
	for {
		select {
		case <-waited:
			// The turn's last events may still be queued.
			for {
				select {
				case e := <-a.events:
					settle(e)
				default:
					return
				}
			}
		case <-timeout.C:
			a.log.Warn("a turn did not stop within 2s of quitting")
			return
		case e := <-a.events:
			settle(e)
		}
	}
}

func (a *App) startBackground(ctx context.Context) {
	names := make([]string, 0, len(a.o.Checks))
	for name := range a.o.Checks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a.runCheck(ctx, name)
	}
	if err := a.o.SettingsError; err != nil {
		a.notifyKey("settings", "Settings problem", err.Error()+"\n\nEvery other setting is in use. Fix it in Settings… in the Hark menu.")
	}
	if p, ok := a.problems["confirm"]; ok {
		a.notifyKey("confirm", "Confirm stays on", p.Detail)
	}
	a.loadRecent()
	a.loadTrash()
	a.startWatching(ctx)
}

// handle dispatches one event; what each means lives in its method. Each
// case is one call, and the function stays short enough to read at once
// (TestHandleStaysShort): an event of the loop's own that needs nothing
// but its method can be a selfHandled instead (events_self.go).
func (a *App) handle(ctx context.Context, e Event) {
	switch e := e.(type) {
	case KeyDown:
		a.keyDownAt(ctx, e.At)
	case KeyUp:
		a.keyUpAt(e.At)
	case Escape:
		a.escape()
	case cueFailed:
		a.cueFailed(e.err)
	case cuesSaved:
		a.cuesSaved(e)
	case MenuClick:
		a.click(ctx, e.ID)
	case answered:
		a.decide(e.d)
	case SendRequest:
		a.send(ctx, e)
	case ListenRequest:
		a.listenRequest(ctx, e)
	case ApprovalRequest:
		a.askExternal(e)
	case HotkeyAssigned:
		a.hotkeyAssigned(e)
	case DenyRequest:
		a.denyRequested(e)
	case filesChanged:
		a.filesChanged(e)
	case typedText:
		a.startText(ctx, e.text, "typed", nil)
	case Problem:
		a.reportProblem(ctx, e)
	case checkDone:
		a.checkFinished(ctx, e)
	case recheckTick:
		a.recheckDue(ctx)
	case confirmAnswer:
		a.confirmAnswered(e.off)
	case selfHandled:
		e.handleBy(ctx, a)
	case noteEvent:
		a.showNote(e.text)
	case toggleSaved:
		a.confirmSaved(e)
	case loginSaved:
		a.loginChanged(e)
	case pullProgress:
		a.pullMoved(e)
	case pullDone:
		a.pullFinished(ctx, e)
	case modelLoaded:
		a.modelAnswered(ctx)
	default:
		a.log.Warn("unknown event", "type", fmt.Sprintf("%T", e))
	}
}

// setState changes state and clears the transient remark that belonged to
// the old one.
func (a *App) setState(s State) {
	if a.state != s {
		a.note = ""
	}
	a.state = s
	a.syncEscape()
	a.renderNow()
}

func (a *App) busyNote() {
	a.note = "still busy with the last request — choose Cancel to stop it"
	a.renderNow()
}

func (a *App) stopRecording() {
	if a.answer != nil {
		a.stopAnswer()
		return
	}
	t := a.turn
	if t == nil || t.stopped {
		return
	}
	t.stopped = true
	t.stop <- a.o.now() // sent once, into room for one: never blocks
	a.setState(Transcribing)
}

// newTurn records a new turn as the loop's and returns what its goroutine
// gets: copies and handles, never the App.
func (a *App) newTurn(ctx context.Context, source, text string, reply chan<- SendReply) *turnRun {
	a.turnSeq++
	tctx, cancel := context.WithCancel(ctx)
	stop := make(chan time.Time, 1)
	a.turn = &turn{id: a.turnSeq, ctxParent: ctx, cancel: cancel, stop: stop, text: text, reply: reply}
	a.stream, a.detail, a.lastError = "", "", ""
	return &turnRun{
		id:                a.turnSeq,
		ctx:               tctx,
		loop:              a.loop,
		source:            source,
		text:              text,
		prev:              a.conv,
		retry:             a.retrying,
		stop:              stop,
		keep:              a.speechMissing(),
		noConfirm:         !a.settings.ConfirmBeforeExecute,
		confirmTimeout:    a.settings.ConfirmTimeout.D(),
		maxRecording:      a.settings.MaxRecording.D(),
		cues:              a.settings.SoundCues,
		agent:             a.o.Agent,
		recorder:          a.o.Recorder,
		transcriber:       a.o.Transcriber,
		cuePlayer:         a.o.Cues,
		confirmer:         turnConfirmer{loop: a.loop, ids: &a.ids, approver: a.o.Approver, log: a.log, turn: a.turnSeq},
		onTranscribeStart: a.o.OnTranscribeStart,
		now:               a.o.now,
	}
}

// startTurn runs r on a goroutine of its own, counted for shutdown.
func (a *App) startTurn(r *turnRun) {
	a.turns.Add(1)
	go func() {
		defer a.turns.Done()
		r.run()
	}()
}

func (a *App) startVoice(ctx context.Context) {
	if a.o.Recorder == nil || a.o.Transcriber == nil {
		a.note = "voice input is not available — use Type a request… or hark send"
		a.renderNow()
		// The key press must answer where the user is looking, which is
		// not the menu: say why, and how to type instead.
		why := "Voice input is not available."
		if p, ok := a.problems["voice"]; ok {
			why = p.Detail
		}
		how := "Type instead: run  hark send \"your request\"  in a terminal."
		if a.o.Prompter != nil {
			how = "Type instead: choose Type a request… in the Hark menu, or run  hark send \"your request\"  in a terminal."
		}
		a.notify("Can't listen", why+"\n\n"+how)
		return
	}
	r := a.newTurn(ctx, "voice", "", nil)
	a.setState(Listening)
	a.startTurn(r)
	a.preload(ctx)
}

// PreloadTimeout bounds a preload once it runs on its own: long enough for
// a large model to load from a slow disk, short enough that a hung Ollama
// does not keep a request open for ever.
const PreloadTimeout = 5 * time.Minute

// preload loads the model while the user speaks, so loading overlaps
// speech and transcription instead of following them. The load belongs to
// the app, not to the turn: Ollama throws a load away when the request that
// started it goes away (server/sched.go), so a turn that ends early — a
// tap, "didn't catch that", Escape — would otherwise cost the next press
// the whole load again. ctx is the loop's, which ends only at shutdown.
func (a *App) preload(ctx context.Context) {
	p, ok := a.o.Agent.(Preloader)
	if !ok || !a.preloading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer a.preloading.Store(false)
		pctx, cancel := context.WithTimeout(ctx, PreloadTimeout)
		defer cancel()
		if p.Preload(pctx) == nil {
			a.post(modelLoaded{})
		}
	}()
}

func (a *App) startText(ctx context.Context, text, source string, reply chan<- SendReply) {
	if a.state.Busy() {
		if reply != nil {
			reply <- SendReply{Error: "Hark is busy with another request; wait for it to finish or cancel it from the menu, then try again"}
		} else {
			a.busyNote()
		}
		return
	}
	r := a.newTurn(ctx, source, text, reply)
	a.setState(Thinking)
	a.startTurn(r)
}

func (a *App) send(ctx context.Context, r SendRequest) {
	text := strings.TrimSpace(r.Text)
	if text == "" {
		r.Reply <- SendReply{Error: "nothing to send: give the request as text, e.g. hark send \"list my downloads\""}
		return
	}
	if a.o.Agent == nil {
		r.Reply <- SendReply{Error: "no agent is configured in this Hark; see the status line in the menu"}
		return
	}
	if a.state.Busy() {
		r.Reply <- SendReply{Error: "Hark is busy with another request; wait for it to finish or cancel it from the menu, then try again"}
		return
	}
	var reply chan<- SendReply
	if r.Wait {
		reply = r.Reply
	} else {
		r.Reply <- SendReply{OK: true}
	}
	a.startText(ctx, text, "socket", reply)
}

// current returns the loop's turn if it is the one numbered id, else nil:
// events from a turn that has ended are dropped.
func (a *App) current(id int) *turn {
	if a.turn == nil || a.turn.id != id {
		return nil
	}
	return a.turn
}

func (a *App) turnStage(e stageEvent) {
	t := a.current(e.turn)
	if t == nil {
		return
	}
	if e.state == Transcribing {
		t.stopped = true // the recording hit its maximum length
	}
	a.setState(e.state)
}

// convChosen makes the conversation the turn's request went to the one
// the next request may continue.
func (a *App) convChosen(e convChosen) {
	if a.current(e.turn) != nil {
		a.conv = e.conv
	}
}

func (a *App) heardText(e heard) {
	if t := a.current(e.turn); t != nil {
		t.text = e.text
		a.detail = ""
	}
}

func (a *App) partialText(e partialHeard) {
	if a.current(e.turn) != nil && (a.state == Listening || a.state == Transcribing) {
		a.detail = e.text
		a.renderThrottled()
	}
}

// agentProgress shows the agent's progress on the current turn.
func (a *App) agentProgress(e agentEvent) {
	if a.current(e.turn) == nil {
		return
	}
	ev := e.ev
	var command string
	if ev.Call != nil {
		command = ev.Call.Command
	}
	switch ev.Kind {
	case agent.EventLoading, agent.EventThinking:
		// A status the first streamed word replaces.
		a.detail, a.statusDetail = ev.Text, true
		a.renderNow()
	case agent.EventRetry:
		a.detail, a.statusDetail = "asking the model again…", true
		a.renderNow()
	case agent.EventText:
		if a.statusDetail {
			a.detail, a.statusDetail = "", false
		}
		if ev.Reset {
			a.stream = ""
		}
		a.stream += ev.Text
		if len(a.stream) > 4096 {
			a.stream = a.stream[len(a.stream)-2048:]
		}
		a.renderThrottled()
	case agent.EventProposed:
		a.detail, a.statusDetail = command, false
		a.renderNow()
	case agent.EventAwaiting:
		a.detail, a.statusDetail = command, false
		if a.turnPending() {
			a.setState(AwaitingApproval)
		}
	case agent.EventRunning:
		a.detail, a.statusDetail = command, false
		a.stream = ""
		a.setState(Running)
	case agent.EventResult:
		a.detail = ""
		a.setState(Thinking)
	case agent.EventFinal:
		a.stream = ev.Text
		a.renderNow()
	case agent.EventError:
		a.lastError = ev.Text
		a.renderNow()
	}
}

func (a *App) cancel() {
	t := a.turn
	if t == nil || t.cancelling {
		return
	}
	t.cancelling = true
	t.cancel()
	playCue(a.o.Cues, a.loop, a.settings.SoundCues, speech.CueCancel)
	a.syncEscape()
	a.note = ""
	a.renderNow()
}

func (a *App) finish(d turnDone) {
	t := a.turn
	if t == nil || t.id != d.turn {
		return
	}
	a.turn = nil
	t.cancel()
	a.dropAnswer()
	a.cancelPending()
	a.detail = ""
	tally := d.tally
	tally.Undo = "Undo last trash in the menu"
	if tally.TimedOut > 0 {
		tally.Timeout = t.timeout
	}
	ending := agent.Ending(tally, d.answer)
	var held *heldVoice
	reply := SendReply{OK: true, Answer: ending}
	switch {
	case d.cancelled:
		a.stream = ""
		a.setState(Idle)
		a.note = "cancelled"
		reply = SendReply{Error: "the request was cancelled"}
	case errors.Is(d.err, errDidntCatch) || errors.Is(d.err, speech.ErrNoSpeech):
		a.stream = ""
		a.setState(Idle)
		a.note = d.err.Error()
		reply = SendReply{Error: d.err.Error()}
	case errors.As(d.err, &held):
		a.holdVoice(held)
		reply = SendReply{Error: d.err.Error()}
	case d.err != nil:
		a.offerMissing(d.err)
		a.offerTooOld(t.ctxParent, d.err)
		body := a.trayText(d.err)
		a.lastError = menuText(body)
		a.lastMissing = downloadOffer(d.err)
		a.setState(Error)
		if f := tally.Facts(); f != "" {
			body = f + ".\n\n" + body
		}
		a.notifyFailed(d.err, body)
		a.say(SpokenFailure(body))
		reply = SendReply{Error: body}
	default:
		a.stream = d.answer
		a.setState(Idle)
		if ending != "" {
			title := "Answer"
			if tally.Contradiction(d.answer) != "" {
				// The model's words claim what the record contradicts; the
				// title is what a glance at the notification takes in.
				title = "That didn't happen"
			}
			a.notifyEnding(title, ending, tally)
			a.say(SpokenAnswer(agent.SpokenEnding(tally, d.answer)))
		}
		// The agent just talked to Ollama: whatever the last check said,
		// it is running now.
		if d.answer != "" {
			delete(a.problems, "ollama")
			a.modelAnswered(t.ctxParent)
		}
	}
	if t.reply != nil {
		t.reply <- reply
	}
	a.recheck(t.ctxParent)
	a.loadTrash()
	a.renderNow()
	a.loadRecent()
	if a.relisten {
		a.relistenNow(t.ctxParent)
	}
	a.runHeld(t.ctxParent)
}

// notifyKey posts a notification about a state under key, replacing the
// last one posted under it; withdrawNote closes it once the state is
// over. Both go through one queue, so a close never overtakes the post
// it closes. A Notifier that cannot do either just posts.
func (a *App) notifyKey(key, title, body string) {
	k, ok := a.o.Notifier.(KeyedNotifier)
	if !ok {
		a.notify(title, body)
		return
	}
	a.keyedDo(func() {
		if err := k.NotifyKey(key, title, body); err != nil {
			a.log.Warn("notification failed", "err", err)
		}
	})
}

func (a *App) withdrawNote(key string) {
	if k, ok := a.o.Notifier.(KeyedNotifier); ok {
		a.keyedDo(func() {
			if err := k.CloseKey(key); err != nil {
				a.log.Warn("withdrawing a notification", "err", err)
			}
		})
	}
}

// keyedDo runs f off the loop, after every f queued before it. Called
// from the event loop only.
func (a *App) keyedDo(f func()) {
	if a.keyed == nil {
		a.keyed = make(chan func(), 16)
		go func(q <-chan func()) {
			for f := range q {
				f()
			}
		}(a.keyed)
	}
	select {
	case a.keyed <- f:
	default:
		go f() // a stuck server: do not block the loop
	}
}

func (a *App) notify(title, body string) {
	n := a.o.Notifier
	if n == nil {
		return
	}
	// The same queue as the keyed ones: the desktop shows them in the
	// order they were posted.
	a.keyedDo(func() {
		if err := n.Notify(title, body); err != nil {
			a.log.Warn("notification failed", "err", err)
		}
	})
}

func (a *App) gotRecent(e recentLoaded) {
	if e.err != nil {
		a.log.Warn("listing recent conversations", "err", e.err)
		return
	}
	a.recent = e.list
	a.renderNow()
}

func (a *App) loadRecent() {
	h := a.o.History
	if h == nil {
		return
	}
	now := a.o.now()
	go func() {
		list, err := h.List()
		var items []RecentItem
		for _, s := range list[:min(recentCount, len(list))] {
			items = append(items, RecentItem{ID: s.ID, Label: s.Label(now)})
		}
		a.post(recentLoaded{list: items, err: err})
	}()
}

package app

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// keyStep is one hotkey transition at an offset in ms; listening is what
// the loop would say at that moment (a recording under way).
type keyStep struct {
	op        string // "down", "up" or "reset"
	ms        int
	listening bool
	want      keyAction
}

func TestKeyMachine(t *testing.T) {
	t.Parallel()
	const threshold = 400
	cases := []struct {
		name  string
		mode  string
		steps []keyStep
	}{
		{"hybrid: a hold is push-to-talk", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 1500, true, keyStop},
		}},
		{"hybrid: a tap latches until the next press", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 120, true, keyNothing},
			{"down", 3000, true, keyStop},
			{"up", 3100, false, keyNothing}, // the stopping press's release ends nothing more
			{"down", 5000, false, keyStart}, // and the next press starts afresh
			{"up", 6000, true, keyStop},
		}},
		{"hybrid: the threshold itself is a hold", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", threshold, true, keyStop},
		}},
		{"hybrid: just under the threshold is a tap", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", threshold - 1, true, keyNothing},
		}},
		{"hybrid: auto-repeat presses while held change nothing", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"down", 500, true, keyNothing},
			{"down", 533, true, keyNothing},
			{"down", 566, true, keyNothing},
			{"up", 900, true, keyStop},
		}},
		{"hybrid: auto-repeat during a short press is still a tap", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"down", 250, true, keyNothing},
			{"down", 283, true, keyNothing},
			{"up", 300, true, keyNothing},
			{"down", 2000, true, keyStop},
		}},
		{"hybrid: Escape while latched, then a press starts anew", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 100, true, keyNothing},
			{"reset", 1000, false, keyNothing},
			{"down", 2000, false, keyStart},
		}},
		{"hybrid: Escape while held, the release stops nothing", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"reset", 800, false, keyNothing},
			{"up", 1200, false, keyNothing},
		}},
		{"hybrid: max length ended a latched recording", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 100, true, keyNothing},
			{"down", 61000, false, keyStart}, // not listening any more: a new request
		}},
		{"hybrid: press while busy asks to start (the loop says busy)", ModeHybrid, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 50, false, keyNothing},
		}},
		{"push-to-talk: even a tap stops on release", ModePushToTalk, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 100, true, keyStop},
		}},
		{"toggle: press starts, release nothing, press stops", ModeToggle, []keyStep{
			{"down", 0, false, keyStart},
			{"up", 2000, true, keyNothing},
			{"down", 3000, true, keyStop},
			{"up", 3100, false, keyNothing},
		}},
		{"a lost release: a press while held and idle is a new press", ModePushToTalk, []keyStep{
			{"down", 0, false, keyStart},
			{"reset", 100, false, keyNothing},
			{"down", 5000, false, keyStart},
		}},
		{"a release without a press is ignored", ModeHybrid, []keyStep{
			{"up", 10, false, keyNothing},
			{"up", 20, true, keyNothing},
		}},
	}
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newKeyMachine(tc.mode, threshold*time.Millisecond)
			for i, s := range tc.steps {
				at := base.Add(time.Duration(s.ms) * time.Millisecond)
				var got keyAction
				switch s.op {
				case "down":
					got = m.down(at, s.listening)
				case "up":
					got = m.up(at, s.listening)
				case "reset":
					m.reset()
				}
				if got != s.want {
					t.Fatalf("step %d (%s at %d ms, listening %v) = %v, want %v", i, s.op, s.ms, s.listening, got, s.want)
				}
			}
		})
	}
}

func TestKeyMachineDefaults(t *testing.T) {
	t.Parallel()
	m := newKeyMachine("", 0)
	if m.mode != ModeHybrid || m.threshold != DefaultTapThreshold {
		t.Errorf("defaults = %q %v, want hybrid and %v", m.mode, m.threshold, DefaultTapThreshold)
	}
}

// fakeEscape records what the core asked of the Escape key.
type fakeEscape struct{ calls chan bool }

func (f *fakeEscape) SetGrabbed(on bool) { f.calls <- on }

// fakeCues records the cues played; with block, Play never returns until
// the test ends, like a sound server that hangs.
type fakeCues struct {
	block    chan struct{}
	played   chan speech.Cue
	mu       sync.Mutex
	recStart func() int // recorder starts seen when a cue began
	starts   []int
}

func (f *fakeCues) Play(c speech.Cue) error {
	if f.recStart != nil {
		f.mu.Lock()
		f.starts = append(f.starts, f.recStart())
		f.mu.Unlock()
	}
	f.played <- c
	if f.block != nil {
		<-f.block
	}
	return nil
}

func hybridHarness(t *testing.T, agent *fakeAgent, edit func(*Options)) (*harness, *fakeEscape) {
	esc := &fakeEscape{calls: make(chan bool, 32)}
	h := start(t, agent, func(o *Options) {
		o.Settings.HotkeyMode = ModeHybrid
		o.Escape = esc
		if edit != nil {
			edit(o)
		}
	})
	return h, esc
}

func TestHybridTapLatchesAndHoldTalks(t *testing.T) {
	t.Parallel()
	t.Run("tap", func(t *testing.T) {
		t.Parallel()
		h, _ := hybridHarness(t, answerAgent("done"), nil)
		t0 := time.Now()
		m := h.views.mark()
		h.app.Post(KeyDown{At: t0})
		h.views.waitFrom(t, m, "listening", stateIs(Listening))
		recv(t, "recorder start", h.rec.started)
		// The adapter delivers a release after its debounce window, but
		// At is when the key came up: 150 ms, a tap.
		h.app.Post(KeyUp{At: t0.Add(150 * time.Millisecond)})
		v := h.views.waitFrom(t, m, "latched listening", func(v View) bool { return v.State == Listening && v.Toggle })
		if line := StatusLine(v); !strings.Contains(line, "press ctrl+alt+space again") {
			t.Errorf("latched status %q does not say to press again", line)
		}
		if _, stops := h.rec.counts(); stops != 0 {
			t.Fatalf("a tap stopped the recording (%d stops)", stops)
		}
		m = h.views.mark()
		h.app.Post(KeyDown{At: t0.Add(4 * time.Second)})
		h.views.waitFrom(t, m, "transcribing after the second press", stateIs(Transcribing))
		recv(t, "agent request", h.agent.calls)
		h.app.Post(KeyUp{At: t0.Add(4100 * time.Millisecond)})
		h.views.waitFrom(t, m, "idle", stateIs(Idle))
		if starts, stops := h.rec.counts(); starts != 1 || stops != 1 {
			t.Errorf("recorder started %d and stopped %d times, want 1 and 1", starts, stops)
		}
	})
	t.Run("hold", func(t *testing.T) {
		t.Parallel()
		h, _ := hybridHarness(t, answerAgent("done"), nil)
		t0 := time.Now()
		m := h.views.mark()
		h.app.Post(KeyDown{At: t0})
		recv(t, "recorder start", h.rec.started)
		h.app.Post(KeyDown{At: t0.Add(500 * time.Millisecond)}) // a repeat the adapter let through
		h.app.Post(KeyUp{At: t0.Add(1200 * time.Millisecond)})
		h.views.waitFrom(t, m, "transcribing after release", stateIs(Transcribing))
		recv(t, "agent request", h.agent.calls)
		h.views.waitFrom(t, m, "idle", stateIs(Idle))
		if starts, stops := h.rec.counts(); starts != 1 || stops != 1 {
			t.Errorf("recorder started %d and stopped %d times, want 1 and 1", starts, stops)
		}
	})
}

// TestEscape checks that Escape is grabbed exactly while there is a
// recording, a transcription or a model request to cancel, that it cancels
// them like the menu's Cancel, and that it is given back for approvals and
// when idle.
func TestEscape(t *testing.T) {
	t.Parallel()
	grabbed := func(t *testing.T, esc *fakeEscape, want bool) {
		t.Helper()
		if got := recv(t, "SetGrabbed", esc.calls); got != want {
			t.Fatalf("SetGrabbed(%v), want SetGrabbed(%v)", got, want)
		}
	}
	t.Run("while listening", func(t *testing.T) {
		t.Parallel()
		h, esc := hybridHarness(t, answerAgent("unused"), nil)
		h.app.Post(KeyDown{At: time.Now()})
		recv(t, "recorder start", h.rec.started)
		grabbed(t, esc, true)
		m := h.views.mark()
		h.app.Post(Escape{})
		h.views.waitFrom(t, m, "idle after Escape", func(v View) bool { return v.State == Idle && v.Note == "cancelled" })
		grabbed(t, esc, false)
		if len(h.agent.calls) != 0 {
			t.Error("the agent ran after Escape while listening")
		}
		// The key is still held: its release stops nothing, and the next
		// press starts a new recording.
		h.app.Post(KeyUp{At: time.Now()})
		h.app.Post(KeyDown{At: time.Now()})
		recv(t, "recorder start after Escape", h.rec.started)
	})
	t.Run("while latched by a tap", func(t *testing.T) {
		t.Parallel()
		h, esc := hybridHarness(t, answerAgent("unused"), nil)
		t0 := time.Now()
		h.app.Post(KeyDown{At: t0})
		h.app.Post(KeyUp{At: t0.Add(50 * time.Millisecond)})
		recv(t, "recorder start", h.rec.started)
		grabbed(t, esc, true)
		m := h.views.mark()
		h.app.Post(Escape{})
		h.views.waitFrom(t, m, "idle after Escape", func(v View) bool { return v.State == Idle && v.Note == "cancelled" })
		grabbed(t, esc, false)
		// A press now is a new request, not the end of the old one.
		m = h.views.mark()
		h.app.Post(KeyDown{At: t0.Add(3 * time.Second)})
		h.views.waitFrom(t, m, "listening again", stateIs(Listening))
	})
	t.Run("while transcribing", func(t *testing.T) {
		t.Parallel()
		tr := newFakeTranscriber("hello")
		tr.block = true
		h, esc := hybridHarness(t, answerAgent("unused"), func(o *Options) { o.Transcriber = tr })
		t0 := time.Now()
		h.app.Post(KeyDown{At: t0})
		h.app.Post(KeyUp{At: t0.Add(time.Second)})
		ctx := recv(t, "transcription", tr.called)
		grabbed(t, esc, true) // still: transcribing is escapable
		h.app.Post(Escape{})
		select {
		case <-ctx.Done():
		case <-time.After(waitTimeout):
			t.Fatal("Escape did not cancel the transcription")
		}
		grabbed(t, esc, false)
	})
	t.Run("while the model thinks", func(t *testing.T) {
		t.Parallel()
		h, esc := hybridHarness(t, blockingAgent(), nil)
		h.app.Post(SendRequest{Text: "look", Reply: make(chan SendReply, 1)})
		recv(t, "agent request", h.agent.calls)
		grabbed(t, esc, true)
		m := h.views.mark()
		h.app.Post(Escape{})
		h.views.waitFrom(t, m, "idle after Escape", func(v View) bool { return v.State == Idle && v.Note == "cancelled" })
		grabbed(t, esc, false)
	})
	t.Run("not while an approval waits", func(t *testing.T) {
		t.Parallel()
		decided := make(chan Decision, 1)
		h, esc := hybridHarness(t, confirmingAgent("rm -rf build", decided), nil)
		m := h.views.mark()
		h.app.Post(SendRequest{Text: "clean", Reply: make(chan SendReply, 1)})
		grabbed(t, esc, true) // thinking first
		h.views.waitFrom(t, m, "awaiting approval", stateIs(AwaitingApproval))
		grabbed(t, esc, false)
		// A press that slipped in as the grab went away does nothing.
		h.app.Post(Escape{})
		pending := h.views.waitFrom(t, m, "pending", func(v View) bool { return len(v.Pending) == 1 }).Pending[0]
		h.app.Post(MenuClick{ID: PrefixDeny + pending.ID})
		if d := recv(t, "decision", decided); d.By != ByMenu {
			t.Errorf("decided %+v, want the menu's denial (Escape must not cancel an approval)", d)
		}
	})
}

func TestCues(t *testing.T) {
	t.Parallel()
	t.Run("a stuck player never delays recording", func(t *testing.T) {
		t.Parallel()
		block := make(chan struct{})
		t.Cleanup(func() { close(block) })
		cues := &fakeCues{block: block, played: make(chan speech.Cue, 8)}
		h, _ := hybridHarness(t, answerAgent("done"), func(o *Options) { o.Cues = cues })
		cues.recStart = func() int { s, _ := h.rec.counts(); return s }
		t0 := time.Now()
		m := h.views.mark()
		h.app.Post(KeyDown{At: t0})
		recv(t, "recorder start", h.rec.started)
		if c := recv(t, "start cue", cues.played); c != speech.CueStart {
			t.Fatalf("first cue %v, want the start cue", c)
		}
		// The player is stuck in the start cue; the turn goes on.
		h.app.Post(KeyUp{At: t0.Add(time.Second)})
		recv(t, "agent request", h.agent.calls)
		h.views.waitFrom(t, m, "idle", stateIs(Idle))
		if c := recv(t, "stop cue", cues.played); c != speech.CueStop {
			t.Errorf("second cue %v, want the stop cue", c)
		}
		cues.mu.Lock()
		defer cues.mu.Unlock()
		if len(cues.starts) == 0 || cues.starts[0] != 1 {
			t.Errorf("recorder starts when the start cue began = %v, want 1: the recording starts first", cues.starts)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		cues := &fakeCues{played: make(chan speech.Cue, 8)}
		h, _ := hybridHarness(t, answerAgent("unused"), func(o *Options) { o.Cues = cues })
		h.app.Post(KeyDown{At: time.Now()})
		recv(t, "start cue", cues.played)
		h.app.Post(Escape{})
		if c := recv(t, "cancel cue", cues.played); c != speech.CueCancel {
			t.Errorf("cue %v, want the cancel cue", c)
		}
	})
	t.Run("the menu switches them off, on disk too", func(t *testing.T) {
		t.Parallel()
		cues := &fakeCues{played: make(chan speech.Cue, 8)}
		h, _ := hybridHarness(t, answerAgent("done"), func(o *Options) { o.Cues = cues })
		v := h.views.wait(t, "the cue checkbox", func(v View) bool { return v.HasCues && v.Cues })
		if it := findItem(BuildMenu(v).Items, IDSoundCues); it == nil || it.Kind != ItemCheckbox || !it.Checked {
			t.Fatalf("menu item %+v, want a checked Sound cues box", it)
		}
		m := h.views.mark()
		h.app.Post(MenuClick{ID: IDSoundCues})
		h.views.waitFrom(t, m, "cues off", func(v View) bool { return !v.Cues })
		if s, err := settings.Load(h.paths.Settings); err != nil || s.SoundCues {
			t.Fatalf("settings file: soundCues %v, %v; want false", s.SoundCues, err)
		}
		t0 := time.Now()
		m = h.views.mark()
		h.app.Post(KeyDown{At: t0})
		h.app.Post(KeyUp{At: t0.Add(time.Second)})
		h.views.waitFrom(t, m, "idle", stateIs(Idle))
		select {
		case c := <-cues.played:
			t.Errorf("cue %v played after the menu switched cues off", c)
		default:
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		cues := &fakeCues{played: make(chan speech.Cue, 8)}
		h, _ := hybridHarness(t, answerAgent("done"), func(o *Options) {
			o.Cues = cues
			o.Settings.SoundCues = false
		})
		t0 := time.Now()
		m := h.views.mark()
		h.app.Post(KeyDown{At: t0})
		h.app.Post(KeyUp{At: t0.Add(time.Second)})
		h.views.waitFrom(t, m, "idle", stateIs(Idle))
		m = h.views.mark()
		h.app.Post(KeyDown{At: t0.Add(2 * time.Second)})
		h.views.waitFrom(t, m, "listening again", stateIs(Listening))
		h.app.Post(MenuClick{ID: IDCancel})
		h.views.waitFrom(t, m, "idle after cancel", func(v View) bool { return v.State == Idle && v.Note == "cancelled" })
		select {
		case c := <-cues.played:
			t.Errorf("cue %v played with soundCues off", c)
		default:
		}
	})
}

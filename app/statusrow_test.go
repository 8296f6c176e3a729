package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// onLoop runs a test's function on the event loop, between two events.
type onLoop func(ctx context.Context, a *App)

func (onLoop) isEvent()                               {}
func (f onLoop) handleBy(ctx context.Context, a *App) { f(ctx, a) }

// TestOwnClickIsNoSettingsEdit: walk 6 clicked Sound cues and read
// "settings.json: soundCues applied" in the status row, its own click
// reported as an edit of the file: the file watcher saw the write before
// the save's own answer reached the loop. A toggle in the menu applies
// at once, so the watcher has nothing to report whichever comes first.
func TestOwnClickIsNoSettingsEdit(t *testing.T) {
	t.Parallel()
	// The save goes on after the test's last look; its folder is not the
	// test's TempDir, whose removal it would race.
	dir, err := os.MkdirTemp("", "hark-own-click")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { time.Sleep(100 * time.Millisecond); os.RemoveAll(dir) })
	cues := &fakeCues{played: make(chan speech.Cue, 64)}
	h := start(t, answerAgent("ok"), func(o *Options) { o.Cues = cues; o.Paths.Settings = filepath.Join(dir, "settings.json") })
	want := !h.views.wait(t, "idle", stateIs(Idle)).Cues
	done := make(chan struct{})
	h.app.Post(onLoop(func(ctx context.Context, a *App) {
		defer close(done)
		a.click(ctx, IDSoundCues)
		// The watcher's turn first: the loop waits here until the click's
		// own write is on disk, so its answer can only come after.
		for deadline := time.Now().Add(waitTimeout); ; time.Sleep(time.Millisecond) {
			if s, err := settings.Load(a.o.Paths.Settings); err == nil && s.SoundCues == want {
				break
			}
			if time.Now().After(deadline) {
				t.Error("the click's write never reached the file")
				return
			}
		}
		a.reloadSettings()
	}))
	recv(t, "the click and the reload", done)
	v := h.views.wait(t, "the checkbox", func(v View) bool { return v.Cues == want })
	if strings.Contains(v.Settings+v.Note, "soundCues") {
		t.Fatalf("the click is reported as an edit: note %q, settings note %q", v.Note, v.Settings)
	}
}

// TestStatusRowKeepsItsPlace: a settings note makes neither the status
// row longer nor the tooltip change (a tray host re-shows a changed
// tooltip over the open menu, D-18); the Settings… row's tooltip has it.
func TestStatusRowKeepsItsPlace(t *testing.T) {
	t.Parallel()
	base := View{State: Idle, Confirm: true, CanType: true, CantListen: "voice input is not available", HasCues: true}
	noted := base
	noted.Settings = "settings.json: confirmTimeout applied"
	a, b := BuildMenu(base), BuildMenu(noted)
	if rowsOf(a) == rowsOf(b) && a.Tooltip == b.Tooltip {
		// expected so far; the Settings… row's tooltip is what differs
	} else {
		t.Errorf("the settings note moved the menu or the tooltip:\n%s\n%q\n\n%s\n%q", rowsOf(a), a.Tooltip, rowsOf(b), b.Tooltip)
	}
	if it := findItem(b.Items, IDSettings); it == nil || it.Tooltip != noted.Settings {
		t.Errorf("Settings… row %+v", it)
	}
	// Any other remark stays in the status row, but never in the tooltip.
	remark := base
	remark.Note = "new conversation started"
	if c := BuildMenu(remark); c.Tooltip != a.Tooltip {
		t.Errorf("a remark changed the tooltip: %q, then %q", a.Tooltip, c.Tooltip)
	}
}

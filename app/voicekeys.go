package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// EscapeGrabber takes the Escape key from the rest of the desktop while
// Hark has something Escape can cancel, and gives it back afterwards, so
// Escape is never stolen while Hark is idle or waits for an approval.
// SetGrabbed is called from the event loop on every change and must not
// block; the adapter posts Escape for each press while grabbed.
// hotkey.EscapeKey is the real one.
type EscapeGrabber interface {
	SetGrabbed(on bool)
}

// CuePlayer plays one of the short sounds that say the microphone started,
// stopped or was dropped. The core calls Play on a goroutine of its own,
// so a slow or stuck player never delays the recording; an error is
// logged once.
type CuePlayer interface {
	Play(c speech.Cue) error
}

// Escape is the Escape key pressed while grabbed: the same as Cancel in
// the menu, while Hark is listening, transcribing or waiting for the
// model. At other times (a late press) it does nothing.
type Escape struct{}

func (Escape) isEvent() {}

// HotkeyAssigned is the trigger the desktop gave Hark's hotkey (the
// GlobalShortcuts portal may assign another than the setting, or the user
// may change it in the desktop's settings): every line that names the
// hotkey names this one. "" goes back to the setting.
type HotkeyAssigned struct{ Trigger string }

func (HotkeyAssigned) isEvent() {}

func (a *App) hotkeyAssigned(e HotkeyAssigned) {
	a.keys.assigned = e.Trigger
	a.renderNow()
}

// hotkeyName is the hotkey as the menu names it.
func (a *App) hotkeyName() string {
	if a.keys.assigned != "" {
		return a.keys.assigned
	}
	return a.settings.Hotkey
}

// keyState is the loop's view of the hotkey and of Escape.
type keyState struct {
	assigned  string // the desktop's trigger for the hotkey, "" where Hark grabs the setting's
	m         *keyMachine
	escapeOn  bool // what the grabber was last told
	cueFailed bool // a cue failed once; later failures are not logged
	// speakFailed: speech failed once; later failures are not logged.
	speakFailed bool
}

func (a *App) keyMachine() *keyMachine {
	if a.keys.m == nil {
		threshold := a.settings.TapThreshold.D()
		a.keys.m = newKeyMachine(a.settings.HotkeyMode, threshold)
	}
	return a.keys.m
}

// listening reports whether a recording is under way that a key can stop.
func (a *App) listening() bool {
	if a.answer != nil {
		return !a.answer.stopped
	}
	return a.state == Listening && a.turn != nil && !a.turn.stopped && !a.turn.cancelling
}

func (a *App) keyDownAt(ctx context.Context, at time.Time) {
	if at.IsZero() {
		at = a.o.now()
	}
	// The press stops speech at once, whatever it goes on to do: the
	// person wants to talk, not to hear the end of the sentence.
	a.bargeIn()
	switch a.keyMachine().down(at, a.listening()) {
	case keyStop:
		a.stopRecording()
	case keyStart:
		if ok, why := a.voiceAnswerable(); ok {
			a.startAnswer(ctx)
			return
		} else if why != "" {
			a.note = why
			a.renderNow()
			return
		}
		if a.answer != nil {
			return // its transcript is on the way
		}
		if a.state.Busy() {
			a.busyNote()
			return
		}
		a.startVoice(ctx)
		if a.state == Listening && len(a.pending) > 0 {
			// Only other programs' approvals wait (a turn's would have made
			// this press an answer). What is said now is a new request:
			// say so, so that a "yes" meant for one is not taken for an
			// answer that was never given.
			a.note = "a new request — the approval from another program is answered in this menu"
			a.renderNow()
		}
	}
}

func (a *App) keyUpAt(at time.Time) {
	if at.IsZero() {
		at = a.o.now()
	}
	switch a.keyMachine().up(at, a.listening()) {
	case keyStop:
		a.stopRecording()
	case keyNothing:
		if a.listening() && a.keys.m.latchedOn() {
			a.renderNow() // the status line now says to press again
		}
	}
}

// escapable reports whether Escape has something to cancel: a recording,
// a transcription or a model request. An approval is answered in the menu
// or the notification, and the person may be typing elsewhere meanwhile.
func (a *App) escapable() bool {
	if a.answer != nil || a.speaking != nil {
		return true // a spoken answer being recorded, or speech playing
	}
	if a.turn == nil || a.turn.cancelling {
		return false
	}
	switch a.state {
	case Listening, Transcribing, Thinking:
		return true
	}
	return false
}

func (a *App) escape() {
	if a.speaking != nil {
		a.bargeIn()
		a.renderNow()
		return
	}
	if a.answer != nil {
		a.dropAnswer()
		a.note = "answer dropped — the approval still waits"
		a.renderNow()
		return
	}
	if !a.escapable() {
		return
	}
	a.cancel()
}

// syncEscape tells the grabber whether Escape should be Hark's now. It is
// called after every state change.
func (a *App) syncEscape() {
	on := a.escapable()
	if a.keys.m != nil && !a.listening() {
		a.keys.m.reset()
	}
	if on == a.keys.escapeOn || a.o.Escape == nil {
		return
	}
	a.keys.escapeOn = on
	a.o.Escape.SetGrabbed(on)
}

// releaseEscape gives Escape back when the loop ends.
func (a *App) releaseEscape() {
	if a.keys.escapeOn && a.o.Escape != nil {
		a.keys.escapeOn = false
		a.o.Escape.SetGrabbed(false)
	}
}

// playCue plays c on p without waiting for it, when cues are on; a
// failure goes to the loop as cueFailed. Both the loop and a turn call it.
func playCue(p CuePlayer, loop inbox, on bool, c speech.Cue) {
	if !on || p == nil {
		return
	}
	go func() {
		if err := p.Play(c); err != nil {
			loop.post(cueFailed{err: err})
		}
	}()
}

type cueFailed struct{ err error }

func (cueFailed) isEvent() {}

func (a *App) cueFailed(err error) {
	if a.keys.cueFailed {
		return
	}
	a.keys.cueFailed = true
	a.log.Warn("sound cue failed; no more cue errors are logged", "err", err)
}

// saveCues writes soundCues to the settings file, keeping every other key
// as it is on disk; the checkbox follows once the file says so.
func (a *App) saveCues(want bool) {
	path := a.o.Paths.Settings
	// Applied now, so that the file watcher, which may see the write
	// before cuesSaved arrives, does not report the user's own click as
	// an edit of settings.json.
	a.settings.SoundCues = want
	go func() {
		err := settings.Update(path, func(s *settings.Settings) { s.SoundCues = want })
		a.post(cuesSaved{value: want, err: err})
	}()
}

type cuesSaved struct {
	value bool
	err   error
}

func (cuesSaved) isEvent() {}

func (a *App) cuesSaved(e cuesSaved) {
	if e.err != nil {
		a.note = fmt.Sprintf("Could not save the setting: %v", e.err)
		a.settings.SoundCues = !e.value
	} else {
		a.settings.SoundCues = e.value
	}
	a.renderNow()
}

package app

import "time"

// The hotkey modes (settings.HotkeyMode).
const (
	ModeHybrid     = "hybrid"       // a tap latches recording until the next press; a hold is push-to-talk
	ModePushToTalk = "push-to-talk" // record while the key is held
	ModeToggle     = "toggle"       // a press starts, the next press stops
)

// DefaultTapThreshold is the longest press hybrid mode still reads as a
// tap, when the settings give none.
const DefaultTapThreshold = 400 * time.Millisecond

// keyAction is what one hotkey transition asks of the event loop.
type keyAction int

const (
	keyNothing keyAction = iota
	keyStart             // start listening (or say why not, when busy)
	keyStop              // stop listening and transcribe
)

// keyMachine reads hotkey presses and releases as start and stop, by mode.
// It is pure: the times come with the events (when the key physically
// moved, from the adapter) and whether Hark is listening comes from the
// loop, which alone knows it (a recording also ends at its maximum length,
// by Cancel or by Escape). Presses arrive debounced, but a repeat press
// while held and listening, or a release with no press before it, is
// ignored here too.
type keyMachine struct {
	mode      string
	threshold time.Duration

	held    bool      // the key is down
	downAt  time.Time // when it went down
	started bool      // this press started the recording, so its release may stop it
	latched bool      // hybrid: a tap keeps the recording going until the next press
}

func newKeyMachine(mode string, threshold time.Duration) *keyMachine {
	if threshold <= 0 {
		threshold = DefaultTapThreshold
	}
	if mode == "" {
		mode = ModeHybrid
	}
	return &keyMachine{mode: mode, threshold: threshold}
}

// down is a press at t; listening says whether a recording is under way.
func (m *keyMachine) down(t time.Time, listening bool) keyAction {
	if m.held && listening {
		return keyNothing // auto-repeat that got past the adapter
	}
	// A press while held and not listening means its release was lost (the
	// adapter alternates them): it is a new press.
	m.held, m.downAt, m.started = true, t, false
	if listening {
		if m.mode == ModeToggle || m.latched {
			m.latched = false
			return keyStop // the release that follows ends nothing
		}
		// Push-to-talk with a recording the key did not start: leave it.
		return keyNothing
	}
	m.latched = false
	m.started = true
	return keyStart
}

// up is a release at t.
func (m *keyMachine) up(t time.Time, listening bool) keyAction {
	if !m.held {
		return keyNothing
	}
	m.held = false
	started := m.started
	m.started = false
	if !started || !listening {
		return keyNothing
	}
	switch m.mode {
	case ModeToggle:
		return keyNothing
	case ModeHybrid:
		if t.Sub(m.downAt) < m.threshold {
			m.latched = true
			return keyNothing
		}
	}
	return keyStop
}

// reset forgets a latched recording: it ended some other way (Escape,
// Cancel, its maximum length). A key still held stays held, and its
// release then stops nothing.
func (m *keyMachine) reset() {
	m.latched, m.started = false, false
}

// latchedOn reports whether the recording waits for a press to stop, as in
// toggle mode, rather than for a release.
func (m *keyMachine) latchedOn() bool { return m.mode == ModeToggle || m.latched }

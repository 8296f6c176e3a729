package app

import "time"

// MaxRendersPerSecond caps how often streamed text redraws the menu.
const MaxRendersPerSecond = 30

// throttle coalesces bursts of updates: the first update after a quiet
// interval goes through at once, later ones inside the interval collapse
// into one delayed update at its end that shows the latest state. It arms a
// one-shot timer only while updates are waiting, so an idle app has no timer
// at all. It is used from the event loop only; fire runs on the timer's
// goroutine and must only post an event back to the loop.
type throttle struct {
	interval  time.Duration
	now       func() time.Time
	afterFunc func(time.Duration, func()) func() bool
	fire      func()

	last   time.Time
	armed  bool
	cancel func() bool
}

func newThrottle(interval time.Duration, now func() time.Time, afterFunc func(time.Duration, func()) func() bool, fire func()) *throttle {
	return &throttle{interval: interval, now: now, afterFunc: afterFunc, fire: fire}
}

// allow reports whether an update may be shown now. When it may not, a
// delayed update is scheduled (once) and fired() must be called when it
// arrives.
func (t *throttle) allow() bool {
	if t.armed {
		return false
	}
	now := t.now()
	if wait := t.interval - now.Sub(t.last); wait > 0 && !t.last.IsZero() {
		t.armed = true
		t.cancel = t.afterFunc(wait, t.fire)
		return false
	}
	t.last = now
	return true
}

// shown records an update shown outside the throttle (a state change), so
// the next streamed one still keeps its distance.
func (t *throttle) shown() { t.last = t.now() }

// fired is called by the loop when the delayed update arrives.
func (t *throttle) fired() {
	t.armed = false
	t.cancel = nil
	t.last = t.now()
}

// stop drops a scheduled update.
func (t *throttle) stop() {
	if t.cancel != nil {
		t.cancel()
	}
	t.armed, t.cancel = false, nil
}

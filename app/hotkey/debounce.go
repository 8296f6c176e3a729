package hotkey

import (
	"sync"
	"time"
)

// debouncer turns raw key transitions into clean Down/Up events. It is pure:
// the caller feeds timestamps and asks for a flush at the deadline it is
// given, so every case is testable without timers.
//
// Auto-repeat on X11 (without detectable auto-repeat) and on some macOS
// paths looks like release+press pairs a few milliseconds apart while the
// key is held; a release therefore only counts once no press follows within
// the window. Repeated presses while held are dropped.
type debouncer struct {
	window    time.Duration
	held      bool      // the key is physically down (as far as we know)
	upPending bool      // a release was seen; it becomes Up unless a press follows in the window
	upAt      time.Time // when that release happened
}

func newDebouncer(window time.Duration) *debouncer {
	if window <= 0 {
		window = DefaultRepeatWindow
	}
	return &debouncer{window: window}
}

// press records a raw press at t and returns what to emit now.
func (d *debouncer) press(t time.Time) []Event {
	if d.upPending {
		if t.Sub(d.upAt) < d.window {
			// Release+press pair: auto-repeat, the key never came up.
			d.upPending = false
			return nil
		}
		// The release was real but its flush is late; settle it first.
		out := d.settleUp()
		return append(out, d.press(t)...)
	}
	if d.held {
		return nil // repeat press while held
	}
	d.held = true
	return []Event{{Kind: Down, At: t}}
}

// release records a raw release at t. It emits nothing now; the returned
// deadline is when flush must be called (zero if nothing is pending).
func (d *debouncer) release(t time.Time) time.Time {
	if !d.held || d.upPending {
		return time.Time{}
	}
	d.upPending = true
	d.upAt = t
	return t.Add(d.window)
}

// flush emits the pending release if its window has passed by now.
func (d *debouncer) flush(now time.Time) []Event {
	if !d.upPending || now.Sub(d.upAt) < d.window {
		return nil
	}
	return d.settleUp()
}

func (d *debouncer) settleUp() []Event {
	d.upPending = false
	d.held = false
	return []Event{{Kind: Up, At: d.upAt}}
}

// pump runs raw transitions through a debouncer with a real timer and
// delivers events on out without ever blocking the source: events queue up
// when the app is slow, so none is lost.
type pump struct {
	mu    sync.Mutex
	d     *debouncer
	timer *time.Timer
	queue []Event
	wake  chan struct{}
	out   chan Event
	done  chan struct{}
	once  sync.Once
}

func newPump(o Options) *pump {
	p := &pump{
		d:    newDebouncer(o.RepeatWindow),
		wake: make(chan struct{}, 1),
		out:  make(chan Event),
		done: make(chan struct{}),
	}
	go p.deliver()
	return p
}

// Press and Release are called by the platform code as raw events arrive.
func (p *pump) Press(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.enqueue(p.d.press(t))
}

func (p *pump) Release(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	deadline := p.d.release(t)
	if deadline.IsZero() {
		return
	}
	wait := time.Until(deadline)
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, p.flush)
	} else {
		p.timer.Reset(wait)
	}
}

// Emit delivers e as it is, in order with the debounced events: a key
// with no hold to debounce (the portal's cancel shortcut).
func (p *pump) Emit(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.enqueue([]Event{e})
}

func (p *pump) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.d.upPending && now.Before(p.d.upAt.Add(p.d.window)) {
		// The timer fired early relative to a newer release; re-arm.
		p.timer.Reset(p.d.upAt.Add(p.d.window).Sub(now))
		return
	}
	p.enqueue(p.d.flush(now))
}

func (p *pump) enqueue(evs []Event) {
	if len(evs) == 0 {
		return
	}
	p.queue = append(p.queue, evs...)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *pump) deliver() {
	defer close(p.out)
	for {
		p.mu.Lock()
		var next *Event
		if len(p.queue) > 0 {
			e := p.queue[0]
			next = &e
		}
		p.mu.Unlock()
		if next == nil {
			select {
			case <-p.wake:
				continue
			case <-p.done:
				return
			}
		}
		select {
		case p.out <- *next:
			p.mu.Lock()
			p.queue = p.queue[1:]
			p.mu.Unlock()
		case <-p.done:
			return
		}
	}
}

// Close stops delivery and closes the event channel.
func (p *pump) Close() {
	p.once.Do(func() {
		p.mu.Lock()
		if p.timer != nil {
			p.timer.Stop()
		}
		p.mu.Unlock()
		close(p.done)
	})
}

//go:build darwin && cgo

package hotkey

import (
	"fmt"
	"sync"
	"time"
)

// EscapeKey is plain Escape, registered as a Carbon hot key only while
// SetGrabbed(true) holds, so Hark can offer Escape to cancel while it is
// busy and never takes the key from other apps otherwise.
type EscapeKey struct {
	mu    sync.Mutex
	want  chan bool // capacity 1: the latest wish, older ones dropped
	out   chan Event
	done  chan struct{}
	exit  chan struct{}
	once  sync.Once
	onErr func(error)
}

// NewEscapeKey prepares Escape without registering it yet. onErr (may be
// nil) hears about registrations that fail.
func NewEscapeKey(onErr func(error)) (*EscapeKey, error) {
	if onErr == nil {
		onErr = func(error) {}
	}
	e := &EscapeKey{want: make(chan bool, 1), out: make(chan Event, 4), done: make(chan struct{}), exit: make(chan struct{}), onErr: onErr}
	go e.apply()
	return e, nil
}

// Events delivers a Down for each press of Escape while it is registered.
func (e *EscapeKey) Events() <-chan Event { return e.out }

// SetGrabbed asks for Escape to be registered or released. It never
// blocks, and a quick on-off ends off.
func (e *EscapeKey) SetGrabbed(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.want:
	default:
	}
	e.want <- on
}

func (e *EscapeKey) apply() {
	defer close(e.exit)
	var id uint32 // the registered Escape, 0 when none
	release := func() {
		if id != 0 {
			// Once remove returns no press is delivered any more, so the
			// channel may be closed after it (Close).
			if err := carbonKeys.remove(id); err != nil {
				e.onErr(fmt.Errorf("hotkey: releasing Escape: %w", err))
			}
			id = 0
		}
	}
	defer release()
	for {
		select {
		case on := <-e.want:
			if !on {
				release()
				continue
			}
			if id != 0 {
				continue
			}
			k, err := carbonKeys.add(macKeys["escape"], 0, func(down bool, at time.Time) {
				if !down {
					return
				}
				select {
				case e.out <- Event{Kind: Down, At: at}:
				default: // a cancel is already on its way
				}
			})
			if err != nil {
				e.onErr(escapeTaken(err))
				continue
			}
			id = k
		case <-e.done:
			return
		}
	}
}

// Close releases Escape and stops the event channel.
func (e *EscapeKey) Close() error {
	e.once.Do(func() {
		close(e.done)
		<-e.exit
		close(e.out)
	})
	return nil
}

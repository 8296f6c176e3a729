//go:build darwin && cgo

package hotkey

import (
	"sync"
	"time"

	"golang.design/x/hotkey"
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
	fwd   sync.WaitGroup
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
	var hk *hotkey.Hotkey
	release := func() {
		if hk != nil {
			// Unregister closes hk's Keydown channel, which ends its forwarder.
			_ = hk.Unregister()
			hk = nil
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
			if hk != nil {
				continue
			}
			k := hotkey.New(nil, hotkey.KeyEscape)
			if err := k.Register(); err != nil {
				e.onErr(escapeTaken(err))
				continue
			}
			hk = k
			e.fwd.Add(1)
			go e.forward(k.Keydown())
		case <-e.done:
			return
		}
	}
}

func (e *EscapeKey) forward(down <-chan hotkey.Event) {
	defer e.fwd.Done()
	for range down {
		select {
		case e.out <- Event{Kind: Down, At: time.Now()}:
		default: // a cancel is already on its way
		}
	}
}

// Close releases Escape and stops the event channel.
func (e *EscapeKey) Close() error {
	e.once.Do(func() {
		close(e.done)
		<-e.exit
		e.fwd.Wait()
		close(e.out)
	})
	return nil
}

//go:build linux || freebsd || netbsd || openbsd

package hotkey

import (
	"os"
	"sync"

	"github.com/jezek/xgb/xproto"
)

// EscapeKey is plain Escape, grabbed on the X11 root window only while
// SetGrabbed(true) holds, so Hark can offer Escape to cancel while it is
// busy and never takes the key from other programs otherwise.
type EscapeKey struct {
	l     *Listener
	mu    sync.Mutex
	want  chan bool // capacity 1: the latest wish, older ones dropped
	done  chan struct{}
	exit  chan struct{}
	once  sync.Once
	onErr func(error)
}

// NewEscapeKey prepares Escape on the display named by $DISPLAY, without
// grabbing it yet. onErr (may be nil) hears about grabs that fail.
func NewEscapeKey(onErr func(error)) (*EscapeKey, error) {
	return NewEscapeKeyDisplay(os.Getenv("DISPLAY"), onErr)
}

// NewEscapeKeyDisplay is NewEscapeKey on a named display.
func NewEscapeKeyDisplay(display string, onErr func(error)) (*EscapeKey, error) {
	l, err := open(display, escapeCombo, Options{}, false)
	if err != nil {
		return nil, err
	}
	if onErr == nil {
		onErr = func(error) {}
	}
	e := &EscapeKey{l: l, want: make(chan bool, 1), done: make(chan struct{}), exit: make(chan struct{}), onErr: onErr}
	go e.apply()
	return e, nil
}

// Events delivers a Down for each press of Escape while it is grabbed (and
// the matching Up).
func (e *EscapeKey) Events() <-chan Event { return e.l.Events() }

// SetGrabbed asks for Escape to be grabbed or released. It never blocks:
// the X requests go out on a goroutine of their own, and a quick on-off
// ends off.
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
	grabbed := false
	for {
		select {
		case on := <-e.want:
			if on == grabbed {
				continue
			}
			if on {
				if err := e.l.grabMasks(escapeCombo); err != nil {
					e.onErr(escapeTaken(err))
					continue
				}
			} else {
				e.l.ungrab()
				// A round trip, so the key is free again once this returns.
				xproto.GetInputFocus(e.l.conn).Reply()
			}
			grabbed = on
		case <-e.done:
			return
		}
	}
}

// Close releases Escape and the display connection.
func (e *EscapeKey) Close() error {
	e.once.Do(func() {
		close(e.done)
		<-e.exit
		e.l.Close()
	})
	return nil
}

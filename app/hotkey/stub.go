//go:build (darwin && !cgo) || !(darwin || linux || freebsd || netbsd || openbsd)

package hotkey

import (
	"fmt"
	"runtime"
)

// Listener is never returned on this build; the type exists so callers
// compile everywhere.
type Listener struct{ out chan Event }

// Events returns a channel that never delivers.
func (l *Listener) Events() <-chan Event { return l.out }

// DetectableAutoRepeat is meaningless without a listener.
func (l *Listener) DetectableAutoRepeat() bool { return false }

// Close does nothing.
func (l *Listener) Close() error { return nil }

// Register always fails with ErrUnavailable: macOS hot keys need cgo
// (Carbon), and other systems than Linux, the BSDs and macOS have no adapter.
func Register(c Combo, o Options) (*Listener, error) {
	if runtime.GOOS == "darwin" {
		return nil, fmt.Errorf("%w: this build of Hark was made without cgo, which macOS hot keys need; rebuild with CGO_ENABLED=1 (make build)", ErrUnavailable)
	}
	return nil, fmt.Errorf("%w: Hark has no global hotkey on %s; speak through the tray's Type a request… or `hark send` instead", ErrUnavailable, runtime.GOOS)
}

// EscapeKey is never returned on this build.
type EscapeKey struct{ out chan Event }

// NewEscapeKey fails with ErrUnavailable, as Register does.
func NewEscapeKey(onErr func(error)) (*EscapeKey, error) {
	_, err := Register(escapeCombo, Options{})
	return nil, err
}

// Events returns a channel that never delivers.
func (e *EscapeKey) Events() <-chan Event { return e.out }

// SetGrabbed does nothing.
func (e *EscapeKey) SetGrabbed(on bool) {}

// Close does nothing.
func (e *EscapeKey) Close() error { return nil }

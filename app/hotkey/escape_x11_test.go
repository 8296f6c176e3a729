//go:build linux

package hotkey

import (
	"errors"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestEscapeGrabbedOnlyOnRequest checks the promise behind Escape to
// cancel: while SetGrabbed(false) holds, Escape belongs to everyone else
// (another client can grab it and Hark hears nothing); while
// SetGrabbed(true) holds, Hark alone hears it.
func TestEscapeGrabbedOnlyOnRequest(t *testing.T) {
	harness.Need(t, "Xvfb", "xdotool", "xmessage")
	display := harness.Xvfb(t)
	harness.FocusedWindow(t, display)

	grabErrs := make(chan error, 8)
	e, err := NewEscapeKeyDisplay(display, func(err error) { grabErrs <- err })
	if err != nil {
		t.Fatalf("NewEscapeKeyDisplay: %v", err)
	}
	defer e.Close()

	// free reports whether another client can take plain Escape now.
	free := func() bool {
		other, err := open(display, escapeCombo, Options{}, true)
		if err == nil {
			other.Close()
			return true
		}
		if !errors.Is(err, ErrTaken) {
			t.Fatalf("probing Escape: %v", err)
		}
		return false
	}

	if !free() {
		t.Fatal("Escape is grabbed before SetGrabbed(true)")
	}
	harness.Xdotool(t, display, "key", "Escape")
	quietEscape(t, e, 200*time.Millisecond)

	e.SetGrabbed(true)
	harness.Eventually(t, 10*time.Second, "Escape grabbed", func() error {
		if free() {
			return errors.New("another client can still grab Escape")
		}
		return nil
	})
	harness.Xdotool(t, display, "key", "Escape")
	select {
	case ev := <-e.Events():
		if ev.Kind != Down {
			t.Fatalf("first event = %v, want down", ev.Kind)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event for Escape while grabbed")
	}

	// A quick on-off-on-off ends released.
	e.SetGrabbed(false)
	e.SetGrabbed(true)
	e.SetGrabbed(false)
	harness.Eventually(t, 10*time.Second, "Escape released", func() error {
		if !free() {
			return errors.New("Escape still grabbed")
		}
		return nil
	})
	drain(e)
	harness.Xdotool(t, display, "key", "Escape")
	quietEscape(t, e, 200*time.Millisecond)
	select {
	case err := <-grabErrs:
		t.Errorf("grab failed: %v", err)
	default:
	}
}

func quietEscape(t *testing.T, e *EscapeKey, d time.Duration) {
	t.Helper()
	select {
	case ev := <-e.Events():
		t.Fatalf("Escape reported (%v) while not grabbed", ev.Kind)
	case <-time.After(d):
	}
}

// drain takes the Up of the press heard while grabbed.
func drain(e *EscapeKey) {
	for {
		select {
		case <-e.Events():
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

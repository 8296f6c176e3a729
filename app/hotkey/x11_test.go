//go:build linux

package hotkey

import (
	"errors"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

func next(t *testing.T, l *Listener, want Kind) Event {
	t.Helper()
	select {
	case e, ok := <-l.Events():
		if !ok {
			t.Fatalf("event channel closed, want %v", want)
		}
		if e.Kind != want {
			t.Fatalf("got %v, want %v", e.Kind, want)
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatalf("no %v event within 10s", want)
	}
	return Event{}
}

func quiet(t *testing.T, l *Listener, d time.Duration) {
	t.Helper()
	select {
	case e := <-l.Events():
		t.Fatalf("unexpected event %v", e.Kind)
	case <-time.After(d):
	}
}

func TestX11Grab(t *testing.T) {
	harness.Need(t, "Xvfb", "xdotool", "xmessage")
	display := harness.Xvfb(t)
	harness.FocusedWindow(t, display)
	combo, _ := Parse("ctrl+alt+space")

	l, err := RegisterDisplay(display, combo, Options{})
	if err != nil {
		t.Fatalf("RegisterDisplay: %v", err)
	}
	defer l.Close()
	if !l.DetectableAutoRepeat() {
		t.Error("XKB detectable auto-repeat was not enabled on Xvfb, which has XKB")
	}

	t.Run("press and release", func(t *testing.T) {
		harness.Xdotool(t, display, "keydown", "ctrl+alt+space")
		next(t, l, Down)
		quiet(t, l, 150*time.Millisecond) // holding: no spurious release
		before := time.Now()
		harness.Xdotool(t, display, "keyup", "ctrl+alt+space")
		up := next(t, l, Up)
		if up.At.Before(before) {
			t.Errorf("Up.At %v is before the key was released (%v)", up.At, before)
		}
	})

	t.Run("works with NumLock and CapsLock on", func(t *testing.T) {
		harness.Xdotool(t, display, "key", "Num_Lock")
		harness.Xdotool(t, display, "key", "Caps_Lock")
		defer harness.Xdotool(t, display, "key", "Num_Lock")
		defer harness.Xdotool(t, display, "key", "Caps_Lock")
		harness.Xdotool(t, display, "keydown", "ctrl+alt+space")
		next(t, l, Down)
		harness.Xdotool(t, display, "keyup", "ctrl+alt+space")
		next(t, l, Up)
	})

	t.Run("other combinations are not reported", func(t *testing.T) {
		harness.Xdotool(t, display, "key", "ctrl+space")
		harness.Xdotool(t, display, "key", "alt+space")
		harness.Xdotool(t, display, "key", "space")
		quiet(t, l, 200*time.Millisecond)
	})

	t.Run("a taken combination is ErrTaken", func(t *testing.T) {
		second, err := RegisterDisplay(display, combo, Options{})
		if err == nil {
			second.Close()
			t.Fatal("a second grab of the same combination succeeded")
		}
		if !errors.Is(err, ErrTaken) {
			t.Fatalf("error = %v, want ErrTaken", err)
		}
	})

	t.Run("close releases the grab", func(t *testing.T) {
		other, _ := Parse("ctrl+alt+f9")
		a, err := RegisterDisplay(display, other, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		b, err := RegisterDisplay(display, other, Options{})
		if err != nil {
			t.Fatalf("grab after Close failed: %v", err)
		}
		b.Close()
		select {
		case _, ok := <-a.Events():
			if ok {
				t.Error("closed listener delivered an event")
			}
		case <-time.After(5 * time.Second):
			t.Error("closed listener's channel was not closed")
		}
	})
}

func TestX11Unavailable(t *testing.T) {
	t.Parallel()
	combo, _ := Parse("ctrl+alt+space")
	for name, display := range map[string]string{"no DISPLAY": "", "no server": ":31999"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := RegisterDisplay(display, combo, Options{})
			if err == nil {
				l.Close()
				t.Fatal("registration succeeded without an X server")
			}
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("error = %v, want ErrUnavailable", err)
			}
		})
	}
}

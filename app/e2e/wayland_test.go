//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// waylandDesktop is a session with no X server that says it is Wayland.
func waylandDesktop(t *testing.T) *desktop {
	d := newDesktop(t, false, true)
	d.env = append(d.env, "XDG_SESSION_TYPE=wayland", "WAYLAND_DISPLAY=wayland-hark-test")
	return d
}

func (h *hark) answered(t *testing.T, marker string) {
	t.Helper()
	harness.Eventually(t, 30*time.Second, "the answer notification", func() error {
		for _, n := range h.d.notes.All() {
			if strings.Contains(n.Body, marker) {
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", h.d.notes)
	})
}

func nowMillis() uint64 { return uint64(time.Now().UnixMilli()) }

// On Wayland the hotkey comes from the GlobalShortcuts portal: the
// desktop's trigger is what the menu names, a hold talks, a tap latches,
// the portal's cancel shortcut cancels, and `hark listen` drives the same
// app from a terminal.
func TestWaylandPortalHotkey(t *testing.T) {
	d := waylandDesktop(t)
	portal := harness.FakePortal(t, d.bus)
	portal.Assign("listen", "Ctrl+Alt+Space (desktop)")
	h := startHark(t, d)
	h.menu.WaitFor(t, 30*time.Second, "Ready — hold Ctrl+Alt+Space (desktop) and speak")
	if got := portal.Preferred("listen"); got != "CTRL+ALT+space" {
		t.Errorf("Hark asked for %q, want the hotkey setting as CTRL+ALT+space", got)
	}

	t.Run("hold to talk", func(t *testing.T) {
		h.t = t
		os.WriteFile(h.transcript, []byte("say hello"), 0o600)
		down := nowMillis()
		if err := portal.Activate("listen", down); err != nil {
			t.Fatal(err)
		}
		h.menu.WaitFor(t, 20*time.Second, "Listening… release")
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		time.Sleep(time.Second) // a hold, well past the 400 ms tap threshold
		if err := portal.Deactivate("listen", nowMillis()); err != nil {
			t.Fatal(err)
		}
		h.answered(t, "hello from the fake model")
		h.waitIdle()
	})

	t.Run("a tap latches, the next tap stops", func(t *testing.T) {
		h.t = t
		ts := nowMillis()
		portal.Activate("listen", ts)
		portal.Deactivate("listen", ts+60)
		h.menu.WaitFor(t, 20*time.Second, "Listening… press Ctrl+Alt+Space (desktop) again")
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		h.menu.WaitFor(t, 5*time.Second, "Listening…")
		before := len(d.notes.All())
		ts = nowMillis()
		portal.Activate("listen", ts)
		portal.Deactivate("listen", ts+60)
		harness.Eventually(t, 30*time.Second, "a second answer", func() error {
			if len(d.notes.All()) > before {
				return nil
			}
			return fmt.Errorf("no new notification")
		})
		h.waitIdle()
	})

	t.Run("the cancel shortcut cancels", func(t *testing.T) {
		h.t = t
		before := len(d.ollama.Requests())
		ts := nowMillis()
		portal.Activate("listen", ts)
		portal.Deactivate("listen", ts+60)
		h.menu.WaitFor(t, 20*time.Second, "Listening…")
		portal.Activate("cancel", nowMillis())
		h.menu.WaitFor(t, 20*time.Second, "Ready")
		if after := len(d.ollama.Requests()); after != before {
			t.Errorf("the model got %d requests after cancel", after-before)
		}
	})

	t.Run("hark listen start, stop and cancel", func(t *testing.T) {
		h.t = t
		if out, code := h.run("listen", "--cancel"); code != 1 || !strings.Contains(out, "nothing to cancel") {
			t.Errorf("listen --cancel while idle: exit %d, %q", code, out)
		}
		if out, code := h.run("listen", "--stop"); code != 1 || !strings.Contains(out, "not listening") {
			t.Errorf("listen --stop while idle: exit %d, %q", code, out)
		}
		if out, code := h.run("listen", "--start"); code != 0 {
			t.Fatalf("listen --start: exit %d, %q", code, out)
		}
		h.menu.WaitFor(t, 20*time.Second, "Listening…")
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		before := len(d.notes.All())
		if out, code := h.run("listen", "--stop"); code != 0 {
			t.Fatalf("listen --stop: exit %d, %q", code, out)
		}
		harness.Eventually(t, 30*time.Second, "the answer", func() error {
			if len(d.notes.All()) > before {
				return nil
			}
			return fmt.Errorf("no new notification")
		})
		h.waitIdle()
		if out, code := h.run("listen"); code != 0 {
			t.Fatalf("listen (a tap): exit %d, %q", code, out)
		}
		h.menu.WaitFor(t, 20*time.Second, "Listening…")
		if out, code := h.run("listen", "--cancel"); code != 0 {
			t.Fatalf("listen --cancel: exit %d, %q", code, out)
		}
		h.waitIdle()
	})
	h.quit()
	harness.Eventually(t, 10*time.Second, "the portal session closed", func() error {
		if n := portal.Open(); n != 0 {
			return fmt.Errorf("%d sessions open", n)
		}
		return nil
	})
}

// When the user declines the desktop's dialog, or the portal has no
// GlobalShortcuts, the menu says so and what to do; `hark listen` works.
func TestWaylandWithoutPortalHotkey(t *testing.T) {
	t.Run("declined", func(t *testing.T) {
		d := waylandDesktop(t)
		portal := harness.FakePortal(t, d.bus)
		portal.Decline()
		h := startHark(t, d)
		h.menu.WaitFor(t, 30*time.Second, "⚠ No hotkey: the desktop's shortcut dialog was declined")
		if out, code := h.run("listen", "--start"); code != 0 {
			t.Fatalf("listen --start without the portal's key: exit %d, %q", code, out)
		}
		h.menu.WaitFor(t, 20*time.Second, "Listening…")
		h.run("listen", "--cancel")
		h.quit()
	})
	t.Run("no portal", func(t *testing.T) {
		d := waylandDesktop(t)
		h := startHark(t, d)
		h.menu.WaitFor(t, 30*time.Second, "⚠ No hotkey on this Wayland desktop")
		out, _ := h.run("doctor")
		for _, want := range []string{"hark listen", "gsettings set", "bindsym"} {
			if !strings.Contains(out, want) {
				t.Errorf("hark doctor lacks %q:\n%s", want, out)
			}
		}
		h.quit()
	})
}

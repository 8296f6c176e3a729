//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// The real portal stack Debian 12 ships (xdg-desktop-portal 1.16, KDE's
// backend 5.27, kglobalaccel5 grabbing on Xvfb) lends Hark its key on a
// Wayland session: the menu names the trigger KDE assigned, a real hold
// talks, a real tap latches, and a second launch gets the key again.
// Hark itself has no X display here: every key reaches it through the
// portal.
func TestWaylandKDEPortal(t *testing.T) {
	d := waylandDesktop(t)
	display := harness.KDEPortal(t, d.bus)
	h := startHark(t, d)
	h.menu.WaitFor(t, 60*time.Second, "Ready — hold Ctrl+Alt+Space and speak")

	t.Run("hold to talk", func(t *testing.T) {
		h.t = t
		os.WriteFile(h.transcript, []byte("say hello"), 0o600)
		harness.Xdotool(t, display, "keydown", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening… release")
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		time.Sleep(time.Second) // a hold, well past the 400 ms tap threshold
		harness.Xdotool(t, display, "keyup", "ctrl+alt+space")
		h.answered(t, "hello from the fake model")
		h.waitIdle()
	})

	t.Run("a tap latches, the next tap stops", func(t *testing.T) {
		h.t = t
		harness.Xdotool(t, display, "key", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening… press Ctrl+Alt+Space again")
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		before := len(d.notes.All())
		harness.Xdotool(t, display, "key", "ctrl+alt+space")
		harness.Eventually(t, 30*time.Second, "a second answer", func() error {
			if len(d.notes.All()) > before {
				return nil
			}
			return fmt.Errorf("no new notification")
		})
		h.waitIdle()
	})
	h.quit()

	// KDE keeps the key with the session's token: the next launch must
	// find it its own, not "already taken" by the last one.
	t.Run("the next launch gets the key again", func(t *testing.T) {
		h := startHark(t, d)
		h.menu.WaitFor(t, 60*time.Second, "Ready — hold Ctrl+Alt+Space and speak")
		harness.Xdotool(t, display, "key", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening… press Ctrl+Alt+Space again")
		if out, code := h.run("listen", "--cancel"); code != 0 {
			t.Fatalf("listen --cancel: exit %d, %q", code, out)
		}
		h.waitIdle()
		h.quit()
	})
}

//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestTrayScreenshot makes the README's screenshot: a pending approval in
// the tray menu of a real xfce4-panel, beside its notification. It needs
// the desktop that screenshot.sh starts, so it runs only when that script
// sets HARK_SCREENSHOT (the PNG to write).
func TestTrayScreenshot(t *testing.T) {
	out := os.Getenv("HARK_SCREENSHOT")
	if out == "" {
		t.Skip("HARK_SCREENSHOT is not set: run app/e2e/screenshot.sh to make the README screenshot")
	}
	width, _ := strconv.Atoi(os.Getenv("HARK_SCREEN_WIDTH"))
	d := &desktop{work: t.TempDir(), bus: os.Getenv("DBUS_SESSION_BUS_ADDRESS"), display: os.Getenv("DISPLAY"), pulse: &harness.Pulse{}}
	d.ollama = fakeModel(t, []rule{{when: "old builds", command: "rm -r ~/Downloads/old_builds ~/Downloads/my_notes_2024.txt", answer: "Deleted them."}})
	h := startHark(t, d)
	h.waitIdle()
	h.send(false, "delete my old builds")
	h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
	time.Sleep(2 * time.Second) // the notification slides in
	// The status tray sits at the right end of the top panel.
	harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12", "click", "1")
	time.Sleep(1500 * time.Millisecond)
	if b, err := exec.Command("import", "-display", d.display, "-window", "root", out).CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, b)
	}
	harness.Xdotool(t, d.display, "key", "Escape")
	h.quit()
}

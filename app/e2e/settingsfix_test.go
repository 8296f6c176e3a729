//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestSettingsFixClearsAtTheFileEvent: a bad value in settings.json shows
// as a menu row and a notification; saving the fix (in place, as many
// editors do) clears the row and withdraws the notification, and the log
// shows that the file event saw the save: the periodic look is set an
// hour away, so only the event can have cleared it.
func TestSettingsFixClearsAtTheFileEvent(t *testing.T) {
	d := newDesktop(t, true, true)
	d.env = append(d.env, "HARK_E2E_WATCH_EVERY=1h")
	h := launchHarkWith(t, d, `{"confirmTimeout": "2 minutes", "ollamaModel": "`+model+`"}`)
	h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
	h.menu.WaitFor(t, 30*time.Second, "⚠ Settings file has errors")
	var bad harness.Notification
	harness.Eventually(t, 20*time.Second, "the settings error's notification", func() error {
		for _, n := range d.notes.All() {
			if n.Summary == "Settings problem" && !n.Closed {
				bad = n
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	path := filepath.Join(h.home, "settings.json")
	if err := os.WriteFile(path, []byte(`{"confirmTimeout": "2m", "ollamaModel": "`+model+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.menu.WaitGone(t, 30*time.Second, "⚠ Settings file has errors")
	harness.Eventually(t, 20*time.Second, "the settings error's notification withdrawn", func() error {
		for _, n := range d.notes.All() {
			if n.ID == bad.ID && n.Closed {
				return nil
			}
		}
		return fmt.Errorf("notification %d still open:\n%s", bad.ID, d.notes)
	})
	b, err := os.ReadFile(filepath.Join(h.home, "logs", "hark.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `msg="shared file changed" settings=true trash=false seen="file event"`) {
		t.Errorf("the log does not show a file event seeing the save:\n%s", tail(string(b), 3000))
	}
	h.quit()
}

//go:build linux

package tray

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestHostProblem checks the status line about the tray host on a private
// session bus: missing until a StatusNotifierWatcher owns its name. It sets
// the bus address for the whole process (godbus caches the session bus), so
// it is the only test here that touches the session bus.
func TestHostProblem(t *testing.T) {
	addr := harness.SessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	if err := Check(); err != nil {
		t.Fatalf("Check() = %v with a session bus", err)
	}
	if p := HostProblem(); !strings.Contains(p, "no system tray host") || !strings.Contains(p, "AppIndicator") {
		t.Errorf("HostProblem() = %q without a watcher, want advice naming the AppIndicator extension", p)
	}
	harness.FakeWatcher(t, addr)
	if p := HostProblem(); p != "" {
		t.Errorf("HostProblem() = %q with a watcher, want none", p)
	}
}

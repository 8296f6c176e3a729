//go:build linux

package tray

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/doctor"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestProbeHost checks the tray host probe on a private session bus:
// a problem naming the fix until a StatusNotifierWatcher owns its name. It
// sets the bus address for the whole process (godbus caches the session
// bus), so it is the only test here that touches the session bus.
func TestProbeHost(t *testing.T) {
	addr := harness.SessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	if err := Check(); err != nil {
		t.Fatalf("Check() = %v with a session bus", err)
	}
	ctx := context.Background()
	_, err := ProbeHost(ctx)
	var p *doctor.Problem
	if !errors.As(err, &p) || !strings.Contains(p.Detail, "no tray host") || !strings.Contains(p.Fix(), "AppIndicator") || p.Limited() {
		t.Errorf("ProbeHost() = %v without a watcher, want a required problem naming the AppIndicator extension", err)
	}
	harness.FakeWatcher(t, addr)
	if d, err := ProbeHost(ctx); err != nil || d != "StatusNotifierWatcher present" {
		t.Errorf("ProbeHost() = %q, %v with a watcher", d, err)
	}
}

// Without a bus at all the probe says to run inside a desktop session.
func TestProbeHostWithoutBus(t *testing.T) {
	t.Parallel()
	_, err := probeHost(context.Background(), func(context.Context) (bool, error) { return false, errors.New("no D-Bus session") })
	var p *doctor.Problem
	if !errors.As(err, &p) || !strings.Contains(p.Detail, "no D-Bus session") || !strings.Contains(p.Fix(), "desktop session") {
		t.Errorf("got %v", err)
	}
}

package desktop

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/doctor"
	"github.com/hark-sh/hark/app/e2e/harness"
)

func wantProblem(t *testing.T, err error, detail, fix string, limited bool) {
	t.Helper()
	var p *doctor.Problem
	if !errors.As(err, &p) || !strings.Contains(p.Detail, detail) || !strings.Contains(p.Fix(), fix) || p.Limited() != limited {
		t.Errorf("got %v; want %q with fix %q (limited %v)", err, detail, fix, limited)
	}
}

func TestProbeNotificationCaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	caps := func(c ...string) func(context.Context) ([]string, error) {
		return func(context.Context) ([]string, error) { return c, nil }
	}
	if d, err := probeNotificationCaps(ctx, caps("body", "actions")); err != nil || !strings.Contains(d, "approve/deny") {
		t.Errorf("with actions: %q, %v", d, err)
	}
	_, err := probeNotificationCaps(ctx, caps("body"))
	wantProblem(t, err, `no "actions"`, "tray menu", true)
	_, err = probeNotificationCaps(ctx, func(context.Context) ([]string, error) {
		return nil, errors.New("org.freedesktop.Notifications was not provided by any .service files")
	})
	wantProblem(t, err, "no notification server", "tray menu", true)

	if d, err := probeMacNotifications(func() (string, bool) { return "/Applications/Hark.app", true }); err != nil || !strings.Contains(d, "/Applications/Hark.app") {
		t.Errorf("mac bundled: %q, %v", d, err)
	}
	_, err = probeMacNotifications(func() (string, bool) { return "", false })
	wantProblem(t, err, "not running from Hark.app", "make app", true)
}

// The capabilities come from the real protocol: a private bus with a fake
// notification server on it, and one without.
func TestNotificationCapsOverDBus(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	empty := harness.SessionBus(t)
	if _, err := notificationCaps(empty)(ctx); err == nil {
		t.Error("capabilities from an empty bus: want an error")
	}
	addr := harness.SessionBus(t)
	harness.FakeNotifications(t, addr, "body", "actions")
	if d, err := probeNotificationCaps(ctx, notificationCaps(addr)); err != nil || !strings.Contains(d, "approve/deny") {
		t.Errorf("over D-Bus: %q, %v", d, err)
	}
	if _, err := notificationCaps("unix:path=" + filepath.Join(t.TempDir(), "no-bus"))(ctx); err == nil {
		t.Error("want an error for a bus that is not there")
	}
}

func TestSessionBusAddress(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if a, err := SessionBusAddress(env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"})); err != nil || a != "unix:path=/x" {
		t.Errorf("from env: %q %v", a, err)
	}
	if _, err := SessionBusAddress(env(map[string]string{"XDG_RUNTIME_DIR": t.TempDir()})); err == nil {
		t.Error("a runtime dir without a bus socket must not count as a session")
	}
	if _, err := SessionBusAddress(env(nil)); err == nil || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Errorf("no session: %v", err)
	}
}

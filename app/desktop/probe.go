package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/hark-sh/hark/app/doctor"
)

// SessionBusAddress is the session bus a probe talks to: the environment's,
// else the systemd user bus socket. It never starts a bus (godbus would
// autolaunch one), since a bus with no desktop on it would make every
// desktop probe pass or fail for the wrong reason.
func SessionBusAddress(getenv func(string) string) (string, error) {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" {
		p := filepath.Join(rt, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", errors.New("no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)")
}

// WithSessionBus connects privately to the session bus (SessionBusAddress),
// runs f and disconnects.
func WithSessionBus(ctx context.Context, f func(*dbus.Conn) error) error {
	addr, err := SessionBusAddress(os.Getenv)
	if err != nil {
		return err
	}
	return withBus(ctx, addr, f)
}

func withBus(ctx context.Context, addr string, f func(*dbus.Conn) error) error {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("cannot connect to the session bus: %w", err)
	}
	defer conn.Close()
	return f(conn)
}

// ProbeNotifications is the notifications' line in `hark doctor`: whether
// approvals can be answered from a notification. On Linux the server on
// the session bus must list the "actions" capability; on macOS Hark must
// run from its bundle. Without either Hark works (approvals come from the
// menu), so every problem is Limited.
func ProbeNotifications(ctx context.Context) (string, error) {
	if runtime.GOOS == "darwin" {
		return probeMacNotifications(BundlePath)
	}
	addr, err := SessionBusAddress(os.Getenv)
	if err != nil {
		return probeNotificationCaps(ctx, func(context.Context) ([]string, error) { return nil, err })
	}
	return probeNotificationCaps(ctx, notificationCaps(addr))
}

// notificationCaps asks the notification server on the bus at addr for
// its capabilities.
func notificationCaps(addr string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		var caps []string
		err := withBus(ctx, addr, func(conn *dbus.Conn) error {
			obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
			return obj.CallWithContext(ctx, "org.freedesktop.Notifications.GetCapabilities", 0).Store(&caps)
		})
		return caps, err
	}
}

func probeNotificationCaps(ctx context.Context, caps func(ctx context.Context) ([]string, error)) (string, error) {
	list, err := caps(ctx)
	if err != nil {
		return "", &doctor.Problem{Detail: "no notification server: " + err.Error(), Minor: true,
			Next: "approve commands from the tray menu, or run a notification daemon (your desktop's own, or dunst/mako)"}
	}
	if !slices.Contains(list, "actions") {
		return "", &doctor.Problem{Detail: "the notification server shows no buttons (no \"actions\" capability)", Minor: true,
			Next: "approve commands from the tray menu, or use a server with actions (GNOME, KDE, dunst, mako)"}
	}
	return "approve/deny buttons available", nil
}

func probeMacNotifications(bundlePath func() (string, bool)) (string, error) {
	if p, ok := bundlePath(); ok {
		return "Approve/Deny notifications from " + p, nil
	}
	return "", &doctor.Problem{Detail: "Hark is not running from Hark.app, so approvals fall back to a dialog", Minor: true,
		Next: "`make app` then open Hark.app (or `make install`), and allow its notifications"}
}

// BundlePath finds the Hark.app that notifications come from: the one
// this binary runs in, else an installed one.
func BundlePath() (string, bool) {
	if exe, err := os.Executable(); err == nil {
		if i := strings.Index(exe, ".app/Contents/MacOS/"); i >= 0 {
			return exe[:i+len(".app")], true
		}
	}
	for _, p := range []string{"/Applications/Hark.app", filepath.Join(os.Getenv("HOME"), "Applications", "Hark.app")} {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

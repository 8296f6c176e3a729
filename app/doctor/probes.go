package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// SessionBusAddress is the session bus doctor would talk to: the
// environment's, else the systemd user bus socket. It never starts a bus
// (godbus would autolaunch one), since a bus with no desktop on it would make
// every desktop check pass or fail for the wrong reason.
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

// withBus connects privately to the bus at addr, runs f and disconnects.
func withBus(ctx context.Context, addr string, f func(*dbus.Conn) error) error {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("cannot connect to the session bus: %w", err)
	}
	defer conn.Close()
	return f(conn)
}

// NotificationCaps asks the notification server on the bus at addr for its
// capabilities.
func NotificationCaps(addr string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		var caps []string
		err := withBus(ctx, addr, func(conn *dbus.Conn) error {
			obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
			return obj.CallWithContext(ctx, "org.freedesktop.Notifications.GetCapabilities", 0).Store(&caps)
		})
		return caps, err
	}
}

// StatusNotifierWatcher reports whether the bus at addr has a tray host.
func StatusNotifierWatcher(addr string) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		var has bool
		err := withBus(ctx, addr, func(conn *dbus.Conn) error {
			return conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
		})
		return has, err
	}
}

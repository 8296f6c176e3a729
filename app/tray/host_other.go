//go:build !darwin

package tray

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/doctor"
)

// Check reports whether a tray can be shown at all. On Linux the tray is a
// StatusNotifierItem on the D-Bus session bus, so without a bus there is
// none; Hark then runs without a menu (hotkey, notifications, `hark send`).
func Check() error {
	// systray uses this same shared connection, so success here means its
	// connection will work too.
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("%w: no D-Bus session bus (%v); start Hark inside a desktop session", ErrUnavailable, err)
	}
	return nil
}

// ProbeHost is the tray's line in `hark doctor` and the app's "tray"
// re-check: something on the session bus shows tray icons (a
// StatusNotifierWatcher). Without one the menu is exported but invisible.
func ProbeHost(ctx context.Context) (string, error) {
	return probeHost(ctx, func(ctx context.Context) (bool, error) {
		var has bool
		err := desktop.WithSessionBus(ctx, func(conn *dbus.Conn) error {
			return conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
		})
		return has, err
	})
}

func probeHost(ctx context.Context, present func(ctx context.Context) (bool, error)) (string, error) {
	ok, err := present(ctx)
	if err != nil {
		return "", &doctor.Problem{Detail: "cannot ask the session bus: " + err.Error(),
			Next: "run Hark inside a desktop session (DBUS_SESSION_BUS_ADDRESS must be set)"}
	}
	if !ok {
		return "", &doctor.Problem{Detail: "no tray host (org.kde.StatusNotifierWatcher) on the session bus, so the Hark icon is not shown",
			Next: "on GNOME install and enable the AppIndicator extension (sudo apt-get install gnome-shell-extension-appindicator, then log out and in); KDE, Xfce and Cinnamon have one built in. The hotkey and `hark send` work meanwhile"}
	}
	return "StatusNotifierWatcher present", nil
}

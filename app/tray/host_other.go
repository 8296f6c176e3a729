//go:build !darwin

package tray

import (
	"fmt"

	"github.com/godbus/dbus/v5"
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

// HostProblem says why the tray icon may not be visible although the menu
// is exported: no StatusNotifierWatcher owns its name on the bus. Empty
// when a host is present.
func HostProblem() string {
	conn, err := dbus.SessionBus()
	if err != nil {
		return "no D-Bus session bus, so no tray icon"
	}
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	if err != nil || !has {
		return "no system tray host on this desktop, so the Hark icon is not shown (on GNOME install the AppIndicator and KStatusNotifierItem Support extension); the hotkey and `hark send` still work"
	}
	return ""
}

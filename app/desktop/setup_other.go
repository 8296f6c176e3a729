//go:build !darwin

package desktop

import "log/slog"

// Options configure Setup.
type Options struct {
	Logger *slog.Logger
}

// Setup connects to the desktop's notification server. Without a session
// bus, notifications are off and approvals come from the tray menu only;
// with a bus but no server (or one without buttons) the D-Bus adapter is
// still used, since a server may be started on demand, and Problem says
// what to expect.
func Setup(o Options) Result {
	d, err := NewDBus(DBusOptions{Logger: o.Logger})
	if err != nil {
		return Result{Problem: err.Error() + " — notifications are off; approve commands from the tray menu", Close: func() {}}
	}
	return Result{Notifier: d, Approver: d, Problem: d.Status(), Close: func() { d.Close() }}
}

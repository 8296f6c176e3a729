package main

import (
	"context"
	"strings"

	"github.com/hark-sh/hark/app/bundle"
)

func init() {
	register(&command{
		name:    "login-item",
		usage:   "on | off | status",
		summary: "Start Hark when you log in (a LaunchAgent on macOS, an autostart entry on Linux), or stop that.",
		about:   "on starts this hark binary (or the Hark.app it is in) at every login; off removes that; status says which.",
		run:     runLoginItem,
	})
}

func runLoginItem(_ context.Context, e *env, args []string) int {
	usage := func() { writeUsage(e.stderr, "login-item", nil) }
	if len(args) != 1 {
		usage()
		return exitUsage
	}
	l, err := bundle.DefaultLoginItem()
	if err != nil {
		showln(e.stderr, "hark login-item:", err)
		return exitError
	}
	switch args[0] {
	case "on":
		if err := l.Enable(); err != nil {
			showln(e.stderr, "hark login-item:", err)
			return exitError
		}
		st, err := l.Status()
		if err != nil {
			showln(e.stderr, "hark login-item:", err)
			return exitError
		}
		showf(e.stdout, "Hark will start at login: %s\n(written to %s)\n", strings.Join(st.Command, " "), st.Path)
	case "off":
		if err := l.Disable(); err != nil {
			showln(e.stderr, "hark login-item:", err)
			return exitError
		}
		showf(e.stdout, "Hark will not start at login (removed %s).\n", l.Path())
	case "status":
		st, err := l.Status()
		if err != nil {
			showln(e.stderr, "hark login-item:", err)
			return exitError
		}
		switch {
		case st.Enabled:
			showf(e.stdout, "on: %s (%s)\n", strings.Join(st.Command, " "), st.Path)
		case st.Note != "":
			showf(e.stdout, "off: %s (%s)\n", st.Note, st.Path)
		default:
			showf(e.stdout, "off (no %s)\n", st.Path)
		}
		if st.Enabled && st.Note != "" {
			showln(e.stdout, "note:", st.Note)
		}
	case "-h", "-help", "--help", "help":
		usage()
		return exitOK
	default:
		showf(e.stderr, "hark login-item: unknown action %q\n", args[0])
		usage()
		return exitUsage
	}
	return exitOK
}

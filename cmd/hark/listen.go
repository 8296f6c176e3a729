package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
)

func init() {
	register(&command{
		name:    "listen",
		usage:   "[--start | --stop | --cancel]",
		summary: "Press the running app's hotkey from a terminal or a keyboard shortcut the desktop binds.",
		about: `Acts like the running Hark's hotkey. Plain  hark listen  is a tap: it starts
listening, or, when Hark is listening, stops and sends what you said. Bind it to
a key in your desktop's keyboard settings where Hark cannot grab the hotkey
itself (see docs/tray.md). Exits 0 once Hark took it, 1 with the reason if not.`,
		run: runListen,
	})
}

// runListen is the hotkey for desktops where Hark cannot grab one itself
// (Wayland without the GlobalShortcuts portal): the user binds
// `hark listen` to a key in the desktop's keyboard settings. It talks to
// the running app over the control socket and never starts one.
func runListen(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	start := fs.Bool("start", false, "start listening (nothing happens when Hark already listens)")
	stop := fs.Bool("stop", false, "stop listening and send what was said")
	cancel := fs.Bool("cancel", false, "cancel what Hark is doing, as Cancel in the menu does")
	fs.Usage = func() { writeUsage(e.stderr, "listen", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "hark listen: unexpected %q; it takes only --start, --stop or --cancel\n", fs.Arg(0))
		return exitUsage
	}
	action := app.ListenTap
	n := 0
	for _, f := range []struct {
		on bool
		a  app.ListenAction
	}{{*start, app.ListenStart}, {*stop, app.ListenStop}, {*cancel, app.ListenCancel}} {
		if f.on {
			action = f.a
			n++
		}
	}
	if n > 1 {
		fmt.Fprintln(e.stderr, "hark listen: give one of --start, --stop and --cancel")
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark listen:", err)
		return exitError
	}
	reply, err := control.PressHotkey(ctx, paths.Runtime, action)
	if err != nil {
		fmt.Fprintln(e.stderr, "hark listen:", err)
		return exitError
	}
	if !reply.OK {
		fmt.Fprintln(e.stderr, "hark listen:", reply.Error)
		return exitError
	}
	return exitOK
}

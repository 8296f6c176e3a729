package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
)

func init() {
	register(&command{
		name:    "quit",
		usage:   "",
		summary: "Quit the running app (as its menu's Quit does) and wait until it has stopped.",
		run:     runQuit,
	})
}

// quitWait bounds how long `hark quit` waits for the app to let go of its
// socket: the app itself waits at most exitGrace for its core.
const quitWait = 10 * time.Second

// runQuit is what `make run` and `make install` call before starting a
// fresh Hark.app, since open only brings a running copy to the front.
// Nothing running is success: the wish (no Hark running) holds.
func runQuit(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("quit", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: hark quit\n\nAsks the running Hark to quit and waits until it has. Exits 0 when none runs.")
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "hark quit: unexpected %q; it takes no arguments\n", fs.Arg(0))
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark quit:", err)
		return exitError
	}
	ctx, cancel := context.WithTimeout(ctx, quitWait)
	defer cancel()
	switch err := control.Quit(ctx, paths.Runtime); {
	case errors.Is(err, control.ErrNotRunning):
		return exitOK
	case err != nil:
		fmt.Fprintln(e.stderr, "hark quit:", err)
		return exitError
	}
	fmt.Fprintln(e.stderr, "hark quit: the running Hark has quit")
	return exitOK
}

package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
)

func init() {
	register(&command{
		name:    "send",
		usage:   `[--wait] "request"`,
		summary: "Hand a request to the running menu-bar app as if it had been spoken.",
		run:     runSend,
	})
}

// runSend talks to the app over its control socket; launchers (Raycast,
// Alfred, Shortcuts) and the end-to-end tests use it.
func runSend(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	wait := fs.Bool("wait", false, "wait until the request has finished and print the answer")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, `Usage: hark send [--wait] "request"`)
		fmt.Fprintln(e.stderr, "\nHands the request to the running Hark app, as if you had said it. Commands that")
		fmt.Fprintln(e.stderr, "change anything still wait for your approval in the menu or a notification.")
		fmt.Fprintln(e.stderr, "Without --wait it returns once Hark has accepted the request.")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		fmt.Fprintln(e.stderr, `hark send: say what to do, e.g. hark send --wait "how big is my Downloads folder?"`)
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark send:", err)
		return exitError
	}
	reply, err := control.Send(ctx, paths.Runtime, text, *wait)
	if err != nil {
		fmt.Fprintln(e.stderr, "hark send:", err)
		return exitError
	}
	if !reply.OK {
		fmt.Fprintln(e.stderr, "hark send:", reply.Error)
		return exitError
	}
	if *wait {
		fmt.Fprintln(e.stdout, reply.Answer)
	} else {
		// Silence read as failure; say where the answer will appear.
		fmt.Fprintln(e.stderr, "hark send: delivered — Hark is working on it; the answer arrives as a notification (use --wait to print it here)")
	}
	return exitOK
}

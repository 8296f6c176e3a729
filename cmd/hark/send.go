package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell/visible"
)

func init() {
	register(&command{
		name:    "send",
		usage:   `[--wait] "request" | --prompt`,
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
	prompt := fs.Bool("prompt", false, "read the request as one line typed here (what the tray's Type a request… opens in a terminal)")
	denyWhy := fs.String("deny-why", "", "read a reason typed here and deny the waiting approval with this ID (what the tray's Deny and say why… opens in a terminal)")
	question := fs.String("question", "", "with --deny-why: the question to show")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, `Usage: hark send [--wait] "request" | hark send [--wait] --prompt`)
		fmt.Fprintln(e.stderr, "\nHands the request to the running Hark app, as if you had said it. Commands that")
		fmt.Fprintln(e.stderr, "change anything still wait for your approval in the menu or a notification.")
		fmt.Fprintln(e.stderr, "Without --wait it returns once Hark has accepted the request.")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if *denyWhy != "" {
		if text != "" || *prompt {
			fmt.Fprintln(e.stderr, `hark send: --deny-why reads the reason from the terminal; give no request with it`)
			return exitUsage
		}
		return sendReason(ctx, e, *denyWhy, *question)
	}
	if *prompt {
		if text != "" {
			fmt.Fprintln(e.stderr, `hark send: --prompt reads the request from the terminal; give it either as text or with --prompt, not both`)
			return exitUsage
		}
		return sendPrompted(ctx, e, *wait)
	}
	if text == "" {
		fmt.Fprintln(e.stderr, `hark send: say what to do, e.g. hark send --wait "how big is my Downloads folder?"`)
		return exitUsage
	}
	return deliver(ctx, e, text, *wait)
}

// deliver hands text to the running app and reports the outcome.
func deliver(ctx context.Context, e *env, text string, wait bool) int {
	paths, err := settings.DefaultPaths()
	if err != nil {
		showln(e.stderr, "hark send:", err)
		return exitError
	}
	reply, err := control.Send(ctx, paths.Runtime, text, wait)
	if err != nil {
		showln(e.stderr, "hark send:", err)
		return exitError
	}
	if !reply.OK {
		showln(e.stderr, "hark send:", reply.Error)
		return exitError
	}
	if wait {
		showText(e.stdout, reply.Answer+"\n")
	} else {
		// Silence read as failure; say where the answer will appear.
		fmt.Fprintln(e.stderr, "hark send: delivered — Hark is working on it; the answer arrives as a notification (use --wait to print it here)")
	}
	return exitOK
}

// sendPrompted reads one line from the terminal and delivers it. It runs
// in a window the tray opened, which closes when it exits, so whatever
// the user must read (an error, or the answer with --wait) stays on screen
// until Enter.
func sendPrompted(ctx context.Context, e *env, wait bool) int {
	in := bufio.NewReader(e.stdin)
	fmt.Fprint(e.stderr, "What should Hark do? (Enter sends it; an empty line or Ctrl-D cancels)\n> ")
	line, err := in.ReadString('\n')
	text := strings.TrimSpace(line)
	if text == "" {
		if err != nil {
			fmt.Fprintln(e.stderr) // Ctrl-D leaves the cursor after the prompt
		}
		fmt.Fprintln(e.stderr, "hark send: nothing sent")
		return exitOK
	}
	code := deliver(ctx, e, text, wait)
	if (code != exitOK || wait) && e.isTerminal {
		fmt.Fprint(e.stderr, "\nPress Enter to close this window. ")
		_, _ = in.ReadString('\n')
	}
	return code
}

// sendReason reads the reason for denying the approval id and hands it to
// the running app as that approval's denial. Like sendPrompted it runs in
// a window the tray opened; an empty line leaves the approval waiting, as
// Cancel does in a dialog.
func sendReason(ctx context.Context, e *env, id, question string) int {
	in := bufio.NewReader(e.stdin)
	if question = strings.TrimSpace(question); question == "" {
		question = "Why not run it?"
	}
	fmt.Fprintf(e.stderr, "%s\n(Enter denies it with this reason; an empty line or Ctrl-D keeps it waiting in the Hark menu)\n> ", visible.Line(question))
	line, err := in.ReadString('\n')
	reason := strings.TrimSpace(line)
	if reason == "" {
		if err != nil {
			fmt.Fprintln(e.stderr)
		}
		fmt.Fprintln(e.stderr, "hark send: nothing denied — the approval is still waiting in the Hark menu")
		return exitOK
	}
	code := exitOK
	paths, perr := settings.DefaultPaths()
	if perr != nil {
		showln(e.stderr, "hark send:", perr)
		code = exitError
	} else if reply, err := control.Deny(ctx, paths.Runtime, id, reason); err != nil {
		showln(e.stderr, "hark send:", err)
		code = exitError
	} else if !reply.OK {
		showln(e.stderr, "hark send:", reply.Error)
		code = exitError
	}
	if code != exitOK && e.isTerminal {
		fmt.Fprint(e.stderr, "\nPress Enter to close this window. ")
		_, _ = in.ReadString('\n')
	}
	return code
}

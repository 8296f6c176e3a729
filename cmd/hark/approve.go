package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
)

func init() {
	register(&command{
		name:    "approve",
		usage:   "[--delete]",
		summary: "Approve the running app's oldest waiting approval, from a key the desktop binds.",
		about: `Answers the oldest approval waiting in the running Hark's menu with yes, as its
Approve does. Where the approval offers Move to Trash, that is the answer (the safe
choice); --delete deletes for good instead. Bind it to a key in your desktop's
keyboard settings, as  hark listen  (see docs/approvals.md).

It refuses, and says why, what needs a click in the menu: another program's
command (the program could run hark approve itself), a run without limits, going
beyond what you approved, a whole home folder, hidden characters, a command whose
effect Hark cannot tell, and an approval that appeared less than two seconds ago.
Exits 0 once answered, 1 with the reason if not.`,
		run: func(ctx context.Context, e *env, args []string) int { return runAnswer(ctx, e, "approve", args) },
	})
	register(&command{
		name:    "deny",
		usage:   "[REASON]",
		summary: "Deny the running app's oldest waiting approval, telling the model why if you say.",
		about: `Answers the oldest approval waiting in the running Hark's menu with no, as its
Deny does; with a REASON, as its Deny and say why… does: the model (or the
program that asked) is told it word for word. Bind it to a key as  hark approve.
Exits 0 once answered, 1 with the reason if not.`,
		run: func(ctx context.Context, e *env, args []string) int { return runAnswer(ctx, e, "deny", args) },
	})
}

// runAnswer is `hark approve` and `hark deny`: they talk to the running
// app over the control socket and never start one.
func runAnswer(ctx context.Context, e *env, name string, args []string) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var del *bool
	if name == "approve" {
		del = fs.Bool("delete", false, "where Move to Trash is offered, delete for good instead")
	}
	fs.Usage = func() { writeUsage(e.stderr, name, fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if name == "approve" && fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "hark approve: unexpected %q; it takes only --delete (to deny with a reason: hark deny REASON)\n", fs.Arg(0))
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintf(e.stderr, "hark %s: %v\n", name, err)
		return exitError
	}
	var reply app.SendReply
	if name == "approve" {
		reply, err = control.Approve(ctx, paths.Runtime, *del)
	} else {
		reply, err = control.DenyOldest(ctx, paths.Runtime, strings.Join(fs.Args(), " "))
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "hark %s: %v\n", name, err)
		return exitError
	}
	if !reply.OK {
		fmt.Fprintf(e.stderr, "hark %s: %s\n", name, reply.Error)
		return exitError
	}
	if reply.Answer != "" {
		fmt.Fprintln(e.stdout, reply.Answer)
	}
	return exitOK
}

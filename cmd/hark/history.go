package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/hark-sh/hark/agent"
)

func init() {
	register(&command{
		name:    "history",
		usage:   "[list | show [--json] ID|latest | clear]",
		summary: "List past conversations, show one, or delete them all (the audit log is kept).",
		about: `list (the default) shows past conversations, newest first; show prints one (latest is the
newest; --json prints it as stored). clear DELETES EVERY CONVERSATION at once, with no
undo; the audit log is kept.`,
		run: runHistory,
	})
}

func runHistory(_ context.Context, e *env, args []string) int {
	paths, _, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark history:", err)
		return exitError
	}
	store := newStore(paths.History)
	store.Warn = func(msg string) { showln(e.stderr, "hark: warning:", msg) }
	sub := "list"
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list":
		return historyList(e, store)
	case "show":
		return historyShow(e, store, args)
	case "clear":
		n, err := store.Clear()
		if err != nil {
			showln(e.stderr, "hark history:", err)
			return exitError
		}
		showf(e.stdout, "Deleted %s from %s (the audit log is kept).\n", pluralWord(n, "conversation", "conversations"), paths.History)
		return exitOK
	case "-h", "-help", "--help", "help":
		writeUsage(e.stdout, "history", nil)
		return exitOK
	default:
		showf(e.stderr, "hark history: unknown action %q; use list, show ID or clear\n", sub)
		return exitUsage
	}
}

func historyList(e *env, store *agent.Store) int {
	list, err := store.List()
	if err != nil {
		showln(e.stderr, "hark history:", err)
		return exitError
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, `No conversations yet. Start one with: hark ask "…"`)
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tREQUESTS\tWHAT IT DID\tTITLE")
	for _, c := range list {
		// Named as on every other surface (agent.Summary.Name).
		title := c.Name()
		did := c.Total.Did()
		if did == "" {
			did = "-"
		}
		showf(tw, "%s\t%s\t%d\t%s\t%s\n", c.ID, c.Updated.Local().Format("2006-01-02 15:04"), c.Requests, did, title)
	}
	tw.Flush()
	return exitOK
}

func historyShow(e *env, store *agent.Store, args []string) int {
	fs := flag.NewFlagSet("history show", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	asJSON := fs.Bool("json", false, "print the stored JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "hark history show: give one conversation ID (see `hark history list`) or latest")
		return exitUsage
	}
	var c *agent.Conversation
	var err error
	if id := fs.Arg(0); id == "latest" {
		c, err = store.Latest()
	} else {
		c, err = store.Load(id)
	}
	if err != nil {
		if errors.Is(err, agent.ErrNoConversation) && fs.Arg(0) == "latest" {
			err = errors.New(`no conversations yet; start one with hark ask "…"`)
		}
		showln(e.stderr, "hark history:", err)
		return exitError
	}
	if *asJSON {
		b, _ := json.MarshalIndent(c, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", safeJSON(b))
		return exitOK
	}
	showText(e.stdout, agent.Transcript(c))
	return exitOK
}

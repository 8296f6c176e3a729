package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hark-sh/hark/shell/trash"
)

func init() {
	register(&command{
		name:    "undo",
		usage:   "[-n]",
		summary: "Put back what the last Move to Trash moved, unless something now exists in its place.",
		about: `Puts every item the last Move to Trash moved back where it was. If anything now
exists at one of those places, nothing is put back and Hark says what is in the way.`,
		run: runUndo,
	})
}

func runUndo(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("undo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	show := fs.Bool("n", false, "only show what would be put back")
	fs.Usage = func() { writeUsage(e.stderr, "undo", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "hark undo: takes no arguments; it always restores the last Move to Trash")
		return exitUsage
	}
	paths, _, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark undo:", err)
		return exitError
	}
	bin := newTrash(paths)
	if bin == nil {
		fmt.Fprintln(e.stderr, "hark undo: no home folder, so no Trash; set HOME")
		return exitError
	}
	if *show {
		rec, ok, err := bin.Last()
		switch {
		case err != nil:
			showln(e.stderr, "hark undo:", err)
			return exitError
		case !ok:
			showln(e.stdout, trash.ErrNothingToUndo)
			return exitOK
		}
		showf(e.stdout, "The last Move to Trash (%s, for `%s`) moved:\n", rec.Time.Format("2006-01-02 15:04"), rec.Command)
		listItems(e.stdout, rec.Items)
		return exitOK
	}
	rec, err := bin.UndoLast()
	if len(rec.Items) > 0 {
		fmt.Fprintf(e.stdout, "Put back %s:\n", pluralWord(len(rec.Items), "item", "items"))
		listItems(e.stdout, rec.Items)
	}
	switch {
	case errors.Is(err, trash.ErrNothingToUndo):
		showln(e.stdout, err)
		return exitOK
	case err != nil:
		showln(e.stderr, "hark undo:", err)
		return exitError
	}
	return exitOK
}

// listItems prints one trashed item a line: a name holding a newline or an
// escape sequence cannot pass for two items or rewrite the list.
func listItems(w io.Writer, items []trash.Item) {
	for _, it := range items {
		showf(w, "  %s\n", it.Original)
	}
}

package app

import (
	"errors"
	"strings"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell/trash"
)

// Trash is where Move to Trash put things; *trash.Bin satisfies it. The
// agent does the moving; the app only offers to put the last set back.
type Trash interface {
	Last() (trash.Record, bool, error)
	UndoLast() (trash.Record, error)
}

// UndoNotifier is a KeyedNotifier that can put an Undo button on what it
// posts; undo is called, on any goroutine, when the button is clicked.
// desktop.DBus is one where the server shows buttons.
type UndoNotifier interface {
	NotifyKeyUndo(key, title, body string, undo func()) error
}

// trashedKey keys the notification of a turn that moved things to the
// Trash: Undo withdraws it, since what it says is no longer so.
const trashedKey = "trashed"

// notifyEnding posts a turn's ending. One that moved things to the Trash
// goes under trashedKey, with an Undo button where the notifier has one:
// the one place the result is seen is where it can be undone.
func (a *App) notifyEnding(title, body string, tally agent.Tally) {
	if tally.Trashed == 0 && tally.TrashFailed == 0 {
		a.notify(title, body)
		return
	}
	u, ok := a.o.Notifier.(UndoNotifier)
	if !ok {
		a.notifyKey(trashedKey, title, body)
		return
	}
	a.keyedDo(func() {
		if err := u.NotifyKeyUndo(trashedKey, title, body, func() { a.post(MenuClick{ID: IDUndoTrash}) }); err != nil {
			a.log.Warn("notification failed", "err", err)
		}
	})
}

// loadTrash refreshes the Undo last trash entry: at start, after each turn
// and after an undo, and whenever the record file changes (watch.go), so
// `hark undo` and a Move to Trash in `hark ask` show in the menu within
// moments.
func (a *App) loadTrash() {
	if a.o.Trash == nil {
		return
	}
	rec, ok, err := a.o.Trash.Last()
	switch {
	case err != nil:
		a.log.Warn("reading the last trashed set", "err", err)
		a.trashLast = ""
	case !ok:
		if a.trashLast != "" {
			// Put back elsewhere (hark undo): what said it went to the
			// Trash is no longer so.
			a.withdrawNote(trashedKey)
		}
		a.trashLast = ""
	default:
		a.trashLast = rec.Summary()
	}
}

// undoTrash puts the last trashed set back and says what happened.
func (a *App) undoTrash() {
	if a.o.Trash == nil {
		return
	}
	rec, err := a.o.Trash.UndoLast()
	switch {
	case errors.Is(err, trash.ErrNothingToUndo):
		a.notify("Nothing to undo", "Nothing moved to the Trash by Hark is waiting to be put back.")
	case err != nil && len(rec.Items) > 0:
		a.notify("Put back in part", "Put back "+rec.Summary()+", not everything: "+err.Error())
	case err != nil:
		a.notify("Nothing put back", err.Error())
	default:
		// What said it went to the Trash is no longer so.
		a.withdrawNote(trashedKey)
		where := "Back where they were:\n"
		if len(rec.Items) == 1 {
			where = "Back where it was:\n"
		}
		a.notify("Put back", where+originals(rec, a.o.Home))
	}
	a.loadTrash()
	a.renderNow()
}

// originals lists the first few restored paths, one a line, with home
// written ~ as everywhere else.
func originals(rec trash.Record, home string) string {
	var b strings.Builder
	for i, it := range rec.Items {
		if i == 5 {
			b.WriteString("…\n")
			break
		}
		b.WriteString(Visible(Tilde(it.Original, home)) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

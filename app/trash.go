package app

import (
	"errors"
	"strings"

	"github.com/hark-sh/hark/shell/trash"
)

// Trash is where Move to Trash put things; *trash.Bin satisfies it. The
// agent does the moving; the app only offers to put the last set back.
type Trash interface {
	Last() (trash.Record, bool, error)
	UndoLast() (trash.Record, error)
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
		where := "Back where they were:\n"
		if len(rec.Items) == 1 {
			where = "Back where it was:\n"
		}
		a.notify("Put back", where+originals(rec))
	}
	a.loadTrash()
	a.renderNow()
}

// originals lists the first few restored paths, one a line.
func originals(rec trash.Record) string {
	var b strings.Builder
	for i, it := range rec.Items {
		if i == 5 {
			b.WriteString("…\n")
			break
		}
		b.WriteString(it.Original + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

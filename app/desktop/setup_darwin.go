//go:build darwin

package desktop

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/gen2brain/beeep"
)

// Options configure Setup.
type Options struct {
	Logger *slog.Logger
}

// Setup picks the macOS adapters. Answers and errors go to the
// notification centre through beeep (pure Go via purego, with its own
// osascript fallback). Approvals use the osascript dialog: actionable
// notifications need UserNotifications with a registered category, which
// macOS only grants to a signed app bundle whose user allowed alerts; until
// that path exists the dialog is used everywhere, and InAppBundle tells the
// two situations apart for the status line and `hark doctor`.
func Setup(o Options) Result {
	return Result{Notifier: beeepNotifier{}, Approver: NewDialog(), Close: func() {}}
}

// InAppBundle reports whether this process runs from inside an .app bundle
// (…/Hark.app/Contents/MacOS/hark), the precondition for UserNotifications.
func InAppBundle() bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return strings.Contains(exe, ".app/Contents/MacOS/")
}

type beeepNotifier struct{}

func (beeepNotifier) Notify(title, body string) error { return beeep.Notify(title, body, "") }

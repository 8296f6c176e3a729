//go:build darwin

package desktop

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gen2brain/beeep"

	"github.com/hark-sh/hark/app"
)

// Options configure Setup.
type Options struct {
	Logger *slog.Logger
}

// Setup picks the macOS adapters. Answers and errors go to the
// notification centre through beeep (pure Go via purego, with its own
// osascript fallback). Approvals start on the osascript dialog, which works
// everywhere; inside the app bundle, once macOS has granted notification
// permission (asked in the background, so startup never waits on the
// prompt), they move to actionable notifications with Approve and Deny, and
// answers move to the same centre, which removes each after noteLife.
func Setup(o Options) Result {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	a := &macApprover{dialog: NewDialog(), used: map[string]app.Approver{}}
	n := &macNotifier{}
	if InAppBundle() {
		go func() {
			un, err := NewUserNotifications(o.Logger)
			if err != nil {
				o.Logger.Info("approvals use a dialog", "why", err)
				return
			}
			a.mu.Lock()
			a.un = un
			a.mu.Unlock()
			n.use(un)
		}()
	}
	return Result{Notifier: n, Approver: a, Close: func() {}}
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

// macApprover sends each approval through the best channel available when
// it is asked, and withdraws it through the same one.
type macApprover struct {
	dialog *Dialog

	mu   sync.Mutex
	un   *UserNotifications
	used map[string]app.Approver
}

func (m *macApprover) Actions() bool { return true }

func (m *macApprover) Ask(p app.Pending, answer func(app.Decision)) error {
	m.mu.Lock()
	var via app.Approver = m.dialog
	if m.un != nil {
		via = m.un
	}
	m.used[p.ID] = via
	m.mu.Unlock()
	err := via.Ask(p, answer)
	if err != nil && via != app.Approver(m.dialog) {
		// The notification centre refused: fall back for this one.
		m.mu.Lock()
		m.used[p.ID] = m.dialog
		m.mu.Unlock()
		return m.dialog.Ask(p, answer)
	}
	return err
}

func (m *macApprover) Withdraw(id string) error {
	m.mu.Lock()
	via := m.used[id]
	delete(m.used, id)
	m.mu.Unlock()
	if via == nil {
		return nil
	}
	return via.Withdraw(id)
}

// macNotifier posts answers, errors and state notes. Info.plist makes
// Hark's notifications alerts, app-wide, so that an approval waits for its
// answer; an answer posted the same way would stay on screen until closed.
// So once the UserNotifications centre is Hark's, notes go there under
// identifiers of their own and an expirer removes them (lifeOf); until
// then, and outside a bundle, beeep posts them and macOS decides.
type macNotifier struct {
	mu  sync.Mutex
	un  *UserNotifications
	exp *expirer
	n   uint64
}

const (
	noteAnswerPrefix = "hark.answer."
	noteStatePrefix  = "hark.state."
)

func (m *macNotifier) use(un *UserNotifications) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.un = un
	m.exp = newExpirer(func(id string) { un.remove(id) })
}

func (m *macNotifier) centre() (*UserNotifications, *expirer, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	return m.un, m.exp, m.n
}

func (m *macNotifier) Notify(title, body string) error {
	un, exp, n := m.centre()
	if un == nil {
		return beeep.Notify(title, body, "")
	}
	id := fmt.Sprintf("%s%d", noteAnswerPrefix, n)
	if err := un.deliver(id, title, body, ""); err != nil {
		return beeep.Notify(title, body, "")
	}
	exp.posted(id, noteAnswer)
	return nil
}

// NotifyKey posts under key, replacing the last note posted under it.
func (m *macNotifier) NotifyKey(key, title, body string) error {
	un, exp, _ := m.centre()
	if un == nil {
		return beeep.Notify(title, body, "")
	}
	id := noteStatePrefix + key
	if err := un.deliver(id, title, body, ""); err != nil {
		return beeep.Notify(title, body, "")
	}
	exp.posted(id, noteState)
	return nil
}

// CloseKey withdraws the note posted under key, if the centre holds it.
func (m *macNotifier) CloseKey(key string) error {
	un, exp, _ := m.centre()
	if un == nil {
		return nil
	}
	id := noteStatePrefix + key
	exp.forget(id)
	un.remove(id)
	return nil
}

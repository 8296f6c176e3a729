package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
)

// problemTitles are the short rows of the usual problems. The detail
// (what failed, how to fix it) is behind Problems…, never in the menu.
var problemTitles = map[string]string{
	"agent":         "No agent configured",
	"control":       "`hark send` cannot reach this app",
	"hotkey":        "Hotkey unavailable",
	"microphone":    "Microphone unavailable",
	"notifications": "No notifications — approve in this menu",
	"ollama":        "Ollama not running",
	"path":          "Login shell PATH not read",
	"rules":         "Rules file has problems — hark rules list",
	"sandbox":       "No sandbox — more commands ask first",
	"confirm":       "Confirmation stays on: no sandbox",
	"settings":      "Settings file has errors",
	"transcriber":   "Speech model not loaded",
	"tray":          "Tray host problem",
	"voice":         "Voice input unavailable",
	"gpu":           "Model partly on the CPU: answers slower — see Problems…",
}

// TitledError gives a check's error the short title its menu row shows
// ("Ollama model missing" rather than the source's usual title).
type TitledError struct {
	Title string
	Err   error
}

func (e *TitledError) Error() string { return e.Err.Error() }
func (e *TitledError) Unwrap() error { return e.Err }

func titleOf(err error) string {
	var t *TitledError
	if errors.As(err, &t) {
		// The row's own pointer: the status line adds "see Problems…".
		return strings.TrimSuffix(t.Title, " (Problems…)")
	}
	// An adapter's error may carry its own row (agent.PartialGPUError):
	// agent cannot import app to wrap it.
	var own interface{ ProblemTitle() string }
	if errors.As(err, &own) {
		return own.ProblemTitle()
	}
	return ""
}

// ollamaTooOldTitle is the problem row of an Ollama older than Hark needs.
const ollamaTooOldTitle = "Ollama is too old — update it"

// problemText is what Problems… says of err, whose short form is text: a
// notification has room for one sentence, Problems… for the reasons.
func problemText(text string, err error) string {
	var e *agent.Error
	if errors.As(err, &e) && errors.Is(err, agent.ErrOllamaTooOld) {
		return text + "\n" + agent.TooOldWhy(e.Host)
	}
	return text
}

// offerTooOld puts the too-old row in the menu when a request found
// Ollama older than Hark needs: the start-up check saw a newer one, and a
// downgrade since is only seen by a request. The ollama check clears the
// row once Ollama is updated.
func (a *App) offerTooOld(ctx context.Context, err error) {
	if !errors.Is(err, agent.ErrOllamaTooOld) {
		return
	}
	a.problems["ollama"] = ProblemInfo{Title: ollamaTooOldTitle, Detail: problemText(err.Error(), err)}
	a.scheduleRecheck(ctx)
}

// YesNo asks a question in a native dialog; yes is false when the user
// declined or closed it.
type YesNo interface {
	Ask(ctx context.Context, title, message string) (yes bool, err error)
}

func (a *App) setProblem(p Problem) {
	if p.Message == "" {
		delete(a.problems, p.Source)
		return
	}
	title := p.Title
	if title == "" {
		title = problemTitles[p.Source]
	}
	if title == "" {
		title = firstLine(p.Message)
	}
	a.problems[p.Source] = ProblemInfo{Title: title, Detail: p.Message}
}

func (a *App) recheckFirst() time.Duration {
	if a.o.RecheckFirst > 0 {
		return a.o.RecheckFirst
	}
	return 15 * time.Second
}

func (a *App) recheckMax() time.Duration {
	if a.o.RecheckMax > 0 {
		return a.o.RecheckMax
	}
	return 4 * time.Minute
}

// checkedProblems lists the standing problems a check can clear.
func (a *App) checkedProblems() []string {
	var out []string
	for _, src := range problemSources(a.problems) {
		if _, ok := a.o.Checks[src]; ok {
			out = append(out, src)
		}
	}
	return out
}

// recheck runs the check of every standing problem that has one.
func (a *App) recheck(ctx context.Context) {
	if ctx == nil {
		return
	}
	for _, src := range a.checkedProblems() {
		a.runCheck(ctx, src)
	}
}

// reportProblem shows a problem posted from outside; one with a check is
// re-checked like the checks' own.
func (a *App) reportProblem(ctx context.Context, p Problem) {
	a.setProblem(p)
	a.scheduleRecheck(ctx)
	a.renderNow()
}

// checkFinished records what a check found.
func (a *App) checkFinished(ctx context.Context, e checkDone) {
	again := a.checking[e.source]
	delete(a.checking, e.source)
	if ctx.Err() != nil {
		return
	}
	if again {
		// Asked for again while it ran: what it found may predate what
		// prompted the ask (a load it looked too early to see), and the
		// run that follows will say.
		a.runCheck(ctx, e.source)
		return
	}
	switch {
	case e.err == nil:
		delete(a.problems, e.source)
		if e.source == "transcriber" {
			a.runHeld(ctx) // the speech model is in place
		}
	case e.source == "ollama" && a.offerMissing(e.err) != "":
	case e.source == "transcriber" && a.offerSpeech():
		// The model is missing: its Download rows say more than the
		// load's error.
	default:
		a.setProblem(Problem{Source: e.source, Message: problemText(a.trayText(e.err), e.err), Title: titleOf(e.err)})
	}
	a.scheduleRecheck(ctx)
	a.renderNow()
}

// recheckDue runs the checks of the standing problems when the timer fires.
func (a *App) recheckDue(ctx context.Context) {
	a.recheckStop = nil
	a.recheck(ctx)
	// Back off: a problem that stands for long is checked less often.
	a.recheckWait = min(2*a.recheckWait, a.recheckMax())
	a.scheduleRecheck(ctx)
}

// runCheck starts the named check unless it is running already. A check
// asked for while it runs is not dropped but runs once more when the
// first ends: the ask may follow news the running one started too early
// to see, such as the model's first load for the "gpu" check, which
// otherwise would be reported only at the next request.
func (a *App) runCheck(ctx context.Context, name string) {
	check := a.o.Checks[name]
	if check == nil {
		return
	}
	if _, running := a.checking[name]; running {
		a.checking[name] = true
		return
	}
	a.checking[name] = false
	go func() {
		err := check(ctx)
		if ctx.Err() == nil {
			a.post(checkDone{source: name, err: err})
		}
	}()
}

// scheduleRecheck arms the re-check timer while a checked problem stands,
// and disarms it (resetting the back-off) once none does.
func (a *App) scheduleRecheck(ctx context.Context) {
	if len(a.checkedProblems()) == 0 {
		if a.recheckStop != nil {
			a.recheckStop()
			a.recheckStop = nil
		}
		a.recheckWait = 0
		return
	}
	if a.recheckStop != nil {
		return
	}
	if a.recheckWait == 0 {
		a.recheckWait = a.recheckFirst()
	}
	a.recheckStop = a.o.afterFunc(a.recheckWait, func() {
		if ctx.Err() == nil {
			a.post(recheckTick{})
		}
	})
}

// problemReport is the text behind Problems…: each problem in full, and
// where to look further.
func (a *App) problemReport() string {
	var b strings.Builder
	// No heading: the file's name or the notification's title already
	// says "Hark — problems", and the walk saw it twice.
	for _, src := range problemSources(a.problems) {
		p := a.problems[src]
		// This is Problems…: a title that points here points nowhere.
		title := strings.TrimSuffix(strings.TrimSuffix(p.Title, " — see Problems…"), " (Problems…)")
		fmt.Fprintf(&b, "⚠ %s\n%s\n\n", title, p.Detail)
	}
	b.WriteString("Hark checks these again after every request and every few minutes;\nfixed problems disappear from the menu by themselves.\nFor a full check, run `hark doctor` in a terminal.\n")
	return b.String()
}

// openText writes text to a file in the runtime folder and shows it to
// read: with the desktop's own application (DocumentOpener), else in a
// text window (zenity, kdialog), else as a notification, so the click is
// never silent. Never an editor or a pager in a terminal: this is text to
// read, and vim there was a trap.
func (a *App) openText(name, title, text string) {
	path := filepath.Join(a.o.Paths.Runtime, name)
	o, viewer := a.o.Opener, a.o.Viewer
	if t, ok := viewer.(interface{ InTerminal() bool }); ok && t.InTerminal() {
		viewer = nil
	}
	go func() {
		err := settings.WriteFileAtomic(path, []byte(text), 0o600)
		if err == nil {
			err = openDocument(o, path)
		}
		if err != nil && viewer != nil {
			if verr := viewer.ShowText(context.Background(), title, path); verr == nil {
				return
			}
		}
		if err != nil {
			a.log.Warn("opening text", "path", path, "err", err)
			a.notify(title, clip(text, 1500))
		}
	}()
}

// openDocument opens path to read: with OpenDocument where o has it.
func openDocument(o Opener, path string) error {
	if d, ok := o.(DocumentOpener); ok {
		return d.OpenDocument(path)
	}
	return o.Open(path)
}

// askConfirmOff switches confirmation off, after asking once in a native
// dialog where there is one.
func (a *App) askConfirmOff(ctx context.Context) {
	q := a.o.YesNo
	if q == nil {
		a.saveConfirm(false)
		return
	}
	go func() {
		yes, err := q.Ask(ctx, "Hark — run commands without asking?",
			confirmOffQuestion)
		if err != nil {
			a.post(noteEvent{text: fmt.Sprintf("could not ask (%v); confirmation stays on", err)})
			return
		}
		a.post(confirmAnswer{off: yes})
	}()
}

// ConfirmStaysOn says why confirmation cannot be switched off where there
// is no sandbox; why is Options.NoSandbox.
func ConfirmStaysOn(why string) string {
	return "Always on: this machine has no sandbox (" + why + "), so Hark asks before running anything that is not read-only"
}

// holdConfirm keeps confirmation on in s, settings about to apply, where
// there is no sandbox: a file that turns it off is not applied, and the
// "confirm" problem says so for as long as the file asks for it. It
// reports whether that problem is new.
func (a *App) holdConfirm(s *settings.Settings) bool {
	_, was := a.problems["confirm"]
	if a.o.NoSandbox == "" || s.ConfirmBeforeExecute {
		if was {
			a.withdrawNote("confirm")
			delete(a.problems, "confirm")
		}
		return false
	}
	s.ConfirmBeforeExecute = true
	a.setProblem(Problem{Source: "confirm", Message: "settings.json sets confirmBeforeExecute to false, and that is not applied: this machine has no sandbox (" +
		a.o.NoSandbox + "), so nothing would hold a command Hark runs without asking. Hark asks before running anything that is not read-only. " +
		"Set confirmBeforeExecute back to true in Settings…, or give Hark a sandbox."})
	return !was
}

// confirmAnswered acts on the answer to askConfirmOff's question.
func (a *App) confirmAnswered(off bool) {
	if off {
		a.saveConfirm(false)
	}
}

// confirmOffQuestion is asked before confirmation goes off. It says what
// happens to deletions, since that is what the user most needs to know:
// plain deletions in the home folder still go to the Trash, anything else
// is as permanent as the command makes it.
const confirmOffQuestion = "With confirmation off, Hark runs every command the model proposes that policy does not forbid — including ones that delete, overwrite or change files — without asking you first.\n\n" +
	"Deletions: a plain deletion in your home folder (rm, or find … -delete) goes to the Trash instead (Undo last trash puts it back). " +
	"Other deletions and overwrites — outside your home, in a longer command, git clean, > or mv over a file — are permanent.\n\n" +
	"Turn confirmation off?"

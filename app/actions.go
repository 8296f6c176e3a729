package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
)

// view snapshots the loop's state for BuildMenu.
func (a *App) view() View {
	v := View{
		State:     a.state,
		Note:      a.note,
		Detail:    a.detail,
		Stream:    a.stream,
		LastError: a.lastError,
		Confirm:   a.settings.ConfirmBeforeExecute,
		NoSandbox: a.o.NoSandbox,
		Recent:    a.recent,
		CanType:   a.o.Prompter != nil,
		HasLogin:  a.o.LoginItem != nil,
		Login:     a.launchAtLogin,
		HasCues:   a.o.Cues != nil,
		Cues:      a.settings.SoundCues,
		HasLog:    a.o.LogFile != "",
		Hotkey:    a.hotkeyName(),
		Toggle:    a.settings.HotkeyMode == ModeToggle || (a.keys.m != nil && a.keys.m.latched),
		UndoTrash: a.trashLast,
		Settings:  a.settingsNote,
		Home:      a.o.Home,
	}
	if a.turn != nil {
		v.Cancelling = a.turn.cancelling
	}
	if a.answer != nil {
		v.Answering, v.AnswerHeard = true, a.answer.stopped
	}
	v.CantListen = a.cantListen()
	if len(a.problems) > 0 {
		v.Problems = make(map[string]ProblemInfo, len(a.problems))
		for k, m := range a.problems {
			v.Problems[k] = m
		}
	}
	for _, e := range a.pending {
		v.Pending = append(v.Pending, e.p)
		if v.Deadlines == nil {
			v.Deadlines = map[string]time.Duration{}
		}
		v.Deadlines[e.p.ID] = max(e.deadline.Sub(a.o.now()), 0).Round(time.Second)
	}
	if a.turn != nil {
		v.Request = a.turn.text
	}
	if m := a.missed; m != nil && !a.state.Busy() && m.request != "" {
		v.Missed = &MissedView{Count: m.count, At: m.at, Request: m.request}
	}
	for k, p := range v.Problems {
		if p.Download != "" {
			p.DownloadSize = a.offerSize(p.Download)
			if kept := a.pullKept[p.Download]; kept.Total > 0 && kept.Total == p.DownloadSize {
				p.DownloadKept = kept.Fraction()
			}
			v.Problems[k] = p
		}
		if len(p.Offers) > 0 {
			p.Offers = a.offersNow(p.Offers)
			v.Problems[k] = p
		}
	}
	if a.pull != nil {
		v.Pull = &PullView{Model: a.pull.model, Progress: a.pull.progress, Keeps: a.pull.keeps()}
	}
	return v
}

// renderNow redraws at once (a state change the user must see now).
func (a *App) renderNow() {
	a.throttle.shown()
	a.render()
}

// renderThrottled redraws for streamed text, at most MaxRendersPerSecond.
func (a *App) renderThrottled() {
	if a.throttle.allow() {
		a.render()
	}
}

func (a *App) render() {
	v := a.view()
	if a.o.observe != nil {
		a.o.observe(v)
	}
	if a.o.Menu == nil {
		return
	}
	m := BuildMenu(v)
	if a.lastRender != nil && reflect.DeepEqual(*a.lastRender, m) {
		return
	}
	a.lastRender = &m
	a.o.Menu.Render(m)
}

// flushRender draws what the throttle held back.
func (a *App) flushRender() {
	a.throttle.fired()
	a.render()
}

// showNote puts a remark from off the loop in the status line.
func (a *App) showNote(text string) {
	a.note = text
	a.renderNow()
}

func (a *App) click(ctx context.Context, id string) {
	switch {
	case strings.HasPrefix(id, PrefixApprove):
		a.decide(Decision{PendingID: strings.TrimPrefix(id, PrefixApprove), Approved: true, By: ByMenu})
	case strings.HasPrefix(id, PrefixSayAgain):
		a.sayAgain(strings.TrimPrefix(id, PrefixSayAgain))
	case strings.HasPrefix(id, PrefixDeny):
		a.decide(Decision{PendingID: strings.TrimPrefix(id, PrefixDeny), Approved: false, By: ByMenu})
	case strings.HasPrefix(id, PrefixAlwaysAllow):
		pid := strings.TrimPrefix(id, PrefixAlwaysAllow)
		for _, e := range a.pending {
			if e.p.ID == pid && e.p.Proposal != nil {
				a.decide(Decision{PendingID: pid, Approved: true, By: ByMenu, Rule: e.p.Proposal})
			}
		}
	case strings.HasPrefix(id, PrefixDenyWhy):
		a.denyWhy(ctx, strings.TrimPrefix(id, PrefixDenyWhy))
	case strings.HasPrefix(id, PrefixTrash):
		a.decide(Decision{PendingID: strings.TrimPrefix(id, PrefixTrash), Trash: true, By: ByMenu})
	case id == IDUndoTrash:
		a.undoTrash()
	case id == IDAskAgain:
		a.askAgain(ctx)
	case strings.HasPrefix(id, PrefixConversation):
		a.openTranscript(strings.TrimPrefix(id, PrefixConversation))
	case id == IDCancel:
		a.cancel()
	case strings.HasPrefix(id, PrefixDownload):
		a.startPull(ctx, strings.TrimPrefix(id, PrefixDownload))
	case strings.HasPrefix(id, PrefixSpeechModel):
		a.startSpeechDownload(ctx, strings.TrimPrefix(id, PrefixSpeechModel))
	case id == IDCancelDownload:
		a.cancelPull()
	case id == IDConfirm && a.o.NoSandbox != "":
		// The checkbox is disabled; a click from a menu drawn before
		// still changes nothing.
		a.note = ConfirmStaysOn(a.o.NoSandbox)
		a.renderNow()
	case id == IDConfirm:
		if a.settings.ConfirmBeforeExecute {
			a.askConfirmOff(ctx)
		} else {
			a.saveConfirm(true)
		}
	case strings.HasPrefix(id, PrefixShowFull):
		for _, e := range a.pending {
			if e.p.ID == strings.TrimPrefix(id, PrefixShowFull) {
				a.showFull(ctx, e.p)
			}
		}
	case id == IDProblems:
		a.openText("problems.txt", "Hark — problems", a.problemReport())
	case id == IDNewConversation:
		if a.state.Busy() {
			a.busyNote()
			return
		}
		a.conv = nil
		a.stream, a.lastError = "", ""
		a.setState(Idle)
		a.note = "new conversation started"
		a.renderNow()
	case id == IDAuditLog && a.o.AuditText != nil:
		render := a.o.AuditText
		go func() {
			text, err := render()
			if err != nil {
				a.post(noteEvent{text: fmt.Sprintf("could not read the audit log: %v — run hark audit", err)})
				return
			}
			a.openText("audit.txt", "Hark — audit log", text)
		}()
	case id == IDAuditLog:
		a.background(func() error { return openAudit(a.o.Paths.Audit, a.o.Opener) })
	case id == IDSettings:
		a.background(func() error { return openSettings(a.o.Paths.Settings, a.o.Opener) })
	case id == IDLog && a.o.LogFile != "":
		path, o := a.o.LogFile, a.o.Opener
		a.background(func() error {
			if err := o.Open(path); err != nil {
				return fmt.Errorf("could not open %s: %v — %s", path, err, OpenByHand(runtime.GOOS, path))
			}
			return nil
		})
	case id == IDSoundCues && a.o.Cues != nil:
		a.saveCues(!a.settings.SoundCues)
	case id == IDLoginItem && a.o.LoginItem != nil:
		want, li := !a.launchAtLogin, a.o.LoginItem
		go func() { a.post(loginSaved{value: want, err: li.SetEnabled(want)}) }()
	case id == IDTypeRequest:
		a.typeRequest(ctx)
	}
}

// background runs a slow side effect (files, starting a viewer) off the
// loop; a failure becomes a remark in the status line.
func (a *App) background(f func() error) {
	go func() {
		if err := f(); err != nil {
			// A menu click must never fail silently: the menu is closed by
			// now, so the reason goes out as a notification too.
			a.post(noteEvent{text: err.Error()})
			a.notify("Could not open it", err.Error())
		}
	}()
}

// saveConfirm sets "Confirm before executing" and writes it through to
// the settings file. It starts from the file as it is on disk, so edits the
// user made through Settings… are kept, and refuses to overwrite a file it
// cannot read.
func (a *App) saveConfirm(want bool) {
	if !want && a.o.NoSandbox != "" {
		a.note = ConfirmStaysOn(a.o.NoSandbox)
		a.renderNow()
		return
	}
	path := a.o.Paths.Settings
	// Applied now, as saveCues does: the user's own click is no edit of
	// settings.json to report.
	a.settings.ConfirmBeforeExecute = want
	go func() {
		a.post(toggleSaved{value: want, err: SaveConfirmBeforeExecute(path, want)})
	}()
}

// confirmSaved follows the checkbox to what was written, or says why not.
func (a *App) confirmSaved(e toggleSaved) {
	if e.err != nil {
		a.note = fmt.Sprintf("Could not save the setting: %v", e.err)
		a.settings.ConfirmBeforeExecute = !e.value
	} else {
		a.settings.ConfirmBeforeExecute = e.value
	}
	a.renderNow()
}

// loginChanged follows the checkbox to the login item, or says why not.
func (a *App) loginChanged(e loginSaved) {
	if e.err != nil {
		a.note = fmt.Sprintf("Could not change launch at login: %v", e.err)
	} else {
		a.launchAtLogin = e.value
	}
	a.renderNow()
}

// SaveConfirmBeforeExecute sets confirmBeforeExecute in the settings file at
// path, atomically, keeping every other key as it is on disk.
func SaveConfirmBeforeExecute(path string, value bool) error {
	return settings.Update(path, func(s *settings.Settings) { s.ConfirmBeforeExecute = value })
}

// openFailed reports a file whose opener failed after Open took it as
// started (ExecOpener.Failed): a notification and the status line name
// the file and how to open it by hand. Called from any goroutine.
func (a *App) openFailed(path string, err error) {
	a.log.Warn("opener failed", "path", path, "err", err)
	title, body := openFailedNote(runtime.GOOS, path, err)
	a.notify(title, body)
	a.post(noteEvent{text: fmt.Sprintf("could not open %s — %s", filepath.Base(path), OpenByHand(runtime.GOOS, path))})
}

func openSettings(path string, o Opener) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := settings.Save(path, settings.Defaults()); err != nil {
			return fmt.Errorf("could not create %s: %v", path, err)
		}
	}
	if err := o.Open(path); err != nil {
		return fmt.Errorf("could not open %s: %v — %s", path, err, OpenByHand(runtime.GOOS, path))
	}
	return nil
}

func openAudit(path string, o Opener) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// Create it empty so the viewer has something to show; the agent
		// appends to it.
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("could not create %s: %v", filepath.Dir(path), err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("could not create %s: %v", path, err)
		}
		f.Close()
	}
	if err := o.Open(path); err != nil {
		return fmt.Errorf("could not open %s: %v — run `hark audit` instead", path, err)
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// openTranscript writes a conversation as text to the runtime folder and
// opens it in the default viewer.
func (a *App) openTranscript(id string) {
	h, dir, o := a.o.History, filepath.Join(a.o.Paths.Runtime, "transcripts"), a.o.Opener
	if h == nil {
		return
	}
	a.background(func() error {
		c, err := h.Load(id)
		if err != nil {
			return fmt.Errorf("could not read conversation %s: %v — try `hark history show %s`", id, err, id)
		}
		text := agent.Transcript(c)
		path := filepath.Join(dir, unsafeName.ReplaceAllString(id, "_")+".txt")
		if err := settings.WriteFileAtomic(path, []byte(text), 0o600); err != nil {
			return fmt.Errorf("could not write the transcript: %v — try `hark history show %s`", err, id)
		}
		if err := o.Open(path); err != nil {
			return fmt.Errorf("could not open %s: %v", path, err)
		}
		return nil
	})
}

// denyWhy asks for the reason of a denial in the reason prompt; the answer
// arrives as a Decision like any other, so the first answer still wins.
// Cancelling the prompt leaves the approval open (its countdown still
// runs, and the prompt says so): Cancel in a dialog means "not this", and
// a terminal window closed without a line cannot be told from one still
// open, so keeping the approval is the one answer every path can give.
func (a *App) denyWhy(ctx context.Context, pendingID string) {
	p := a.o.Prompter
	if p == nil {
		return
	}
	command := ""
	for _, e := range a.pending {
		if e.p.ID == pendingID {
			command = e.p.Command
		}
	}
	if command == "" {
		return
	}
	go func() {
		text, ok, err := p.Reason(ctx, pendingID, "Hark — deny", "Why not run “"+clip(Visible(command), 80)+"”? Hark denies it and tells the model why. Cancel keeps it waiting.")
		switch {
		case err != nil:
			a.post(noteEvent{text: fmt.Sprintf("the text prompt failed: %v — use Deny", err)})
		case ok:
			a.post(answered{Decision{PendingID: pendingID, By: ByMenu, Reason: strings.TrimSpace(text)}})
		}
	}()
}

// denyRequested answers a reason that came over the control socket.
func (a *App) denyRequested(r DenyRequest) {
	for _, e := range a.pending {
		if e.p.ID == r.PendingID {
			a.decide(Decision{PendingID: r.PendingID, By: ByMenu, Reason: strings.TrimSpace(r.Reason)})
			r.Reply <- SendReply{OK: true}
			return
		}
	}
	r.Reply <- SendReply{Error: "that approval is no longer waiting: it was answered, timed out or cancelled"}
}

func (a *App) typeRequest(ctx context.Context) {
	p := a.o.Prompter
	if p == nil {
		return
	}
	if a.state.Busy() {
		a.busyNote()
		return
	}
	go func() {
		text, ok, err := p.Prompt(ctx, "Hark", "What should Hark do?")
		switch {
		case err != nil:
			a.post(noteEvent{text: fmt.Sprintf("the text prompt failed: %v", err)})
		case ok && strings.TrimSpace(text) != "":
			a.post(typedText{text: strings.TrimSpace(text)})
		}
	}()
}

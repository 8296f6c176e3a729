package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// pendingEntry is one approval waiting for its answer. The turn's
// confirmer waits on reply; the loop keeps the entry in App.pending, for
// the menu, until an answer settles it. Every answer (the menu, the
// notification, the prompt for a reason, the timeout, a cancel) reaches
// the loop as an event; the loop delivers the first and drops the entry,
// so the later ones find nothing and are ignored.
type pendingEntry struct {
	turn     int
	p        Pending
	added    time.Time     // when the approval was asked
	deadline time.Time     // when the approval times out, for the countdown
	reply    chan Decision // capacity 1; receives the first answer only
}

// cancel answers e with a cancel, unless it has been answered already.
func (e *pendingEntry) cancel() {
	select {
	case e.reply <- Decision{PendingID: e.p.ID, By: ByCancel}:
	default:
	}
}

// Private events about approvals.
type (
	// answered is a Decision for the loop to route to its pending entry:
	// from the Approver's callback, or a timeout or cancel from Confirm.
	answered   struct{ d Decision }
	pendingAdd struct {
		turn  int
		entry *pendingEntry
	}
	countdown struct{}
)

func (answered) isEvent()   {}
func (pendingAdd) isEvent() {}
func (countdown) isEvent()  {}

// addPending takes the approval a confirmer asks for into the menu, or
// cancels it when its turn is gone or going.
func (a *App) addPending(e pendingAdd) {
	external := e.turn == externalTurn
	if !external && (a.turn == nil || a.turn.id != e.turn || a.turn.cancelling) {
		e.entry.cancel()
		return
	}
	// The agent owns the one confirmation timeout and says when it
	// ends; a Pending without a deadline counts down from the setting.
	e.entry.added = a.o.now()
	e.entry.deadline = e.entry.p.Deadline
	if e.entry.deadline.IsZero() {
		timeout := a.settings.ConfirmTimeout.D()
		if timeout <= 0 {
			timeout = agent.DefaultConfirmTTL
		}
		e.entry.deadline = e.entry.added.Add(timeout)
	}
	if a.missed != nil && a.missed.turn != e.turn && !external {
		a.missed = nil // a new request of the user's own: they are back
	}
	a.pending = append(a.pending, e.entry)
	a.armCountdown()
	if external {
		// Another program's approval changes no turn's state; the menu
		// and the notification show it, and speech names the program.
		a.renderNow()
		a.speakApproval(e.entry.p)
		return
	}
	a.setState(AwaitingApproval)
	a.speakApproval(e.entry.p)
}

// speakApproval reads p aloud when speak is on.
func (a *App) speakApproval(p Pending) {
	if a.speakOn() {
		desc := SpokenApproval(p, a.o.Home)
		byVoice, _ := a.voiceAnswerable()
		a.sayFor(p.ID, desc, answerPrompt(p, byVoice))
	}
}

// turnPending says whether an approval of the current turn still waits,
// as opposed to other programs' approvals (ApprovalRequest).
func (a *App) turnPending() bool {
	for _, e := range a.pending {
		if e.turn != externalTurn {
			return true
		}
	}
	return false
}

// decide delivers d to its pending entry if d is the first answer to it.
func (a *App) decide(d Decision) {
	for i, e := range a.pending {
		if e.p.ID != d.PendingID {
			continue
		}
		a.pending = append(a.pending[:i:i], a.pending[i+1:]...)
		e.reply <- d // capacity 1 and only ever sent here: never blocks
		if a.speaking != nil && a.speaking.key == d.PendingID {
			a.bargeIn() // answered: the rest of its description is moot
		}
		delete(a.described, d.PendingID)
		if t := a.turn; t != nil && t.id == e.turn && !d.Approved && d.By == ByTimeout {
			t.timeout = e.deadline.Sub(e.added).Round(time.Second)
			a.noteMissed(t)
		}
		if a.state == AwaitingApproval && e.turn != externalTurn && !a.turnPending() {
			if d.Approved || d.Trash {
				a.setState(Running)
			} else {
				a.setState(Thinking)
			}
			return
		}
		a.renderNow()
		return
	}
	// Already decided by another channel, or unknown: the first answer won.
}

// cancelPending answers every open approval with a cancel as its turn
// ends. A turn never leaves an entry behind (Confirm removes its own);
// any left here belong to a confirmer that has not been scheduled yet.
func (a *App) cancelPending() {
	kept := a.pending[:0]
	for _, e := range a.pending {
		if e.turn == externalTurn {
			kept = append(kept, e) // another program's: its own ctx ends it
			continue
		}
		e.cancel()
	}
	a.pending = kept
}

// armCountdown redraws the menu in a second, for the approval countdown.
func (a *App) armCountdown() {
	if a.countdownStop != nil {
		return
	}
	a.countdownStop = a.o.afterFunc(time.Second, func() { a.post(countdown{}) })
}

// countdownTick redraws the countdown and re-arms it while an approval
// still waits.
func (a *App) countdownTick() {
	a.countdownStop = nil
	if len(a.pending) > 0 {
		a.armCountdown()
		a.renderNow()
	}
}

// turnConfirmer is the Confirmer a turn hands to the agent: it adds the
// command to the menu and posts a notification; the loop delivers the first
// answer from either, or from the timeout or a cancel, and ignores the rest.
// The confirmation timeout is the agent's: it puts it on ctx, and a
// deadline that passes here is a denial by timeout.
type turnConfirmer struct {
	loop     inbox
	ids      *atomic.Int64 // the App's counter of pending IDs
	approver Approver
	log      *slog.Logger
	turn     int
	heard    string // the transcript of a spoken request, shown with its approvals, unsure words marked
	unsure   []string
	again    bool // the request was spoken: its approvals offer Say it again
}

func (c turnConfirmer) Confirm(ctx context.Context, p Pending) (Decision, error) {
	p.ID = fmt.Sprintf("p%d", c.ids.Add(1))
	if p.Heard == "" {
		p.Heard = c.heard
	}
	if p.HeardDoubt == "" {
		p.HeardDoubt = HeardDoubt(p, c.unsure)
	}
	p.SayAgain = c.again && c.turn != externalTurn && strings.TrimSpace(p.Heard) != ""
	entry := &pendingEntry{turn: c.turn, p: p, reply: make(chan Decision, 1)}
	if !c.loop.post(pendingAdd{turn: c.turn, entry: entry}) {
		return Decision{PendingID: p.ID, By: ByCancel}, ErrStopped
	}
	// Ask runs on its own goroutine: a fallback dialog may block until the
	// user answers it, and the menu or the timeout must still be able to win.
	ap := c.approver
	askDone := make(chan error, 1)
	if ap != nil {
		if !ap.Actions() {
			c.loop.post(noteEvent{text: "notifications here cannot show Approve/Deny — answer in this menu"})
		}
		id := p.ID
		go func() {
			err := ap.Ask(p, func(d Decision) {
				if d.Again {
					// Say it again from the notification: what the menu's
					// entry does, which cancels this turn (and so this
					// confirmation) and listens again.
					if p.SayAgain {
						c.loop.post(MenuClick{ID: PrefixSayAgain + id})
					}
					return
				}
				d.PendingID, d.By = id, ByNotification
				c.loop.post(answered{d})
			})
			askDone <- err
			if err != nil {
				c.loop.post(noteEvent{text: fmt.Sprintf("could not post the approval notification (%v) — approve from this menu", err)})
			}
		}()
	}
	var d Decision
	select {
	case d = <-entry.reply:
	case <-ctx.Done():
		by := ByCancel
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			by = ByTimeout
		}
		d = c.settle(entry, by)
	}
	if ap != nil && d.By != ByNotification {
		var askErr error
		select {
		case askErr = <-askDone:
		default: // still asking (a modal dialog): Withdraw closes it
		}
		if askErr == nil {
			if err := ap.Withdraw(p.ID); err != nil {
				c.log.Warn("withdrawing the approval notification", "id", p.ID, "err", err)
			}
		}
	}
	return d, nil
}

// HeardDoubt says which of the words whisper was unsure of end up in
// what p deletes or overwrites, or "". Every surface that asks about a
// spoken request's command (the menu, the notification, hark ask's
// terminal prompt) fills Pending.HeardDoubt with it.
func HeardDoubt(p Pending, unsure []string) string {
	var hits []string
	for _, w := range unsure {
		if len([]rune(w)) < 2 {
			continue
		}
		lw := strings.ToLower(w)
		for _, r := range DestructiveParts(p) {
			if strings.Contains(strings.ToLower(r.Command), lw) {
				hits = append(hits, "“"+w+"”")
				break
			}
		}
	}
	if len(hits) == 0 {
		return ""
	}
	return "Hark was not sure it heard " + strings.Join(hits, " and ") + ", and this command deletes or overwrites what it names"
}

// settle asks the loop to resolve entry with a denial by `by`, then returns
// whatever the loop decided first: that denial, or an answer that arrived
// just before it.
func (c turnConfirmer) settle(entry *pendingEntry, by string) Decision {
	if c.loop.post(answered{Decision{PendingID: entry.p.ID, By: by}}) {
		select {
		case d := <-entry.reply:
			return d
		case <-c.loop.done:
		}
	}
	select {
	case d := <-entry.reply:
		return d
	default:
		return Decision{PendingID: entry.p.ID, By: ByCancel}
	}
}

// AnswerKind is one way to answer an approval.
type AnswerKind int

// The answers, in no particular order; Answers orders them.
const (
	AnswerTrash   AnswerKind = iota // move what it would delete to the Trash instead
	AnswerDeny                      // do not run it
	AnswerDenyWhy                   // do not run it, and tell the model why
	AnswerApprove                   // run it as written ("Delete" when the Trash is offered)
)

// Answer is one button or menu entry of an approval.
type Answer struct {
	Kind  AnswerKind
	Label string
	// Safe marks the safe choice, which comes first and is the default
	// where a surface has one.
	Safe bool
}

// safeMark follows the label of the safe choice on every surface.
const safeMark = " (safe choice)"

// Answers are the answers to p in the one order every surface uses: the
// safe choice first and marked (Move to Trash where it is offered, else
// Deny), then Deny, then running it. Running it is never next to the safe
// choice when the Trash is offered, so a slip past the default denies
// instead of deleting. withWhy adds "Deny and say why…" after Deny, where
// a text prompt exists.
func Answers(p Pending, withWhy bool) []Answer {
	var as []Answer
	if p.TrashOffered {
		as = append(as, Answer{Kind: AnswerTrash, Label: "Move to Trash" + safeMark, Safe: true},
			Answer{Kind: AnswerDeny, Label: "Deny"})
	} else {
		as = append(as, Answer{Kind: AnswerDeny, Label: "Deny" + safeMark, Safe: true})
	}
	if withWhy {
		as = append(as, Answer{Kind: AnswerDenyWhy, Label: "Deny and say why…"})
	}
	if p.TrashOffered {
		return append(as, Answer{Kind: AnswerApprove, Label: "Delete"})
	}
	return append(as, Answer{Kind: AnswerApprove, Label: "Approve"})
}

// ClientName is how an approval names the program that asked for it (""
// for Hark's own model). The name is the program's own claim, so it is
// shown escaped and cut, and one that calls itself Hark is marked as the
// other program it is.
func ClientName(client string) string {
	c := strings.Join(strings.Fields(client), " ")
	if c == "" {
		return ""
	}
	shown := clip(Visible(c), 40)
	if namesHark(client) {
		shown = "“" + shown + "” (another program)"
	}
	return shown
}

// ApprovalTitle is the heading of an approval's notification or dialog:
// what is asked, and whether the model is trying again after a no. The
// model's purpose tag ("executing") is not shown; it means nothing to
// the user. It keeps the style of every other title: sentence case, no
// dash, no ending stop and no "Hark", which the icon and the app's name
// beside the title say.
func ApprovalTitle(p Pending) string {
	if c := ClientName(p.Client); c != "" {
		// Another program asks through hark mcp: say which, so that the
		// user never approves it as if Hark's own model had asked.
		return c + " wants to run a command"
	}
	if p.AfterNo != "" {
		// Short enough for a notification server not to cut it; the
		// body's first line (AfterNoLine) says which no or timeout.
		return "A new proposal"
	}
	return "Run this command?"
}

// AfterNoLine says which no, or which unanswered approval, a retry
// follows, for the approval's details.
func AfterNoLine(p Pending) string {
	if p.AfterNo == "" {
		return ""
	}
	if p.AfterTimeout {
		return "After “" + clip(Visible(p.AfterNo), 60) + "” timed out unanswered, the model proposes this instead:"
	}
	return "After you said no to “" + clip(Visible(p.AfterNo), 60) + "”, the model proposes this instead:"
}

// Tilde writes path with home as ~, as commands and previews do.
func Tilde(path, home string) string {
	if home == "" || home == "/" {
		return path
	}
	home = strings.TrimRight(home, "/")
	switch {
	case path == home:
		return "~"
	case strings.HasPrefix(path, home+"/"):
		// Only a plain path below home: one that walks with . or .., or
		// has an empty part, is shown as written, since ~ would make it
		// read as home's.
		rest := strings.TrimSuffix(path[len(home)+1:], "/")
		for _, c := range strings.Split(rest, "/") {
			if c == "." || c == ".." || (c == "" && rest != "") {
				return path
			}
		}
		return "~" + path[len(home):]
	}
	return path
}

// DestructiveParts are the parts of p's command that delete or overwrite,
// with what they do ("rm a.log b.log", "rm: deletes files"), in the order
// of p.Reasons (most harmful first). A surface that elides a long command
// shows these in full, so the deletion is never what is hidden.
func DestructiveParts(p Pending) []shell.Reason {
	var out []shell.Reason
	for _, r := range p.Reasons {
		if agent.Destructive(r) && strings.TrimSpace(r.Command) != "" {
			out = append(out, r)
		}
	}
	return out
}

// fullWidth is the width Show full command… wraps to: any viewer shows
// it without a horizontal scroll.
const fullWidth = 76

// FullCommandText is what Show full command… shows: the command wrapped
// for reading, every reason with the part it is about, the folder and
// the preview, then the command exactly as it runs, on one line, to copy.
func FullCommandText(p Pending, home string) string {
	var b strings.Builder
	if line := AfterNoLine(p); line != "" {
		b.WriteString(line + "\n\n")
	}
	cmd := Visible(p.Command)
	fmt.Fprintf(&b, "The command waiting for your approval (%s),\nwrapped at spaces for reading:\n\n", plural(len([]rune(p.Command)), "character", "characters"))
	for _, row := range wrap(cmd, fullWidth-4) {
		b.WriteString("    " + row + "\n")
	}
	if len(p.Reasons) > 0 {
		b.WriteString("\nWhy it needs your approval, most harmful first:\n")
		for _, r := range p.Reasons {
			mark := "  • "
			if agent.Destructive(r) {
				mark = "  ⚠ "
			}
			b.WriteString(mark + Visible(r.Why) + "\n")
			if c := strings.TrimSpace(r.Command); c != "" {
				for _, row := range wrap(Visible(c), fullWidth-8) {
					b.WriteString("        " + row + "\n")
				}
			}
		}
	}
	if p.WorkingDirectory != "" {
		b.WriteString("\nIn: " + Visible(Tilde(p.WorkingDirectory, home)) + "\n")
	}
	if l := HomeLegend(p, home); l != "" {
		b.WriteString(l + "\n")
	}
	for _, l := range ScopeLines(p, home) {
		b.WriteString(Visible(l) + "\n")
	}
	if pv := p.Preview; pv != nil {
		b.WriteString("\nPreview: " + Visible(pv.Summary) + "\n")
		for _, l := range pv.Lines {
			for i, row := range wrap(Visible(strings.TrimSpace(l)), fullWidth-6) {
				indent := "    "
				if i > 0 {
					indent = "      "
				}
				b.WriteString(indent + row + "\n")
			}
		}
	}
	b.WriteString("\nThe command exactly as it will run, on one line:\n\n" + p.Command + "\n")
	return b.String()
}

// fullCommandNote is Show full command… as a notification, the last
// fallback: servers cut long bodies, so the destructive parts come first.
func fullCommandNote(p Pending) string {
	var b strings.Builder
	for _, r := range DestructiveParts(p) {
		b.WriteString("⚠ " + Visible(r.Why) + ": " + Visible(strings.TrimSpace(r.Command)) + "\n")
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(Visible(p.Command))
	return b.String()
}

// showFull opens Show full command…: in the text viewer, which wraps it;
// else in the default viewer; else, as a last resort, a notification that
// leads with what the command deletes or overwrites.
func (a *App) showFull(ctx context.Context, p Pending) {
	path := filepath.Join(a.o.Paths.Runtime, "commands", unsafeName.ReplaceAllString(p.ID, "_")+".txt")
	text := FullCommandText(p, a.o.Home)
	viewer, opener := a.o.Viewer, a.o.Opener
	const title = "Hark — the full command"
	go func() {
		err := settings.WriteFileAtomic(path, []byte(text), 0o600)
		if err == nil && viewer != nil {
			verr := viewer.ShowText(ctx, title, path)
			if verr == nil {
				return
			}
			a.log.Warn("showing the full command", "viewer", fmt.Sprintf("%T", viewer), "err", verr)
		}
		if err == nil {
			err = openDocument(opener, path)
		}
		if err != nil {
			a.log.Warn("opening the full command", "path", path, "err", err)
			a.notify("The full command", clip(fullCommandNote(p), 1500))
		}
	}()
}

// HomeLegend says what ~ stands for, for an approval whose command names
// the home folder by its absolute path (as MCP clients do, who are told
// to) while its folder and preview write it as ~; "" otherwise. The
// command itself is always shown exactly as it runs: this line is what
// lets the two forms be read as one place.
func HomeLegend(p Pending, home string) string {
	home = strings.TrimRight(home, "/")
	if home == "" || home != filepath.Clean(home) || !namesPath(p.Command, home) {
		return ""
	}
	return "~ is your home folder, " + Visible(home)
}

// namesPath reports whether cmd names dir itself, by whole path
// components: /home/ana or /home/ana/x, never /home/ana2 or /x/home/ana.
func namesPath(cmd, dir string) bool {
	for i := 0; i < len(cmd); {
		j := strings.Index(cmd[i:], dir)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(dir)
		before := j == 0 || strings.ContainsRune(" \t\n'\"=:;&|<>()`", rune(cmd[j-1]))
		after := end == len(cmd) || strings.ContainsRune("/ \t\n'\";&|<>)`", rune(cmd[end]))
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

// ScopeLines are what the approved command may change and reach, as the
// kernel will hold it (agent.Pending.Scope): every surface that asks shows
// them. The first says so when the scope is a whole home folder or system
// root.
//
// A second question, after a run the kernel stopped at the edge of its
// scope, says what was refused and what is asked now; a run without
// limits says so first. Where the machine has no sandbox (Pending.NoSandbox)
// no scope holds, so that is all the first line says.
func ScopeLines(p Pending, home string) []string {
	var out []string
	switch {
	case p.NoSandbox:
		out = append(out, NoSandboxLine)
	case p.Unlimited:
		out = append(out, "⚠ Runs without limits: full access to your files, your session and the network")
	}
	if p.Scope != nil && !p.NoSandbox {
		out = append(out, p.Scope.Lines(home)...)
	}
	if p.Further != "" {
		out = append(out, p.Further)
	}
	return out
}

// NoSandboxLine is the first line of every approval on a machine with no
// sandbox, in place of what the run may change.
const NoSandboxLine = "⚠ Runs without limits: this machine has no sandbox, so the command can change anything you can"

// ScopeWarns says whether ScopeLines starts with a warning that every
// surface shows first: a whole home folder or system root, or no limits.
func ScopeWarns(p Pending) bool {
	return p.NoSandbox || p.Unlimited || p.Scope != nil && p.Scope.Broad != ""
}

// ByCommandLine marks a Decision given with `hark approve` or `hark deny`,
// usually from a key the desktop binds; the audit log records it in
// decidedBy.
const ByCommandLine = "command"

// AnswerRequest is `hark approve` or `hark deny`: an answer to the oldest
// waiting approval from the keyboard, for a desktop whose tray menu no key
// opens. The core answers on Reply exactly once (Reply must have room for
// one value): OK with what was answered in Answer, or Error saying why not.
type AnswerRequest struct {
	Approve bool // else deny
	// Delete, with Approve, deletes for good where Move to Trash is
	// offered; without it such an approval takes the Trash, the safe
	// choice, as a spoken "yes" does.
	Delete bool
	Reason string // a denial's reason, told to the model
	Reply  chan<- SendReply
}

func (AnswerRequest) isEvent() {}

func (e AnswerRequest) handleBy(_ context.Context, a *App) { a.answerOldest(e) }

// keyReadTime is how long an approval must have been waiting before
// `hark approve` runs it: a key pressed for an approval that was answered
// or timed out a moment before must not approve the next one, unread.
const keyReadTime = 2 * time.Second

// answerOldest answers the oldest waiting approval as AnswerRequest asks.
// A denial always goes through; an approval only where a key press is
// enough: never for another program's command (that program could run
// `hark approve` itself), nor for what needs a click (keyRefusal).
func (a *App) answerOldest(r AnswerRequest) {
	if len(a.pending) == 0 {
		r.Reply <- SendReply{Error: "no approval is waiting"}
		return
	}
	e := a.pending[0]
	p := e.p
	what := "“" + clip(Visible(firstLine(p.Command)), 60) + "”"
	if n := len(a.pending); n > 1 {
		what += fmt.Sprintf(" (the oldest of %d waiting)", n)
	}
	if !r.Approve {
		a.decide(Decision{PendingID: p.ID, By: ByCommandLine, Reason: strings.TrimSpace(r.Reason)})
		r.Reply <- SendReply{OK: true, Answer: "Denied " + what}
		return
	}
	refuse := func(why string) { r.Reply <- SendReply{Error: "did not approve " + what + ": " + why} }
	if why := keyRefusal(p); why != "" {
		refuse(why + " — answer it with a click in the Hark menu, or deny it with  hark deny")
		return
	}
	if a.o.now().Sub(e.added) < keyReadTime {
		refuse("it appeared just now — read it in the menu or the notification, then run  hark approve  again")
		return
	}
	d := Decision{PendingID: p.ID, By: ByCommandLine}
	answer := "Approved " + what
	switch {
	case r.Delete && !p.TrashOffered:
		refuse("--delete answers a deletion that offers Move to Trash, and this one does not — run  hark approve  to run it")
		return
	case p.TrashOffered && !r.Delete:
		d.Trash = true
		answer = "Moving what " + what + " deletes to the Trash (the safe choice; hark approve --delete deletes for good)"
	case p.TrashOffered:
		d.Approved = true
		answer = "Deleting for good: " + what
	default:
		d.Approved = true
	}
	a.decide(d)
	r.Reply <- SendReply{OK: true, Answer: answer}
}

// keyRefusal says why `hark approve` may not approve p, or "": what a
// spoken yes may not run (needsClick), and any other program's command.
func keyRefusal(p Pending) string {
	switch {
	case p.Client != "":
		return ClientName(p.Client) + " asked for it, and a program that asks could run  hark approve  itself"
	case p.Tier == shell.Forbidden:
		return "this command is forbidden and never runs"
	case p.Unlimited:
		return "a run without limits is approved only with a click"
	case p.Further != "":
		return "going beyond what you approved is approved only with a click"
	case p.Scope != nil && p.Scope.Broad != "":
		return "it may change anything in a whole folder such as your home, which is approved only with a click"
	case needsClick(p) != "":
		// Hidden characters, or a preview that cannot tell what it
		// touches: the person cannot have read what would run.
		return strings.TrimSuffix(strings.Split(needsClick(p), " — ")[0], ".")
	}
	return ""
}

// missedApprovals are the approvals of one request that timed out while
// nobody answered. Walk 6 came back to a menu and icon that looked like a
// fresh start, on a desktop whose notifications expire: the menu now
// keeps a row for them ("2 approvals timed out at 16:47 — Ask again")
// until it is chosen or the user makes a new request.
type missedApprovals struct {
	turn    int
	count   int
	at      time.Time
	request string
}

// MissedView is missedApprovals as the menu shows them.
type MissedView struct {
	Count   int
	At      time.Time
	Request string
}

// noteMissed counts an approval of turn t that timed out.
func (a *App) noteMissed(t *turn) {
	if a.missed == nil || a.missed.turn != t.id {
		a.missed = &missedApprovals{turn: t.id, request: t.text}
	}
	a.missed.count++
	a.missed.at = a.o.now()
}

// askAgain is the Ask again row: the request whose approvals timed out is
// sent again, in the conversation it belongs to, as if typed anew. The
// model proposes its commands afresh and the approvals are asked again;
// a command approved minutes late in a world that has changed meanwhile
// would be the wrong thing to run, so nothing old is replayed.
func (a *App) askAgain(ctx context.Context) {
	m := a.missed
	if m == nil {
		return
	}
	if a.state.Busy() {
		a.busyNote()
		return
	}
	a.missed = nil
	a.retrying = true
	a.startText(ctx, m.request, "typed", nil)
	a.retrying = false
}

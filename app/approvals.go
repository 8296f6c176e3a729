package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/agent"
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
	a.pending = append(a.pending, e.entry)
	a.armCountdown()
	if external {
		// Another program's approval changes no turn's state; the menu
		// and the notification show it.
		a.renderNow()
		return
	}
	a.setState(AwaitingApproval)
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
		if t := a.turn; t != nil && t.id == e.turn && !d.Approved && d.By == ByTimeout {
			t.timeout = e.deadline.Sub(e.added).Round(time.Second)
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
	heard    string // the transcript of a spoken request, shown with its approvals
}

func (c turnConfirmer) Confirm(ctx context.Context, p Pending) (Decision, error) {
	p.ID = fmt.Sprintf("p%d", c.ids.Add(1))
	if p.Heard == "" {
		p.Heard = c.heard
	}
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

package app

import (
	"github.com/hark-sh/hark/agent"

	"context"
	"time"
)

// ApprovalRequest asks the user about a command that another program on
// the machine wants to run (an MCP client, through `hark mcp` and the
// control socket). It becomes a pending entry in the menu and a
// notification exactly as a spoken request's approval does, with the
// client's name on it, and the first answer wins. The entry belongs to no
// turn: a turn starting or ending leaves it alone, and it leaves when it is
// answered, times out, or Ctx ends (the client went away).
type ApprovalRequest struct {
	Ctx     context.Context
	Pending Pending
	Reply   chan<- Decision // capacity 1; receives exactly one Decision
}

func (ApprovalRequest) isEvent() {}

// externalTurn marks pending entries of no turn.
const externalTurn = -1

// askExternal puts an ApprovalRequest to the user on its own goroutine,
// through the same confirmer a turn uses.
func (a *App) askExternal(r ApprovalRequest) {
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// The caller's agent owns the timeout and sends its deadline; the
	// app's own setting bounds an entry whose caller sent none, so that
	// nothing waits in the menu for ever.
	deadline := r.Pending.Deadline
	if deadline.IsZero() {
		timeout := a.settings.ConfirmTimeout.D()
		if timeout <= 0 {
			timeout = agent.DefaultConfirmTTL
		}
		deadline = a.o.now().Add(timeout)
		r.Pending.Deadline = deadline
	}
	c := turnConfirmer{loop: a.loop, ids: &a.ids, approver: a.o.Approver, log: a.log, turn: externalTurn}
	a.turns.Add(1)
	go func() {
		defer a.turns.Done()
		cctx, cancel := context.WithDeadline(ctx, deadline.Add(time.Second))
		defer cancel()
		d, _ := c.Confirm(cctx, r.Pending)
		r.Reply <- d
	}()
}

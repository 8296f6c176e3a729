package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// Messages put in tool results when Hark itself did not run a command.
const (
	msgDenied    = "The user denied this command."
	msgCancelled = "The request was cancelled; the command did not run."
)

// run is the state of one request.
type run struct {
	a         *Agent
	confirmer Confirmer
	onEvent   func(Event)
	noConfirm bool
	c         *Conversation
	m         RunMetrics
	system    string
	turn      int
	start     time.Time
}

// Run sends request to the model as the next user message of c and loops:
// each reply's tool calls are validated, classified, confirmed when needed,
// run, and answered, until the model replies without tool calls (its final
// answer), MaxTurns model turns have been used, ctx is cancelled, or Ollama
// fails. Whatever happens, c ends with every tool call answered, a
// RunMetrics appended, and is saved to Options.History when set.
//
// The error, when not nil, is an *Error: branch on it with errors.Is and
// ErrOllamaUnreachable, ErrModelNotFound, ErrToolsUnsupported,
// ErrOllamaServer, ErrOllama, ErrStreamCut, ErrTurnLimit or ErrCancelled.
func (a *Agent) Run(ctx context.Context, c *Conversation, request string) (Outcome, error) {
	return a.RunWith(ctx, c, request, RequestOptions{})
}

// RequestOptions override the Agent's Options for one request, for callers
// (like the menu-bar app) that pass a confirmer, a progress callback or the
// confirmation switch with each request.
type RequestOptions struct {
	Confirmer Confirmer   // nil: Options.Confirmer
	OnEvent   func(Event) // nil: Options.OnEvent
	NoConfirm *bool       // nil: Options.NoConfirm
}

// RunWith is Run with per-request overrides.
func (a *Agent) RunWith(ctx context.Context, c *Conversation, request string, ro RequestOptions) (Outcome, error) {
	if c == nil {
		return Outcome{}, errors.New("agent: Run needs a conversation (NewConversation())")
	}
	now := a.o.now()
	if c.ID == "" {
		c.ID = newID(now)
	}
	if c.Created.IsZero() {
		c.Created = now
	}
	if c.Title == "" {
		c.Title = titleFrom(request)
	}
	c.Model = a.o.Model
	c.Messages = append(c.Messages, api.Message{Role: "user", Content: request})

	r := &run{a: a, c: c, start: now, system: a.systemPrompt(now), m: RunMetrics{Request: request, Started: now},
		confirmer: a.o.Confirmer, onEvent: a.o.OnEvent, noConfirm: a.o.NoConfirm}
	if ro.Confirmer != nil {
		r.confirmer = ro.Confirmer
	}
	if ro.OnEvent != nil {
		r.onEvent = ro.OnEvent
	}
	if ro.NoConfirm != nil {
		r.noConfirm = *ro.NoConfirm
	}
	answer, err := r.loop(ctx)

	r.m.TotalTimeMs = a.o.now().Sub(now).Milliseconds()
	var e *Error
	switch {
	case err == nil:
		r.m.Success, r.m.Outcome = true, OutcomeCompleted
	case errors.As(err, &e) && errors.Is(e.Kind, ErrCancelled):
		r.m.Outcome, r.m.Error = OutcomeCancelled, e.Error()
	case errors.As(err, &e) && errors.Is(e.Kind, ErrTurnLimit):
		r.m.Outcome, r.m.Error = OutcomeTurnLimit, e.Error()
	default:
		r.m.Outcome, r.m.Error = OutcomeError, err.Error()
	}
	c.Runs = append(c.Runs, r.m)
	c.Updated = a.o.now()

	switch {
	case err == nil:
		r.emit(Event{Kind: EventFinal, ConversationID: c.ID, Turn: r.turn, Text: answer})
	case errors.Is(err, ErrCancelled):
		r.emit(Event{Kind: EventCancelled, ConversationID: c.ID, Turn: r.turn, Text: err.Error(), Err: err})
	default:
		r.emit(Event{Kind: EventError, ConversationID: c.ID, Turn: r.turn, Text: err.Error(), Err: err})
	}
	if a.o.History != nil {
		if serr := a.o.History.Save(c); serr != nil {
			// The request itself is over; a history that cannot be written
			// is worth a warning, not a failed request.
			r.emit(Event{Kind: EventWarning, ConversationID: c.ID, Turn: r.turn, Text: serr.Error(), Err: serr})
		}
	}
	return Outcome{Answer: answer, Metrics: r.m}, err
}

func (r *run) emit(e Event) { r.onEvent(e) }

func (r *run) loop(ctx context.Context) (string, error) {
	a := r.a
	for {
		if r.turn >= a.o.MaxTurns {
			return "", turnLimitError(a.o.MaxTurns)
		}
		r.turn++
		r.m.Turns = r.turn
		msg, err := r.chat(ctx)
		if err != nil {
			// Keep what the model said before the failure, but not its tool
			// calls: they were never run, and an unanswered call would
			// confuse the next request.
			if strings.TrimSpace(msg.Content) != "" {
				r.c.Messages = append(r.c.Messages, api.Message{Role: "assistant", Content: msg.Content})
			}
			return "", classify(ctx, err, a.o.Host, a.o.Model)
		}
		r.c.Messages = append(r.c.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			return strings.TrimSpace(msg.Content), nil
		}
		if err := r.handleCalls(ctx, msg.ToolCalls); err != nil {
			return "", classify(ctx, err, a.o.Host, a.o.Model)
		}
		r.checkpoint()
	}
}

// checkpoint saves the conversation between turns, so a crash of the whole
// app while a long request waits for the model loses nothing that ran. Run
// saves again at the end with the metrics; a failure here only warns.
func (r *run) checkpoint() {
	if r.a.o.History == nil {
		return
	}
	r.c.Updated = r.a.o.now()
	if err := r.a.o.History.Save(r.c); err != nil {
		r.emit(Event{Kind: EventWarning, ConversationID: r.c.ID, Turn: r.turn, Text: err.Error(), Err: err})
	}
}

// chat runs one model turn, streaming text to OnEvent, and returns the
// assembled assistant message.
func (r *run) chat(ctx context.Context) (api.Message, error) {
	a := r.a
	msgs := make([]api.Message, 0, len(r.c.Messages)+1)
	msgs = append(msgs, api.Message{Role: "system", Content: r.system})
	msgs = append(msgs, r.c.Messages...)
	stream := true
	req := &api.ChatRequest{
		Model:     a.o.Model,
		Messages:  msgs,
		Stream:    &stream,
		Tools:     a.tools,
		Think:     &api.ThinkValue{Value: a.o.Think},
		KeepAlive: a.o.KeepAlive,
		Options:   a.o.ModelOptions,
	}
	var content strings.Builder
	var calls []api.ToolCall
	done := false
	start := a.o.now()
	err := a.o.Client.Chat(ctx, req, func(resp api.ChatResponse) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t := resp.Message.Content; t != "" {
			content.WriteString(t)
			r.emit(Event{Kind: EventText, ConversationID: r.c.ID, Turn: r.turn, Text: t})
		}
		calls = append(calls, resp.Message.ToolCalls...)
		if resp.Done {
			done = true
		}
		return nil
	})
	r.m.ModelTimeMs += a.o.now().Sub(start).Milliseconds()
	msg := api.Message{Role: "assistant", Content: content.String(), ToolCalls: calls}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil && !done {
		err = ErrStreamCut
	}
	return msg, err
}

// handleCalls answers every tool call of one reply, in order, with a tool
// message. It returns an error only when ctx was cancelled.
func (r *run) handleCalls(ctx context.Context, calls []api.ToolCall) error {
	a := r.a
	r.m.ToolCalls += len(calls)
	answer := func(tc api.ToolCall, content string) {
		name := tc.Function.Name
		if name == "" {
			name = ToolName
		}
		r.c.Messages = append(r.c.Messages, api.Message{Role: "tool", Content: content, ToolName: name, ToolCallID: tc.ID})
	}
	invalid := func(tc api.ToolCall, i int, why string) {
		r.emit(Event{Kind: EventInvalid, ConversationID: r.c.ID, Turn: r.turn, Text: fmt.Sprintf("tool call %d: %s", i+1, why)})
		answer(tc, errorJSON(why))
	}

	if len(calls) > MaxCallsPerReply {
		why := fmt.Sprintf("Too many tool calls in one reply (%d; at most %d). Nothing was run. Send fewer calls and wait for their results.", len(calls), MaxCallsPerReply)
		for i, tc := range calls {
			invalid(tc, i, why)
		}
		return nil
	}

	// Validation first: if any call is malformed, none of the reply runs,
	// because the valid ones may depend on the broken one.
	args := make([]toolArgs, len(calls))
	errs := make([]error, len(calls))
	bad := -1
	for i, tc := range calls {
		args[i], errs[i] = validateCall(tc, a.o.Home)
		if errs[i] != nil && bad < 0 {
			bad = i
		}
	}
	if bad >= 0 {
		for i, tc := range calls {
			if errs[i] != nil {
				invalid(tc, i, fmt.Sprintf("Invalid call, not run: %v.", errs[i]))
			} else {
				invalid(tc, i, fmt.Sprintf("Not run because tool call %d in the same reply was invalid. Fix it and send the calls again.", bad+1))
			}
		}
		return nil
	}

	for i, tc := range calls {
		if ctx.Err() != nil {
			answer(tc, cancelledJSON(args[i]))
			continue
		}
		res := r.handleOne(ctx, i, args[i])
		answer(tc, string(res.JSON()))
	}
	return ctx.Err()
}

// handleOne classifies, decides, runs and audits one valid call.
func (r *run) handleOne(ctx context.Context, index int, ta toolArgs) shell.Result {
	a := r.a
	// The policy judges the folder the command will really run in; it knows
	// home by name, and the tool arguments arrive resolved to a path.
	wd := ta.WorkingDirectory
	if wd == "" || filepath.Clean(wd) == filepath.Clean(a.o.Home) {
		wd = "~"
	}
	v := a.o.Classifier.ClassifyIn(ta.Command, wd)
	call := &Call{
		ID:               r.c.ID + "-" + strconv.Itoa(len(r.c.Runs)+1) + "-" + strconv.Itoa(r.turn) + "-" + strconv.Itoa(index+1),
		Command:          ta.Command,
		WorkingDirectory: ta.WorkingDirectory,
		Purpose:          ta.Purpose,
		Tier:             v.Tier,
		Reasons:          v.Reasons,
	}
	ev := func(kind EventKind) Event {
		return Event{Kind: kind, ConversationID: r.c.ID, Turn: r.turn, Call: call}
	}
	r.emit(ev(EventProposed))

	notRun := func(msg string) shell.Result {
		return shell.Result{Command: ta.Command, WorkingDirectory: ta.WorkingDirectory, Purpose: ta.Purpose,
			Tier: v.Tier, Reasons: v.Reasons, ExitCode: -1, Error: msg}
	}
	var decision, by string
	var res shell.Result
	runIt := false
	switch v.Tier {
	case shell.Forbidden:
		decision, by = DecisionRefused, ByPolicy
		r.m.Refused++
		res = notRun("Refused: Hark never runs this kind of command (" + reasonText(v.Reasons) + "). Do not try another way to do the same; tell the user what to run themselves if it is really needed.")
	case shell.Safe:
		decision, by, runIt = DecisionAuto, ByPolicy, true
	default: // shell.Confirm, and any tier we do not know, needs a person
		if r.noConfirm {
			decision, by, runIt = DecisionUnconfirmedRun, ByPolicy, true
			break
		}
		r.m.ConfirmationsAsked++
		r.emit(ev(EventAwaiting))
		decision, by = r.confirm(ctx, call)
		switch decision {
		case DecisionApproved:
			r.m.Approved++
			runIt = true
		case DecisionCancelled:
			res = notRun(msgCancelled)
		case DecisionTimeout:
			r.m.Denied++
			res = notRun(fmt.Sprintf("The user did not answer within %s, so the command was not run. Do not retry it unless the user asks.", a.o.ConfirmTimeout))
		default:
			r.m.Denied++
			res = notRun(msgDenied)
		}
	}
	d := ev(EventDecided)
	d.Decision = decision
	r.emit(d)

	if runIt {
		r.emit(ev(EventRunning))
		start := a.o.now()
		res = a.o.Executor.Run(ctx, shell.Request{
			Command:          ta.Command,
			WorkingDirectory: ta.WorkingDirectory,
			Purpose:          ta.Purpose,
			Verdict:          v,
			Sandbox:          a.o.Sandbox,
		})
		elapsed := a.o.now().Sub(start)
		r.m.CommandTimeMs += elapsed.Milliseconds()
		if res.Executed {
			r.m.Commands++
		}
		if res.ExecutionTimeMs == 0 && elapsed >= time.Millisecond {
			res.ExecutionTimeMs = elapsed.Milliseconds()
		}
	}
	// The model's stated purpose always travels with the result, whatever
	// the executor filled in.
	res.Purpose = ta.Purpose
	if res.Command == "" {
		res.Command = ta.Command
	}
	re := ev(EventResult)
	re.Result = &res
	r.emit(re)

	if a.o.Audit != nil {
		entry := AuditEntry{
			Time: a.o.now(), ConversationID: r.c.ID, Command: ta.Command, WorkingDirectory: ta.WorkingDirectory,
			Purpose: ta.Purpose, Tier: v.Tier, Reasons: v.Reasons, Decision: decision, DecidedBy: by,
			Executed: res.Executed, DurationMs: res.ExecutionTimeMs, Sandbox: res.Sandbox, TimedOut: res.TimedOut,
		}
		if res.Executed {
			code := res.ExitCode
			entry.ExitCode = &code
		}
		if err := a.o.Audit.Append(entry); err != nil {
			// A decision that cannot be audited is still reported to the
			// UI; stopping here would leave the command's result unsent.
			r.emit(Event{Kind: EventWarning, ConversationID: r.c.ID, Turn: r.turn, Text: err.Error(), Err: err})
		}
	}
	return res
}

// confirm asks the Confirmer under the confirmation timeout and maps the
// answer to an audit decision and who made it. Anything but a clear,
// in-time approval is a denial.
func (r *run) confirm(ctx context.Context, call *Call) (decision, by string) {
	a := r.a
	if r.confirmer == nil {
		return DecisionDenied, ByPolicy
	}
	cctx, cancel := context.WithTimeout(ctx, a.o.ConfirmTimeout)
	defer cancel()
	type answer struct {
		d   Decision
		err error
	}
	// The timeout and cancellation hold even against a Confirmer that does
	// not watch its context: a late answer is dropped.
	answered := make(chan answer, 1)
	go func() {
		d, err := r.confirmer.Confirm(cctx, Pending{
			ID: call.ID, ConversationID: r.c.ID, Command: call.Command, WorkingDirectory: call.WorkingDirectory,
			Purpose: call.Purpose, Tier: call.Tier, Reasons: call.Reasons,
		})
		answered <- answer{d, err}
	}()
	var d Decision
	var err error
	select {
	case ans := <-answered:
		d, err = ans.d, ans.err
	case <-cctx.Done():
		err = cctx.Err()
	}
	switch {
	case ctx.Err() != nil || d.By == ByCancel:
		return DecisionCancelled, ByCancel
	case cctx.Err() != nil || d.By == ByTimeout:
		return DecisionTimeout, ByTimeout
	case err != nil || !d.Approved:
		by := d.By
		if by == "" {
			by = ByPolicy
		}
		return DecisionDenied, by
	default:
		return DecisionApproved, d.By
	}
}

func reasonText(rs []shell.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.Why)
	}
	if len(parts) == 0 {
		return "forbidden by policy"
	}
	return strings.Join(parts, "; ")
}

// errorJSON is the tool result for a call Hark could not use.
func errorJSON(why string) string {
	return string(shell.Result{Success: false, Executed: false, ExitCode: -1, Error: why}.JSON())
}

func cancelledJSON(ta toolArgs) string {
	return string(shell.Result{Command: ta.Command, WorkingDirectory: ta.WorkingDirectory, Purpose: ta.Purpose,
		ExitCode: -1, Error: msgCancelled}.JSON())
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/scope"
)

// Messages put in tool results when Hark itself did not run a command.
const (
	// Worded like the refusal and the system prompt: a denial is an answer,
	// not an obstacle to route around.
	msgDenied    = "The user denied this command. Do not try the same change another way; say what you would have done and stop."
	msgCancelled = "The request was cancelled; the command did not run."
	msgStopped   = "Not run: the request stopped after the user denied 3 commands in a row."
	// msgDeniedWhy starts a denial that carries the user's reason; the
	// model is meant to act on the reason, so nothing tells it to stop.
	msgDeniedWhy = "The user denied this command: "
	// maxDenyReason caps the reason sent to the model, in bytes.
	maxDenyReason = 1000
)

// run is the state of one request.
type run struct {
	a         *Agent
	confirmer Confirmer
	onEvent   func(Event)
	noConfirm bool
	// unaskedBecause is why noConfirm is set, as a result tells it ("hark
	// exec was given --yes"); "": the user switched confirmation off.
	unaskedBecause string
	// saveKey names this request in the history file, whose other
	// requests another process may be adding meanwhile (SaveRequest).
	saveKey string
	// confirmTimeout is how long an approval waits in this request.
	confirmTimeout time.Duration
	client         string // who asked, for a call from outside (Handle); "" for the model
	// external is set for a call from another program (Handle): its
	// output goes to that program, so a read-only command that reads the
	// user's private files is held by the kernel (hideList). private are the
	// locations it may not read unasked; nil: PrivateLocations of home.
	external bool
	private  []string
	// secretNoRule is set while the call being asked reads outside its
	// folder for another program or a cloud model (readGate): no Always
	// allow is offered for it.
	secretNoRule bool
	c            *Conversation
	m            RunMetrics
	system       string
	turn         int
	start        time.Time

	// contextLength is this request's budget: the setting, or the size
	// the server loaded the model with when it fixes one (ContextSizer).
	contextLength int
	// contextFromServer: the server fixed contextLength (llama-server's
	// -c), so an overflow's advice names that, not the setting.
	contextFromServer bool
	latestUser        int  // index in c.Messages of this request's user message
	corrected         bool // the last turn was a corrective one
	nudged            bool // the model was told once that text is never run
	denials           denials
	// saidNo is the last command of this request the user denied, or
	// whose approval timed out (timedOut), so the next approval can say
	// it comes after a no or a timeout.
	saidNo   string
	timedOut bool
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
// ErrOllamaServer, ErrOllama, ErrStreamCut, ErrTurnLimit, ErrCancelled,
// ErrContextOverflow, ErrModelOutput, ErrCloudModel (refused before any
// chat) or ErrDenials (the user denied three commands in a row).
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
	// ConfirmTimeout, when positive, is this request's approval timeout
	// (the app passes its live setting); zero: Options.ConfirmTimeout.
	ConfirmTimeout time.Duration
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
	if a.o.History != nil {
		// Another process (hark ask beside the app) may have continued
		// this conversation: the model sees those requests too.
		a.o.History.Refresh(c)
	}
	if c.Created.IsZero() {
		c.Created = now
	}
	if c.Title == "" {
		c.Title = titleFrom(request)
	}
	c.Model = a.o.Model
	latest := len(c.Messages)
	c.Messages = append(c.Messages, api.Message{Role: "user", Content: request})

	r := &run{a: a, c: c, start: now, latestUser: latest, system: a.systemPrompt(now), m: RunMetrics{Request: request, Started: now}, saveKey: newID(now),
		confirmer: a.o.Confirmer, onEvent: a.o.OnEvent, noConfirm: a.o.NoConfirm}
	if ro.Confirmer != nil {
		r.confirmer = ro.Confirmer
	}
	if ro.OnEvent != nil {
		r.onEvent = ro.OnEvent
	}
	r.confirmTimeout = a.o.ConfirmTimeout
	if ro.ConfirmTimeout > 0 {
		r.confirmTimeout = ro.ConfirmTimeout
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
		if serr := a.o.History.SaveRequest(c, r.saveKey, latest, true); serr != nil {
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
	if err := a.ensureLocal(ctx); err != nil {
		return "", err
	}
	r.contextLength, r.contextFromServer = a.contextLength(ctx)
	for {
		if r.turn >= a.o.MaxTurns {
			return "", turnLimitError(a.o.MaxTurns)
		}
		r.turn++
		r.m.Turns = r.turn
		t, err := r.chat(ctx)
		msg := t.msg
		if err != nil {
			if ctx.Err() == nil && isParserError(err) {
				// The server's parser choked on the model's call: the
				// model's mistake, told back to it, not a broken server.
				// The words name the server in use.
				name := wordsFor(a.runtimeOf(), a.o.Model).name
				why := fmt.Sprintf("%s could not read your tool call (%v).", name, err)
				if strings.Contains(err.Error(), "does not match the expected") && a.o.NumPredict > 0 {
					// llama-server says the same of a call that the length
					// limit cut off, which the model cannot tell apart.
					why += fmt.Sprintf(" A reply longer than %d tokens is cut off and reads the same way.", a.o.NumPredict)
				}
				if cerr := r.correct(ctx, t, why); cerr != nil {
					return "", cerr
				}
				continue
			}
			// Keep what the model said before the failure, but not its tool
			// calls: they were never run, and an unanswered call would
			// confuse the next request.
			if strings.TrimSpace(msg.Content) != "" {
				r.c.Messages = append(r.c.Messages, api.Message{Role: "assistant", Content: msg.Content})
			}
			return "", a.classify(ctx, err)
		}
		switch {
		case t.repeated:
			if r.corrected {
				return "", repeatError(a.o.Model)
			}
			if cerr := r.correct(ctx, t, "You repeated yourself; Ollama stopped your reply because the same text kept coming."); cerr != nil {
				return "", cerr
			}
			continue
		case t.doneReason == "length":
			if cerr := r.correct(ctx, t, fmt.Sprintf("Your reply hit the length limit of %d tokens and was cut off, so any tool call in it was lost.", a.o.NumPredict)); cerr != nil {
				return "", cerr
			}
			continue
		case len(msg.ToolCalls) == 0 && msg.Content == "":
			why := "Your reply was empty."
			if t.thought {
				why = "Your reply had only thinking and no answer or tool call."
			}
			if cerr := r.correct(ctx, t, why+" If you tried to call the tool, the call could not be parsed and was dropped."); cerr != nil {
				return "", cerr
			}
			continue
		case len(msg.ToolCalls) == 0 && isCallShaped(msg.Content):
			if cerr := r.correct(ctx, t, "Your tool call could not be read (check the JSON, the tool name "+ToolName+" and the \"arguments\" object), so nothing ran."); cerr != nil {
				return "", cerr
			}
			continue
		case len(msg.ToolCalls) == 0 && !r.nudged && looksLikeCommand(msg.Content):
			// Text is never executed; say so once, then accept the text.
			r.nudged = true
			r.c.Messages = append(r.c.Messages, msg, api.Message{Role: "user", Content: CorrectionPrefix + nudgeText})
			r.emit(Event{Kind: EventRetry, ConversationID: r.c.ID, Turn: r.turn, Text: "the model wrote a command instead of calling the tool; asking it to call the tool"})
			continue
		}
		r.c.Messages = append(r.c.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		invalid, err := r.handleCalls(ctx, msg.ToolCalls)
		if err != nil {
			return "", a.classify(ctx, err)
		}
		if invalid {
			// The results already tell the model what was wrong; a second
			// unusable reply in a row ends the request.
			if r.corrected {
				return "", modelOutputError(a.o.Model, "its tool calls were invalid twice in a row", t.raw)
			}
			r.corrected = true
			r.m.Corrections++
		} else {
			r.corrected = false
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
	if err := r.a.o.History.SaveRequest(r.c, r.saveKey, r.latestUser, false); err != nil {
		r.emit(Event{Kind: EventWarning, ConversationID: r.c.ID, Turn: r.turn, Text: err.Error(), Err: err})
	}
}

// CorrectionPrefix starts every message Hark itself adds to a conversation
// as a user turn (corrections and nudges): the model learns it is not the
// user speaking, and transcripts and the context budget tell it from a
// request.
const CorrectionPrefix = "[Hark, not the user] "

// IsCorrection says whether m is a message Hark added, not a request.
func IsCorrection(m api.Message) bool {
	return m.Role == "user" && strings.HasPrefix(m.Content, CorrectionPrefix)
}

// nudgeText answers a reply that wrote a command as text.
const nudgeText = "You wrote a command as text. Text is never run: to run a command, call the tool " + ToolName +
	" with {\"command\": \"...\", \"workingDirectory\": \"/absolute/path\"}. If you meant to answer, answer in plain words."

// correct gives the model one corrective turn for an unusable reply, or
// ends the request with an error that names what the model produced.
func (r *run) correct(ctx context.Context, t turn, why string) error {
	if r.corrected {
		return modelOutputError(r.a.o.Model, strings.TrimSuffix(why, "."), t.raw)
	}
	r.corrected = true
	if c := strings.TrimSpace(t.msg.Content); c != "" {
		r.c.Messages = append(r.c.Messages, api.Message{Role: "assistant", Content: c})
	}
	r.c.Messages = append(r.c.Messages, api.Message{Role: "user", Content: CorrectionPrefix + why + " " + callHowTo})
	r.m.Corrections++
	r.emit(Event{Kind: EventRetry, ConversationID: r.c.ID, Turn: r.turn, Text: why})
	if err := ctx.Err(); err != nil {
		return r.a.classify(ctx, err)
	}
	return nil
}

// callHowTo is the instruction appended to every correction.
const callHowTo = "To run a command, call the tool " + ToolName + " with JSON arguments, for example " +
	"{\"command\": \"ls -la /absolute/path\", \"workingDirectory\": \"/absolute/path\"}; escape quotes inside strings. " +
	"Keep the reply short. If you are done, answer in one plain sentence."

// turn is one model reply as the loop sees it.
type turn struct {
	msg        api.Message // content stripped of reasoning
	raw        string      // content as received, for error messages
	doneReason string
	thought    bool // thinking arrived (in the thinking field or as tags)
	// repeated: the stream ended cleanly without a done line while the
	// request was alive. Only the runner's repeat abort does that (it
	// counts raw tokens, thinking and parser-held calls included, and
	// ends with neither a done nor an error line: llm/server.go in
	// v0.17.4, llm/llama_server.go in v0.33); a crash sends an error
	// line, and a lost connection is a transport error.
	repeated bool
}

// chat runs one model turn, streaming text to OnEvent.
func (r *run) chat(ctx context.Context) (turn, error) {
	a := r.a
	msgs, err := r.requestMessages()
	if err != nil {
		return turn{}, err
	}
	stream, truncate := true, false
	req := &api.ChatRequest{
		Model:     a.o.Model,
		Messages:  msgs,
		Stream:    &stream,
		Tools:     a.tools,
		Think:     &api.ThinkValue{Value: a.o.Think},
		KeepAlive: a.o.KeepAlive,
		Options:   a.modelOptions,
		// An overflow is refused with a 400 instead of silently losing the
		// system prompt and the tools.
		Truncate: &truncate,
	}
	if r.turn == 1 && !a.warm() {
		r.emit(Event{Kind: EventLoading, ConversationID: r.c.ID, Turn: r.turn, Text: "loading model…"})
	}
	var raw strings.Builder
	var calls []api.ToolCall
	var t turn
	var f thinkFilter
	done, thinkingShown := false, false
	start := a.o.now()
	err = a.o.Client.Chat(ctx, req, func(resp api.ChatResponse) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if th := resp.Message.Thinking; th != "" {
			t.thought = true
			if !thinkingShown {
				thinkingShown = true
				r.emit(Event{Kind: EventThinking, ConversationID: r.c.ID, Turn: r.turn, Text: "thinking…"})
			}
		}
		if c := resp.Message.Content; c != "" {
			raw.WriteString(c)
			show, reset, thinking := f.add(c)
			if thinking {
				t.thought = true
				if !thinkingShown {
					thinkingShown = true
					r.emit(Event{Kind: EventThinking, ConversationID: r.c.ID, Turn: r.turn, Text: "thinking…"})
				}
			}
			if reset || show != "" {
				r.emit(Event{Kind: EventText, ConversationID: r.c.ID, Turn: r.turn, Text: show, Reset: reset})
			}
		}
		calls = append(calls, resp.Message.ToolCalls...)
		if resp.Done {
			done = true
			t.doneReason = resp.DoneReason
		}
		return nil
	})
	r.m.ModelTimeMs += a.o.now().Sub(start).Milliseconds()
	if rest := f.flush(); rest != "" {
		r.emit(Event{Kind: EventText, ConversationID: r.c.ID, Turn: r.turn, Text: rest})
	}
	t.raw = raw.String()
	t.msg = api.Message{Role: "assistant", Content: stripThinking(t.raw), ToolCalls: calls}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		a.markWarm()
	}
	if err == nil && !done {
		t.repeated = true
	}
	return t, err
}

// handleCalls answers every tool call of one reply, in order, with a tool
// message. invalid says that no call ran because one was unusable; the
// error is only for a cancelled ctx.
func (r *run) handleCalls(ctx context.Context, calls []api.ToolCall) (invalid bool, _ error) {
	a := r.a
	r.m.ToolCalls += len(calls)
	answer := func(tc api.ToolCall, content string) {
		name := tc.Function.Name
		if name == "" {
			name = ToolName
		}
		r.c.Messages = append(r.c.Messages, api.Message{Role: "tool", Content: content, ToolName: name, ToolCallID: tc.ID})
	}
	reject := func(tc api.ToolCall, i int, why string) {
		r.emit(Event{Kind: EventInvalid, ConversationID: r.c.ID, Turn: r.turn, Text: fmt.Sprintf("tool call %d: %s", i+1, why)})
		answer(tc, errorJSON(why))
	}

	if len(calls) > MaxCallsPerReply {
		why := fmt.Sprintf("Too many tool calls in one reply (%d; at most %d). Nothing was run. Send fewer calls and wait for their results.", len(calls), MaxCallsPerReply)
		for i, tc := range calls {
			reject(tc, i, why)
		}
		return true, nil
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
				reject(tc, i, fmt.Sprintf("Invalid call, not run: %v. %s", errs[i], callHowTo))
			} else {
				reject(tc, i, fmt.Sprintf("Not run because tool call %d in the same reply was invalid. Fix it and send the calls again.", bad+1))
			}
		}
		return true, nil
	}

	stopped := false
	for i, tc := range calls {
		switch {
		case ctx.Err() != nil:
			answer(tc, cancelledJSON(args[i]))
			continue
		case stopped:
			answer(tc, string(shell.Result{Command: args[i].Command, WorkingDirectory: args[i].WorkingDirectory, Purpose: args[i].Purpose,
				ExitCode: -1, Error: msgStopped}.JSON()))
			continue
		}
		res, stop := r.handleOne(ctx, i, args[i])
		stopped = stopped || stop
		answer(tc, string(forModel(res, a.o.ToolOutputLimit).JSON()))
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if stopped {
		return false, r.denials.err()
	}
	return false, nil
}

// handleOne classifies, decides, confirms, runs and records one valid
// call; stop says the user's denials have ended the request.
func (r *run) handleOne(ctx context.Context, index int, ta toolArgs) (_ shell.Result, stop bool) {
	var unpinned error
	if ta.Pin == nil {
		// Held before the policy looks and the user is asked, so what runs
		// is where they were asked about.
		ta.Pin, unpinned = shell.PinDir(ta.WorkingDirectory)
	}
	defer ta.Pin.Close()
	v, rd := r.classifyCall(ta)
	secret, reveal := r.readGate(ta, &v, &rd)
	call := r.newCall(index, ta, v)
	r.emit(r.callEvent(EventProposed, call))

	key := commandKey(ta.Command, ta.WorkingDirectory)
	// Without a sandbox no run is held to anything, so confirmation off
	// skips no question; another program's call that would go unasked is
	// dealt with below (unsandboxed).
	noConfirm := r.noConfirm && (r.a.o.NoSandbox == "" || r.external)
	ap := decide(v, rd, !noConfirm, r.denials.deniedBefore(key))
	if unpinned != nil && ap.Action != actRefuse {
		// A folder that cannot be held (gone, or not a folder) is not run
		// in by its path either, which a link made there meanwhile would
		// lead elsewhere; and nobody is asked about what cannot run.
		ap = approval{Action: actRefuse, Decision: DecisionRefused, By: ByPolicy,
			Why: "Not run: " + unpinned.Error() + ". Run it in a folder that exists, or create the folder first."}
	}
	if secret && ap.Action == actRun && ap.Decision == DecisionAuto {
		// Read-only, but what it reads is private and the output leaves
		// Hark: the confirm tier's treatment.
		ap = approval{Action: actAsk}
		if noConfirm {
			// Nobody says yes to the places it names: the kernel holds
			// it to what it may read unasked.
			ap = approval{Action: actRun, Decision: DecisionUnconfirmedRun, By: ByPolicy}
			reveal = nil
		}
	}
	if r.external && r.a.o.NoSandbox != "" && ap.Action == actRun {
		ap = r.unsandboxed()
	}
	f := callFate{decision: ap.Decision, by: ap.By, rule: rd.Label()}
	switch ap.Action {
	case actRefuse:
		r.m.Refused++
		f.res = notRun(ta, v, ap.Why)
	case actRun:
		if ap.Decision != DecisionAuto && r.trashOffered(ta, v) {
			// Nobody is asked, so nobody can choose the Trash: a plain
			// deletion that a rule or confirmation-off lets through goes
			// to the Trash as Move to Trash would have sent it.
			r.trashUnasked(ctx, ta, ap.Decision, &f)
			break
		}
		f.runIt = true
	case actAsk:
		r.ask(ctx, call, ta, v, rd, &f)
	}
	d := r.callEvent(EventDecided, call)
	d.Decision = f.decision
	r.emit(d)

	switch {
	case f.runIt || f.decision == DecisionTrashed:
		r.denials.ran()
	case f.decision == DecisionNotAsked:
		stop = r.denials.denied(key, false)
	case f.decision == DecisionDenied || f.decision == DecisionTimeout:
		stop = r.denials.denied(key, f.by != ByPolicy)
	}
	if f.runIt {
		if v.Tier != shell.Safe && f.scope == nil {
			// Nobody was asked (a rule, confirmation off): the same
			// reading gives the scope a card would have shown.
			if f.preview == nil && r.a.o.Previewer != nil {
				f.preview = r.a.o.Previewer.Preview(ctx, ta.Command, ta.WorkingDirectory)
			}
			f.scope = r.scopeOf(ta, v, f.preview)
		}
		if f.decision != DecisionApproved {
			reveal = nil // nobody said yes to the places it names
		}
		f.res = r.execute(ctx, call, ta, v, reveal, f.scope)
		r.goFurther(ctx, call, ta, v, reveal, &f)
	}
	r.record(ctx, call, ta, v, &f)
	return f.res, stop
}

// unsandboxed is what becomes of another program's call that would run
// unasked on a machine with no sandbox: its output and whatever it
// changes are that program's doing, and no kernel holds it to anything,
// so the user is asked, read-only commands and rules' allows included.
// A caller that asked not to be asked is refused, saying why and how to
// get the command run.
func (r *run) unsandboxed() approval {
	if !r.noConfirm {
		return approval{Action: actAsk}
	}
	because := r.unaskedBecause
	if because == "" {
		because = "confirmation is off for this program"
	}
	return approval{Action: actRefuse, Decision: DecisionRefused, By: ByPolicy,
		Why: "Not run: this machine has no sandbox (" + r.a.o.NoSandbox + "), so Hark runs a command from another program only after the user says yes to it, " +
			"and nobody was asked because " + because + ". Call it again so that the user is asked, or have the user turn the sandbox on."}
}

// callFate is what became of one call: the decision and who made it, and
// what the audit log records beside the result.
type callFate struct {
	decision, by string
	rule         string // the rule or floor that decided, or the rule an Always allow saved
	denyReason   string
	heardAnswer  string // the words of a spoken answer
	runIt        bool   // run by the executor, as opposed to refused, denied or trashed
	res          shell.Result
	preview      *preview.Preview
	trashed      []string
	scope        *scope.Scope // what the run may change and reach, as its card showed
}

// classifyCall is the policy's verdict on ta and what the user's rules
// make of it.
func (r *run) classifyCall(ta toolArgs) (shell.Verdict, rules.Decision) {
	a := r.a
	// The policy judges the folder the command will really run in; it knows
	// home by name, and the tool arguments arrive resolved to a path.
	// A folder under home is written from ~ too, or `cd .. && rm -rf *`
	// in ~/src would not be seen as the deletion of home it is.
	wd := ta.WorkingDirectory
	if wd == "" {
		wd = "~"
	} else if h := filepath.Clean(a.o.Home); a.o.Home != "" && h != "/" {
		switch rel, err := filepath.Rel(h, filepath.Clean(wd)); {
		case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		case rel == ".":
			wd = "~"
		default:
			wd = "~/" + filepath.ToSlash(rel)
		}
	}
	v := a.o.Classifier.ClassifyIn(ta.Command, wd)
	var rd rules.Decision
	if a.o.Rules != nil {
		rd = a.o.Rules.Decide(ta.Command, ta.WorkingDirectory, v)
	}
	return v, rd
}

// newCall is the call as events show it; its ID is unique in the
// conversation: request, turn and position in the reply.
func (r *run) newCall(index int, ta toolArgs, v shell.Verdict) *Call {
	return &Call{
		ID:               r.c.ID + "-" + strconv.Itoa(len(r.c.Runs)+1) + "-" + strconv.Itoa(r.turn) + "-" + strconv.Itoa(index+1),
		Command:          ta.Command,
		WorkingDirectory: ta.WorkingDirectory,
		Purpose:          ta.Purpose,
		Tier:             v.Tier,
		Reasons:          OrderReasons(v.Reasons),
	}
}

func (r *run) callEvent(kind EventKind, call *Call) Event {
	return Event{Kind: kind, ConversationID: r.c.ID, Turn: r.turn, Call: call}
}

// notRun is the result of a call Hark did not run, msg saying why.
func notRun(ta toolArgs, v shell.Verdict, msg string) shell.Result {
	return shell.Result{Command: ta.Command, WorkingDirectory: ta.WorkingDirectory, Purpose: ta.Purpose,
		Tier: v.Tier, Reasons: v.Reasons, ExitCode: -1, Error: msg}
}

// ask puts call to the Confirmer, with a preview and the Trash where they
// apply, and writes the answer and what it did into f: an approval sets
// runIt (and may save a rule), Move to Trash moves the targets here, and
// anything else leaves a not-run result.
func (r *run) ask(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, rd rules.Decision, f *callFate) {
	r.m.ConfirmationsAsked++
	f.preview = r.preview(ctx, call)
	r.emit(r.callEvent(EventAwaiting, call))
	p := r.pending(call, v, rd)
	p.Preview = shownPreview(f.preview)
	if v.Tier != shell.Safe {
		f.scope = r.scopeOf(ta, v, f.preview)
		p.Scope = f.scope
	}
	p.TrashOffered = r.trashOffered(ta, v)
	p.AfterNo, p.AfterTimeout = r.saidNo, r.saidNo != "" && r.timedOut
	var d Decision
	var notAsked string
	f.decision, f.by, d, notAsked = r.confirm(ctx, p)
	f.heardAnswer = d.Heard
	if notAsked != "" {
		// Nobody was asked, so this is no denial by the user: the result
		// says why and what to do.
		r.denials.notAsked = notAsked
		r.m.NotAsked++
		f.res = notRun(ta, v, notAsked)
		return
	}
	if f.decision == DecisionApproved && !r.stillAsShown(ctx, call, ta, v, &p, f) {
		return
	}
	switch f.decision {
	case DecisionApproved:
		r.m.Approved++
		f.runIt = true
		if d.Rule != nil {
			f.rule = r.saveRule(call, p, *d.Rule)
		}
	case DecisionTrashed:
		r.m.Approved++
		f.res, f.trashed = r.moveToTrash(ctx, ta)
		// What the policy said of the command stays in its result.
		f.res.Tier, f.res.Reasons = v.Tier, v.Reasons
		if f.res.Success {
			r.m.Trashed++
			r.m.trashedNames(f.trashed)
		} else {
			r.m.TrashFailed++
		}
	case DecisionCancelled:
		f.res = notRun(ta, v, msgCancelled)
	case DecisionTimeout:
		r.m.Denied++
		r.m.TimedOut++
		r.saidNo, r.timedOut = ta.Command, true
		f.res = notRun(ta, v, fmt.Sprintf("The user did not answer within %s, so the command was not run. Do not retry it unless the user asks.", r.confirmTimeout))
	default:
		r.m.Denied++
		if f.by != ByPolicy {
			r.saidNo, r.timedOut = ta.Command, false
		}
		if f.denyReason = cleanReason(d.Reason); f.denyReason != "" {
			f.res = notRun(ta, v, msgDeniedWhy+f.denyReason)
		} else {
			f.res = notRun(ta, v, msgDenied)
		}
	}
}

// execute runs call through the Executor and counts it in the metrics,
// hiding what it may not read (hideList); reveal are the places outside
// those its card named and the user let it read.
//
// sc, for a call that is not read-only, is what the kernel holds the run
// to (scopeOf).
func (r *run) execute(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, reveal []string, sc *scope.Scope) shell.Result {
	return r.executeAs(ctx, call, ta, v, reveal, sc, r.a.o.Sandbox)
}

// executeAs is execute in the sandbox mode mode: SandboxOff only for a run
// the user let go without limits (goFurther).
func (r *run) executeAs(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, reveal []string, sc *scope.Scope, mode shell.SandboxMode) shell.Result {
	a := r.a
	r.emit(r.callEvent(EventRunning, call))
	start := a.o.now()
	req := shell.Request{
		Command:          ta.Command,
		WorkingDirectory: ta.WorkingDirectory,
		Purpose:          ta.Purpose,
		Verdict:          v,
		Sandbox:          mode,
		Hide:             r.hideList(ta, sc, reveal),
		Pin:              ta.Pin,
		Scope:            sc,
	}
	res := a.o.Executor.Run(ctx, req)
	elapsed := a.o.now().Sub(start)
	r.m.CommandTimeMs += elapsed.Milliseconds()
	if res.Executed {
		r.m.Commands++
		if res.ExitCode != 0 {
			r.m.Failed++
		}
		// Old records lack these, so they count every command as one
		// that could change something: the safe reading.
		if v.Tier == shell.Safe {
			r.m.ReadOnly++
			if res.ExitCode != 0 {
				r.m.ReadOnlyFailed++
			}
		}
	}
	if res.ExecutionTimeMs == 0 && elapsed >= time.Millisecond {
		res.ExecutionTimeMs = elapsed.Milliseconds()
	}
	return res
}

// record completes f's result, reports it to the UI and appends the call
// to the audit log.
func (r *run) record(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, f *callFate) {
	// The model's stated purpose always travels with the result, whatever
	// the executor filled in.
	f.res.Purpose = ta.Purpose
	if f.res.Command == "" {
		f.res.Command = ta.Command
	}
	f.res.Rule = f.rule
	r.countDeleted(ta, v, f)
	if f.res.Tier == "" {
		// Moved to the Trash instead of run, the result is Hark's own,
		// not the executor's: it still says what the policy made of the
		// command, so the caller knows why it was not simply run.
		f.res.Tier, f.res.Reasons = v.Tier, v.Reasons
	}
	e := r.callEvent(EventResult, call)
	e.Result = &f.res
	r.emit(e)
	r.audit(ctx, ta, v, f)
}

// audit appends the call's entry to the audit log, when there is one.
func (r *run) audit(ctx context.Context, ta toolArgs, v shell.Verdict, f *callFate) {
	a := r.a
	if a.o.Audit == nil {
		return
	}
	res := f.res
	entry := AuditEntry{
		Time: a.o.now(), ConversationID: r.c.ID, Command: ta.Command, WorkingDirectory: ta.WorkingDirectory,
		Purpose: ta.Purpose, Tier: v.Tier, Reasons: v.Reasons, Decision: f.decision, DecidedBy: f.by,
		Executed: res.Executed, DurationMs: res.ExecutionTimeMs, Sandbox: res.Sandbox, TimedOut: res.TimedOut,
		Cancelled: f.runIt && res.Executed && !res.TimedOut && errors.Is(ctx.Err(), context.Canceled),
		Rule:      f.rule, DenyReason: f.denyReason, HeardAnswer: f.heardAnswer,
		Preview: shownPreview(f.preview), Trashed: f.trashed, Client: r.client, Scope: f.scope,
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

// pending is what the Confirmer is shown for call, with the Always allow
// rule it may offer.
func (r *run) pending(call *Call, v shell.Verdict, rd rules.Decision) Pending {
	p := Pending{
		ID: call.ID, ConversationID: r.c.ID, Command: call.Command, WorkingDirectory: call.WorkingDirectory,
		Purpose: call.Purpose, Tier: call.Tier, Reasons: call.Reasons, Client: r.client,
	}
	if rd.Kind == rules.Ask || rd.Floor != "" {
		p.Rule = rd.Why
	}
	p.NoSandbox = r.a.o.NoSandbox != ""
	switch {
	case r.external && p.NoSandbox:
		p.NoProposal = "Always allow is not offered: this machine has no sandbox, so every command from another program is asked"
	case r.secretNoRule:
		p.NoProposal = "Always allow is not offered: it reads outside its folder, and each such read is asked"
	case r.a.o.Rules == nil:
		p.NoProposal = "Always allow is not offered: there is no rules file"
	case rd.Kind == rules.Ask:
		p.NoProposal = "Always allow is not offered: " + rd.Why
	case AnyDestructive(call.Reasons):
		// A rule would allow every later deletion or overwrite by the
		// same program in the folder, past the Trash: each one is asked.
		p.NoProposal = NoProposalDestructive
	default:
		if prop, err := r.a.o.Rules.Propose(call.Command, call.WorkingDirectory, v); err != nil {
			p.NoProposal = err.Error()
		} else {
			p.Proposal = &prop
		}
	}
	return p
}

// saveRule adds the rule an Always allow answer carries, which must be
// the one the user was shown; it returns what the audit log records.
func (r *run) saveRule(call *Call, p Pending, rule rules.Rule) string {
	warn := func(text string) string {
		r.emit(Event{Kind: EventWarning, ConversationID: r.c.ID, Turn: r.turn, Call: call, Text: text, Err: errors.New(text)})
		return ""
	}
	if p.Proposal == nil || !sameRule(*p.Proposal, rule) {
		return warn("the Always allow answer carried a rule that was not the one shown; the command runs once and no rule was saved")
	}
	n, err := r.a.o.Rules.Add(rule)
	if err != nil {
		return warn(err.Error() + "; the command runs once")
	}
	return fmt.Sprintf("added rule %d: %s", n, rule)
}

func sameRule(a, b rules.Rule) bool {
	return a.Kind == b.Kind && a.Program == b.Program && a.Folder == b.Folder &&
		slices.Equal(a.Words, b.Words) && slices.Equal(a.Examples.Match, b.Examples.Match) &&
		slices.Equal(a.Examples.NoMatch, b.Examples.NoMatch)
}

// cleanReason trims a deny reason to one capped paragraph.
func cleanReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxDenyReason {
		s = strings.ToValidUTF8(s[:maxDenyReason], "") + "…"
	}
	return s
}

// preview asks the Previewer what the call would touch, for the approval
// and the audit log. Only a command that will be asked about is previewed:
// the look costs a sandboxed process, and nobody reads it otherwise.
func (r *run) preview(ctx context.Context, call *Call) *preview.Preview {
	if r.a.o.Previewer == nil || r.confirmer == nil {
		return nil
	}
	return r.a.o.Previewer.Preview(ctx, call.Command, call.WorkingDirectory)
}

// confirm asks the Confirmer under the confirmation timeout and maps the
// answer to an audit decision and who made it. Anything but a clear,
// in-time approval is a denial.
func (r *run) confirm(ctx context.Context, p Pending) (decision, by string, _ Decision, notAsked string) {
	if r.confirmer == nil {
		return DecisionDenied, ByPolicy, Decision{}, ""
	}
	cctx, cancel := context.WithTimeout(ctx, r.confirmTimeout)
	defer cancel()
	type answer struct {
		d   Decision
		err error
	}
	// The timeout and cancellation hold even against a Confirmer that does
	// not watch its context: a late answer is dropped.
	answered := make(chan answer, 1)
	go func() {
		p.Deadline = deadlineOf(cctx)
		d, err := r.confirmer.Confirm(cctx, p)
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
	var na *NotAsked
	switch {
	case ctx.Err() != nil || d.By == ByCancel:
		return DecisionCancelled, ByCancel, Decision{}, ""
	case errors.As(err, &na):
		by := na.By
		if by == "" {
			by = ByPolicy
		}
		return DecisionNotAsked, by, Decision{}, na.Why
	case cctx.Err() != nil || d.By == ByTimeout:
		return DecisionTimeout, ByTimeout, Decision{}, ""
	case err == nil && d.Trash && p.TrashOffered:
		return DecisionTrashed, d.By, d, ""
	case err != nil || !d.Approved || d.Trash:
		by := d.By
		if by == "" {
			by = ByPolicy
		}
		// An error is never an answer: a reason only travels with a
		// clear denial.
		if err != nil {
			d.Reason = ""
		}
		return DecisionDenied, by, Decision{Reason: d.Reason, Heard: d.Heard}, ""
	default:
		return DecisionApproved, d.By, Decision{Approved: true, By: d.By, Rule: d.Rule, Heard: d.Heard}, ""
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

// deadlineOf is ctx's deadline, or zero.
func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// NoProposalDestructive is why a deletion or overwrite is never offered
// an Always allow rule.
const NoProposalDestructive = "Always allow is not offered for deletions and overwrites: Hark asks about each one, so it can go to the Trash"

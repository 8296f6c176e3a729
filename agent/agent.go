// Package agent runs Hark's conversations with a local Ollama model. A request
// becomes a loop of model turns in which the model may propose shell commands
// through one tool, execute_terminal_command; every proposal is validated,
// classified by the shell policy, confirmed by the user when it could change
// the machine, run, and answered with the result JSON. The package also keeps
// the local records: conversation history, the audit log of command decisions
// and per-request run metrics.
//
// Nothing here talks to a UI directly: the caller passes a Confirmer that asks
// the user and an OnEvent callback that shows progress, so the menu-bar app and
// `hark ask` share one loop.
package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// ChatClient is the part of Ollama's API the loop needs; *api.Client
// satisfies it, and tests replace it with a scripted fake.
type ChatClient interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Classifier decides the tier of a command run in a working directory (the
// folder matters: `rm -rf *` in the home folder is forbidden, elsewhere it
// needs confirmation); *shell.Policy satisfies it.
type Classifier interface {
	ClassifyIn(command, workingDirectory string) shell.Verdict
}

// Executor runs a classified command; *shell.Runner satisfies it. It must
// stop the command when ctx is cancelled.
type Executor interface {
	Run(ctx context.Context, req shell.Request) shell.Result
}

// Confirmer asks the user whether a confirm-tier command may run. It returns
// when the user answers or ctx ends (the loop puts the confirmation timeout on
// ctx); an error or a cancelled ctx counts as a denial.
type Confirmer interface {
	Confirm(ctx context.Context, p Pending) (Decision, error)
}

// ConfirmerFunc adapts a function to Confirmer.
type ConfirmerFunc func(ctx context.Context, p Pending) (Decision, error)

// Confirm calls f.
func (f ConfirmerFunc) Confirm(ctx context.Context, p Pending) (Decision, error) { return f(ctx, p) }

// Pending is a command waiting for the user's decision. The policy has already
// classified it as confirm-tier, so an approval always leads to a run.
type Pending struct {
	ID               string         // unique per tool call; use it to withdraw a stale prompt
	ConversationID   string         // the conversation the command belongs to
	Command          string         // exactly what will run
	WorkingDirectory string         // absolute, after defaulting to home
	Purpose          string         // checking, executing or verifying, as the model claims
	Tier             shell.Tier     // always shell.Confirm today
	Reasons          []shell.Reason // why the policy wants a confirmation
}

// Decision is the user's answer to a Pending command.
type Decision struct {
	Approved bool
	By       string // one of the By* constants
}

// Who decided. The audit log records these in decidedBy.
const (
	ByPolicy       = "policy"       // safe or forbidden tier, or confirmation switched off
	ByNotification = "notification" // the actionable notification
	ByMenu         = "menu"         // the tray menu
	ByTerminal     = "terminal"     // the y/N prompt of hark ask
	ByTimeout      = "timeout"      // nobody answered within the confirmation timeout
	ByCancel       = "cancel"       // the request was cancelled while waiting
)

// Tool and purpose names the model sees.
const (
	ToolName          = "execute_terminal_command"
	PurposeChecking   = "checking"
	PurposeExecuting  = "executing"
	PurposeVerifying  = "verifying"
	MaxCallsPerReply  = 8
	DefaultModel      = "qwen3:4b"
	DefaultMaxTurns   = 12
	DefaultConfirmTTL = 120 * time.Second
)

// Options configure an Agent. Client, Model, Classifier and Executor are
// required; the zero value of every other field is the safe default.
type Options struct {
	Client     ChatClient
	Model      string     // Ollama model name, e.g. DefaultModel
	Host       string     // shown in error messages, e.g. "http://127.0.0.1:11434"
	Classifier Classifier // usually shell.NewPolicy()
	Executor   Executor   // usually shell.NewRunner(...)
	Confirmer  Confirmer  // nil: confirm-tier commands are never run

	// NoConfirm runs confirm-tier commands without asking (the user switched
	// confirm-before-execute off). Forbidden commands are still refused.
	NoConfirm      bool
	ConfirmTimeout time.Duration     // 0: DefaultConfirmTTL; an unanswered prompt is a denial
	MaxTurns       int               // model turns per request; 0: DefaultMaxTurns
	Sandbox        shell.SandboxMode // "": shell.SandboxAuto
	Think          bool              // let thinking models think (slower); off by default
	KeepAlive      *api.Duration     // nil: Ollama's default; never set it to 0
	ModelOptions   map[string]any    // passed as ChatRequest.Options
	SystemPrompt   string            // "": rendered from assets.SystemPrompt with this machine's facts
	Home           string            // default working directory; "": os.UserHomeDir()

	History *Store    // nil: conversations are not saved
	Audit   *AuditLog // nil: decisions are not logged

	// OnEvent receives progress for a UI. It is called synchronously from the
	// goroutine running the request, in order, so it must return quickly.
	OnEvent func(Event)

	now func() time.Time // tests pin the clock
}

// Agent runs requests. It holds no per-request state, so one Agent may serve
// many conversations, one request at a time per conversation.
type Agent struct {
	o     Options
	tools api.Tools
	facts *Facts // nil when Options.SystemPrompt is fixed
}

// New checks the options and fills defaults.
func New(o Options) (*Agent, error) {
	switch {
	case o.Client == nil:
		return nil, errors.New("agent: Options.Client is required (an Ollama client)")
	case o.Classifier == nil:
		return nil, errors.New("agent: Options.Classifier is required (shell.NewPolicy())")
	case o.Executor == nil:
		return nil, errors.New("agent: Options.Executor is required (shell.NewRunner(...))")
	}
	if o.Model == "" {
		o.Model = DefaultModel
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.ConfirmTimeout <= 0 {
		o.ConfirmTimeout = DefaultConfirmTTL
	}
	if o.Sandbox == "" {
		o.Sandbox = shell.SandboxAuto
	}
	if o.KeepAlive != nil && o.KeepAlive.Duration == 0 {
		// keep_alive 0 unloads the model after every turn, which makes each
		// turn pay the full load time; treat it as "server default".
		o.KeepAlive = nil
	}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("agent: no home folder to run commands in (%v); set HOME", err)
		}
		o.Home = h
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	a := &Agent{o: o, tools: api.Tools{toolSchema()}}
	if o.SystemPrompt == "" {
		// Machine facts are gathered once (sw_vers is a process); the
		// date is filled per request, as an app may run for days.
		f := MachineFacts(o.Home, o.now())
		if _, err := RenderSystemPrompt(f); err != nil {
			return nil, err
		}
		a.facts = &f
	}
	return a, nil
}

// systemPrompt is the system message for a request starting at now.
func (a *Agent) systemPrompt(now time.Time) string {
	if a.facts == nil {
		return a.o.SystemPrompt
	}
	f := *a.facts
	f.Date = now.Format(dateLayout)
	p, err := RenderSystemPrompt(f)
	if err != nil { // checked in New; the template cannot change since
		return a.o.SystemPrompt
	}
	return p
}

// Model is the model the agent talks to.
func (a *Agent) Model() string { return a.o.Model }

// EventKind tells what an Event reports.
type EventKind string

const (
	EventText      EventKind = "text"      // Text: a chunk of the model's words
	EventProposed  EventKind = "proposed"  // Call: a command the model proposed, classified
	EventAwaiting  EventKind = "awaiting"  // Call: waiting for the Confirmer
	EventDecided   EventKind = "decided"   // Call, Decision: how the command was decided
	EventRunning   EventKind = "running"   // Call: the command started
	EventResult    EventKind = "result"    // Call, Result: what the command produced (or why it did not run)
	EventInvalid   EventKind = "invalid"   // Text: a tool call that could not be used, and why
	EventFinal     EventKind = "final"     // Text: the final answer of the request
	EventError     EventKind = "error"     // Err, Text: the request stopped on an error
	EventWarning   EventKind = "warning"   // Err, Text: a record could not be written; the request goes on
	EventCancelled EventKind = "cancelled" // the request was cancelled
)

// Event is one step of a request, for a UI.
type Event struct {
	Kind           EventKind
	ConversationID string
	Turn           int           // 1-based model turn within the request
	Text           string        // text chunk, final answer, or error message
	Call           *Call         // the command concerned, for command events
	Decision       string        // audit decision for EventDecided (DecisionAuto, …)
	Result         *shell.Result // for EventResult
	Err            error         // for EventError
}

// Call is one validated tool call after classification.
type Call struct {
	ID               string // same as Pending.ID
	Command          string
	WorkingDirectory string
	Purpose          string
	Tier             shell.Tier
	Reasons          []shell.Reason
}

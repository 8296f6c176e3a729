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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/scope"
	"github.com/hark-sh/hark/shell/trash"
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

// Previewer says what a command would touch before anyone is asked about
// it; *preview.Previewer satisfies it. It returns nil when the command has
// nothing to preview, and must answer quickly: its own time bound, or
// ctx's end, gives a Preview whose Status is preview.Unavailable.
type Previewer interface {
	Preview(ctx context.Context, command, workingDirectory string) *preview.Preview
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
	Tier             shell.Tier     // shell.Confirm, or shell.Safe when an always-ask rule asks
	Reasons          []shell.Reason // why the policy wants a confirmation
	Deadline         time.Time      // when an unanswered approval becomes a denial; zero: none

	// Proposal is the narrowest "always allow" rule for this command, to
	// show before it is saved; nil when Always allow is not offered, and
	// NoProposal then says why (forbidden, redirections, wrappers …).
	Proposal   *rules.Rule
	NoProposal string
	// Rule says in words which of the user's rules, or the floor, made
	// this command ask ("your rule 2 (always ask for cat secrets.txt) asks
	// before it runs"); "" when the policy alone did.
	Rule string
	// Preview is what the command would touch (files it deletes, moves,
	// overwrites…), looked at in the read-only sandbox; nil when the
	// command names nothing a preview covers or no Previewer is set.
	Preview *preview.Preview
	// Scope is what the command may change and reach once approved: the
	// kernel holds the run to it, and every surface that asks shows it
	// (Scope.Lines) with the preview.
	Scope *scope.Scope `json:",omitempty"`
	// Further, on a second question after a run the kernel stopped at the
	// edge of its scope, says what it was refused and what is asked now;
	// Unlimited says the answer lets it run without limits. Neither can
	// be answered by voice.
	Further   string `json:",omitempty"`
	Unlimited bool   `json:",omitempty"`
	// NoSandbox: this machine has no sandbox (Options.NoSandbox), so the
	// command runs without limits once approved; every surface says so
	// first, in place of what Scope would hold it to.
	NoSandbox bool `json:",omitempty"`
	// Heard is the transcript of the spoken request the command came
	// from, so a misheard request shows where it matters; "" for typed
	// requests. The agent does not know how a request arrived: the
	// caller's Confirmer fills it in.
	Heard string
	// TrashOffered: the command is a plain deletion under home, so the
	// user may answer Move to Trash instead (offer it as the default).
	TrashOffered bool
	// AfterNo is the command the user denied earlier in this request, when
	// there was one: this proposal is the model trying again after a no,
	// and the approval says so.
	AfterNo string
	// AfterTimeout: the earlier command in AfterNo was not denied but
	// timed out unanswered, and the approval says that instead.
	AfterTimeout bool `json:",omitempty"`
	// Client is the program that asked over MCP ("Claude Desktop"), for
	// the approval to name it; "" for the local model's own calls.
	Client string `json:",omitempty"`
	// HeardDoubt, for a spoken request, says which words whisper was
	// unsure of that end up in what the command deletes or overwrites
	// ("Hark was not sure it heard “bills”, and the command deletes it");
	// every surface shows it first. The caller's Confirmer fills it in.
	HeardDoubt string
	// SayAgain: the request was spoken and can be heard again, so the
	// approval offers Say it again (answered with Decision.Again). The
	// caller's Confirmer sets it; it never travels as JSON, so no other
	// program can offer it.
	SayAgain bool `json:"-"`
}

// Decision is the user's answer to a Pending command. The menu-bar app
// uses this type end to end (its menu, notifications and event loop), so a
// field added here reaches every place that answers.
type Decision struct {
	// PendingID is the Pending.ID answered, for a caller that routes
	// answers from several places; the loop does not read it.
	PendingID string
	Approved  bool
	By        string // one of the By* constants
	// Rule, with Approved, answers Always allow: it must be the Pending's
	// Proposal, which is saved to the rules file before the command runs.
	Rule *rules.Rule
	// Reason, with a denial, is what the user said about it; the model
	// gets "The user denied this command: REASON" and goes on.
	Reason string
	// Trash answers a Pending with TrashOffered: Hark moves the command's
	// targets to the Trash itself and the command never runs. Approved
	// stays false; Trash on a Pending that did not offer it is a denial.
	Trash bool
	// Heard is the transcript of a spoken answer (By "voice"), so the
	// audit log shows the words the decision was read from.
	Heard string
	// Again answers Say it again on a Pending with SayAgain: drop the
	// command and listen for the request again. The Confirmer that
	// offered it turns it into a cancel of its own; the loop never gets it.
	Again bool `json:"-"`
}

// Who decided. The audit log records these in decidedBy.
const (
	ByPolicy       = "policy"       // safe or forbidden tier, or confirmation switched off
	ByNotification = "notification" // the actionable notification
	ByMenu         = "menu"         // the tray menu
	ByTerminal     = "terminal"     // the y/N prompt of hark ask
	ByTimeout      = "timeout"      // nobody answered within the confirmation timeout
	ByNoTerminal   = "no-terminal"  // hark ask had no terminal to ask at: nobody was asked
	ByCancel       = "cancel"       // the request was cancelled while waiting
	ByRule         = "rule"         // one of the user's rules in rules.json
	ByDenial       = "denial"       // the user denied the same command earlier in the request
	ByVoice        = "voice"        // a spoken answer while the approval waited (Decision.Heard has the words)
)

// Tool and purpose names the model sees.
const (
	ToolName         = "execute_terminal_command"
	PurposeChecking  = "checking"
	PurposeExecuting = "executing"
	PurposeVerifying = "verifying"
	PurposeDefault   = PurposeExecuting // when the model gives none; only a label
	MaxCallsPerReply = 8
	// DefaultModel calls tools without thinking. The plain qwen3:4b tag
	// now points at a thinking-only build that ignores think:false
	// (ollama#12022, #12438); the 2507 instruct build is its non-thinking
	// sibling (ollama.com/library/qwen3/tags).
	DefaultModel      = "qwen3:4b-instruct-2507-q4_K_M"
	DefaultKeepAlive  = 30 * time.Minute
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
	Previewer  Previewer  // nil: approvals show no preview

	// NoConfirm runs confirm-tier commands without asking (the user switched
	// confirm-before-execute off). Forbidden commands are still refused.
	NoConfirm      bool
	ConfirmTimeout time.Duration     // 0: DefaultConfirmTTL; an unanswered prompt is a denial
	MaxTurns       int               // model turns per request; 0: DefaultMaxTurns
	Sandbox        shell.SandboxMode // "": shell.SandboxAuto
	Think          bool              // let thinking models think (slower); off by default
	KeepAlive      *api.Duration     // nil: DefaultKeepAlive; never set it to 0
	ModelOptions   map[string]any    // passed as ChatRequest.Options; num_ctx and num_predict come from the fields below

	// NoSandbox, when set, says why commands here run with no sandbox at
	// all and what would give them one ("the sandbox is off in settings
	// …", or the system's reason). Nothing the kernel would hold then
	// holds, so confirmation off applies to nothing, every call from
	// another program is asked (read-only ones too, and whatever a rule
	// says), one that asked not to be asked is refused, and every
	// approval says the command runs without limits (Pending.NoSandbox).
	NoSandbox string

	// ContextLength is the context window asked of Ollama (options.num_ctx)
	// and the budget every request is fitted into; 0: DefaultContextLength.
	ContextLength int
	// NumPredict bounds the tokens of one reply (options.num_predict), so a
	// model stuck in a loop stops; 0: DefaultNumPredict.
	NumPredict int
	// ToolOutputLimit caps the bytes of stdout and of stderr each result
	// sends to the model (head and tail kept); the UI and the audit log get
	// the whole result. 0: DefaultToolOutputLimit.
	ToolOutputLimit int
	// CommandTimeout and OutputLimit are the runner's limits, told to the
	// model in the system prompt; 0: the runner's defaults.
	CommandTimeout time.Duration
	OutputLimit    int
	SystemPrompt   string // "": rendered from assets.SystemPrompt with this machine's facts
	Home           string // default working directory; "": os.UserHomeDir()

	History *Store    // nil: conversations are not saved
	Audit   *AuditLog // nil: decisions are not logged
	// Rules are the user's always-allow, always-ask and never rules; nil:
	// none, and Always allow is not offered.
	Rules *rules.Store
	// Trash, when set, lets plain deletions under home be answered with
	// Move to Trash; nil: never offered.
	Trash *trash.Bin

	// AllowCloudModels lets the agent use a model that Ollama serves from
	// another machine (a cloud model: a :cloud or -cloud tag, or one whose
	// /api/show names a remote_host). Off, such a model is refused before
	// any chat request, preloads included, because Ollama would forward
	// the system prompt, every request and every command's output there.
	AllowCloudModels bool
	// OnEvent receives progress for a UI. It is called synchronously from the
	// goroutine running the request, in order, so it must return quickly.
	OnEvent func(Event)

	now func() time.Time // tests pin the clock
}

// Agent runs requests. It holds no per-request state, so one Agent may serve
// many conversations, one request at a time per conversation.
type Agent struct {
	o            Options
	tools        api.Tools
	toolTokens   int            // estimate of the tool schema's share of the prompt
	modelOptions map[string]any // ModelOptions with num_ctx and num_predict
	facts        *Facts         // nil when Options.SystemPrompt is fixed
	warmUntil    atomic.Int64   // unix nanoseconds until which the model is believed loaded

	localMu sync.Mutex
	local   bool // the model was shown to be served here; checked once
}

// versioner is the part of *api.Client that tells Ollama's version.
type versioner interface {
	Version(ctx context.Context) (string, error)
}

// ensureFresh refuses an Ollama older than MinVersion: it would cut an
// overflowing conversation silently (no truncate field) where Hark relies
// on a refusal. Asked before every request, one local GET: an update is
// seen without a restart, and so is a downgrade, which a Hark that had
// checked once went on answering through. A version that cannot be read
// is left to the chat to report.
func (a *Agent) ensureFresh(ctx context.Context) error {
	if a.runtimeOf() != nil {
		return nil
	}
	vc, ok := a.o.Client.(versioner)
	if !ok {
		return nil
	}
	v, err := vc.Version(ctx)
	if err != nil {
		return nil
	}
	if VersionTooOld(v) {
		return tooOldError(a.o.Host, v)
	}
	return nil
}

// shower is the part of *api.Client that tells where a model is served;
// a ChatClient without it (a test fake, an OpenAI-compatible client) is
// judged by the model's name alone.
type shower interface {
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// ensureLocal refuses an Ollama older than MinVersion (ensureFresh), and a
// model served from another machine unless the user allowed cloud models. The name is judged at once; /api/show is asked
// once per Agent, and a show that fails is left to the chat to report.
func (a *Agent) ensureLocal(ctx context.Context) error {
	if err := a.ensureFresh(ctx); err != nil {
		return err
	}
	if a.o.AllowCloudModels {
		return nil
	}
	if rt := a.runtimeOf(); rt != nil {
		// An OpenAI-compatible server serves what it has; only where it
		// runs tells whether requests leave the machine.
		if remote := rt.RemoteHost(); remote != "" {
			return serverCloudError(rt.RuntimeName(), a.o.Host, a.o.Model, remote)
		}
		return nil
	}
	if remote := RemoteHost(a.o.Model, nil); remote != "" {
		return cloudError(a.o.Host, a.o.Model, remote)
	}
	a.localMu.Lock()
	defer a.localMu.Unlock()
	if a.local {
		return nil
	}
	sc, ok := a.o.Client.(shower)
	if !ok {
		return nil
	}
	show, err := sc.Show(ctx, &api.ShowRequest{Model: a.o.Model})
	if err != nil {
		return nil
	}
	if remote := RemoteHost(a.o.Model, show); remote != "" {
		return cloudError(a.o.Host, a.o.Model, remote)
	}
	a.local = true
	return nil
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
	if o.KeepAlive == nil || o.KeepAlive.Duration == 0 {
		// keep_alive 0 unloads the model after every turn, which makes each
		// turn pay the full load time; Ollama's own 5 minutes is shorter
		// than a pause between two spoken requests.
		o.KeepAlive = &api.Duration{Duration: DefaultKeepAlive}
	}
	if o.ContextLength <= 0 {
		o.ContextLength = DefaultContextLength
	}
	if o.NumPredict <= 0 {
		o.NumPredict = DefaultNumPredict
	}
	if o.ToolOutputLimit <= 0 {
		o.ToolOutputLimit = DefaultToolOutputLimit
	}
	if o.ContextLength-o.NumPredict < minPromptBudget {
		return nil, fmt.Errorf("agent: contextLength %d leaves no room for a prompt after numPredict %d; raise contextLength", o.ContextLength, o.NumPredict)
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
	a := &Agent{o: o, tools: api.Tools{toolSchema()}, modelOptions: map[string]any{}}
	for k, v := range o.ModelOptions {
		a.modelOptions[k] = v
	}
	a.modelOptions["num_ctx"] = o.ContextLength
	a.modelOptions["num_predict"] = o.NumPredict
	if b, err := json.Marshal(a.tools); err == nil {
		a.toolTokens = estimateTokens(string(b))
	}
	if o.SystemPrompt == "" {
		// Machine facts are gathered once (sw_vers is a process); the
		// date is filled per request, as an app may run for days.
		f := MachineFacts(o.Home, o.now())
		f.Timeout = o.CommandTimeout
		if f.Timeout <= 0 {
			f.Timeout = shell.DefaultTimeout
		}
		f.OutputCap = o.ToolOutputLimit
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
	EventText      EventKind = "text"      // Text: a chunk of the model's words; Reset: first withdraw this turn's earlier chunks (they were reasoning)
	EventLoading   EventKind = "loading"   // Text: the model may be loading; shown until the first chunk
	EventThinking  EventKind = "thinking"  // Text: the model is thinking (once per turn); its reasoning is never the answer
	EventRetry     EventKind = "retry"     // Text: the model's reply was unusable and it gets one corrective turn
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
	Reset          bool          // EventText: withdraw the text shown earlier in this turn
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

// Preload asks Ollama to load the model now, with the same context size a
// request will use (a different num_ctx would load it again), so loading
// overlaps the user's speech and its transcription. The server answers a
// chat without messages with done_reason "load" once the model is in
// memory. Errors are for logs: the request that follows reports them.
//
// It always asks, even when the model was used recently: the server may
// have unloaded it for another model, and a loaded model answers at once.
func (a *Agent) Preload(ctx context.Context) error {
	if err := a.ensureLocal(ctx); err != nil {
		return err
	}
	if a.runtimeOf() != nil {
		// OpenAI-compatible servers have no load endpoint: LM Studio and
		// mlx-lm load on the first chat, llama-server at its start. The
		// model is not marked warm, so the first turn says "loading
		// model…" until its first word, as for a cold Ollama.
		return nil
	}
	stream := false
	err := a.o.Client.Chat(ctx, &api.ChatRequest{Model: a.o.Model, Stream: &stream, KeepAlive: a.o.KeepAlive, Options: a.modelOptions},
		func(api.ChatResponse) error { return nil })
	if err != nil {
		return a.classify(ctx, err)
	}
	a.markWarm()
	return nil
}

// warm says whether the model was used recently enough to be in memory.
func (a *Agent) warm() bool { return a.o.now().UnixNano() < a.warmUntil.Load() }

func (a *Agent) markWarm() {
	a.warmUntil.Store(a.o.now().Add(a.o.KeepAlive.Duration).UnixNano())
}

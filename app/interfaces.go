package app

import (
	"context"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech"
)

// This file declares what the core consumes. The adapters in app/tray,
// app/hotkey and app/desktop, the voice packages and the agent satisfy these
// interfaces; cmd/hark wires them into Options. Every method may be called
// from a goroutine other than the one that created the adapter.

// Recorder captures the microphone. Start must return quickly (the user is
// already speaking); Stop keeps recording for the configured tail, then
// returns everything captured since Start. After Stop the Recorder may be
// started again. Cancelling the context given to Start abandons the
// recording; the core still calls Stop to release the device.
type Recorder interface {
	Start(ctx context.Context) error
	Stop() (speech.Audio, error)
}

// Transcriber turns a recording into text. It must honour ctx (Cancel in the
// menu aborts a running transcription). An empty string means nothing was
// said.
type Transcriber interface {
	Transcribe(ctx context.Context, a speech.Audio) (string, error)
}

// Warmer is implemented by a Transcriber that can load its model ahead of
// the first request. Run calls Warm once in the background at startup; an
// error shows in the status line.
type Warmer interface {
	Warm(ctx context.Context) error
}

// Notifier posts an ordinary notification (final answers and errors). It
// should return promptly; the core calls it off the event loop.
type Notifier interface {
	Notify(title, body string) error
}

// Approver posts actionable notifications for commands waiting for approval.
//
// Ask shows p with Approve and Deny actions and should return once the
// notification is posted, not when it is answered; the core calls it on a
// goroutine of its own, so a fallback that must block (a modal dialog) may,
// as long as Withdraw, called concurrently, closes it. When the user acts on
// it, the adapter calls answer exactly once with Approved set and By =
// ByNotification; if the user dismisses it without choosing, the adapter
// does nothing (the menu entry and the timeout still decide). answer never
// blocks for long and may be called from any goroutine; calls after
// Withdraw are harmless and ignored by the core.
//
// Withdraw closes the notification for pending ID id (the answer came from
// somewhere else, or it timed out). Withdrawing an unknown or already
// closed notification is not an error.
//
// Actions reports whether the notification system can show Approve/Deny
// buttons at all; when it cannot, the status line tells the user to approve
// from the menu, and Ask may post a plain notification instead.
type Approver interface {
	Ask(p Pending, answer func(Decision)) error
	Withdraw(id string) error
	Actions() bool
}

// MenuRenderer shows a Menu in the tray. The core calls Render from its
// event loop every time the menu changes (streamed text at most 30 times a
// second), always with a complete model; the adapter diffs by MenuItem.ID or
// rebuilds, and must not block on the user. Clicks go back to the core as
// MenuClick{ID} through App.Post; a checkbox is not toggled by the adapter,
// the next Render carries its new state.
type MenuRenderer interface {
	Render(m Menu)
}

// LoginItem starts Hark when the user logs in (a LaunchAgent on macOS, an
// autostart entry on Linux); bundle.DefaultLoginItem backs it.
type LoginItem interface {
	Enabled() (bool, error)
	SetEnabled(on bool) error
}

// Opener opens a file with the desktop's default application (`open` on
// macOS, `xdg-open` on Linux). ExecOpener is the real one.
type Opener interface {
	Open(path string) error
}

// Prompter asks the user to type a request in a native dialog. ok is false
// when the user cancelled. When no prompt tool exists Options.Prompter is
// nil and "Type a request…" is hidden; DetectPrompter finds the real one.
type Prompter interface {
	Prompt(ctx context.Context, title, message string) (text string, ok bool, err error)
}

// Agent runs one spoken or typed request as part of the current
// conversation. Run blocks until the request is finished and returns the
// final answer. It must honour ctx (HTTP streaming, an open confirmation and
// a running command all stop on cancel), ask c before running anything that
// needs approval (when r.ConfirmBeforeExecute is true), and report progress
// through onEvent, which is cheap and safe to call from any goroutine.
// NewConversation forgets the context so the next Run starts afresh.
type Agent interface {
	Run(ctx context.Context, r Request, c Confirmer, onEvent func(AgentEvent)) (answer string, err error)
	NewConversation()
}

// Preloader is implemented by an Agent that can load its model ahead of a
// request. The core calls Preload when the hotkey goes down, so the model
// loads while the user speaks and whisper transcribes; errors are left to
// the request that follows.
type Preloader interface {
	Preload(ctx context.Context) error
}

// Request is one thing the user asked for.
type Request struct {
	Text                 string
	ConfirmBeforeExecute bool
	// Source says how the request arrived: "voice", "typed" or "socket".
	Source string
}

// Confirmer decides whether a pending command may run. The core's
// implementation asks through the menu and an Approver at once; the first
// answer wins. A denial is a Decision with Approved false, not an error; the
// error is only for a core that has shut down.
type Confirmer interface {
	Confirm(ctx context.Context, p Pending) (Decision, error)
}

// History lists past conversations and renders one as readable text for
// "Recent conversations".
type History interface {
	Recent(n int) ([]ConversationSummary, error)
	Transcript(id string) (string, error)
}

// ConversationSummary is one entry of the Recent conversations submenu:
// the agent's own summary of a saved conversation, so nothing is copied
// field by field between the two.
type ConversationSummary = agent.Summary

// Pending is a command waiting for the user's approval, as the agent
// describes it; the core replaces ID with one unique while the app runs.
type Pending = agent.Pending

// Who decided about a pending command (Decision.By).
const (
	ByNotification = "notification"
	ByMenu         = "menu"
	ByTimeout      = "timeout"
	ByCancel       = "cancel"
)

// AgentEventKind says what an AgentEvent reports.
type AgentEventKind string

// The kinds of agent progress the core shows.
const (
	AgentText     AgentEventKind = "text"     // Text: a streamed chunk of the model's words
	AgentProposed AgentEventKind = "proposed" // Command, Tier, Reasons, Purpose: a tool call
	AgentAwaiting AgentEventKind = "awaiting" // Command: waiting for approval
	AgentRunning  AgentEventKind = "running"  // Command: executing
	AgentResult   AgentEventKind = "result"   // Command, ExitCode, Text (error if any)
	AgentAnswer   AgentEventKind = "answer"   // Text: the final answer
	AgentError    AgentEventKind = "error"    // Text: what went wrong
	AgentStatus   AgentEventKind = "status"   // Text: "loading model…", "thinking…": shown until the next event
)

// AgentEvent is one piece of progress from Agent.Run.
type AgentEvent struct {
	Kind     AgentEventKind
	Text     string
	Command  string
	Purpose  string
	Tier     shell.Tier
	Reasons  []shell.Reason
	ExitCode int
	Reset    bool // AgentText: drop the text streamed so far (it was the model's reasoning)
}

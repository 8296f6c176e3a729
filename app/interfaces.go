package app

import (
	"context"

	"github.com/hark-sh/hark/agent"
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

// KeyedNotifier is a Notifier that can replace and withdraw what it
// posted: a notification about a state (a settings error) goes away when
// the state is over, so the desktop's list does not keep saying it.
type KeyedNotifier interface {
	NotifyKey(key, title, body string) error
	CloseKey(key string) error
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

// DocumentOpener is an Opener that can open a file to read with the
// desktop's own application only, never an editor in a terminal
// (ExecOpener.OpenDocument); Problems… and the audit text use it.
type DocumentOpener interface {
	OpenDocument(path string) error
}

// TextViewer shows a text file in a window that wraps its lines and
// scrolls, and returns once the window is open or closed; an error means
// it could not show it, and the caller falls back to the Opener.
type TextViewer interface {
	ShowText(ctx context.Context, title, path string) error
}

// Prompter asks the user to type a request, or the reason for a denial:
// in a native dialog (desktop.ExecPrompter), or in a terminal window whose
// `hark send` delivers the text over the control socket itself
// (desktop.TerminalPrompter: a request as a SendRequest, a reason as a
// DenyRequest naming the approval). ok is false when the user cancelled or
// the text went the other way; the core then does nothing, and an approval
// whose reason prompt was cancelled keeps waiting. When neither exists
// Options.Prompter is nil and both entries are hidden.
type Prompter interface {
	Prompt(ctx context.Context, title, message string) (text string, ok bool, err error)
	// Reason asks why the approval pendingID is denied. It is its own
	// prompt, never the request prompt: a reason typed there must deny
	// that approval, not arrive as a new request.
	Reason(ctx context.Context, pendingID, title, message string) (text string, ok bool, err error)
}

// Agent runs one spoken or typed request as part of conv, which the core
// owns: it keeps the conversation a follow-up continues (the rule is
// agent.ConversationFor) and drops it on New conversation. RunWith blocks until the request is finished; it must
// honour ctx (HTTP streaming, an open confirmation and a running command
// all stop on cancel), ask o.Confirmer before running anything that needs
// approval (unless *o.NoConfirm), and report progress through o.OnEvent.
// *agent.Agent satisfies it as it is.
type Agent interface {
	RunWith(ctx context.Context, conv *agent.Conversation, request string, o agent.RequestOptions) (agent.Outcome, error)
}

// Preloader is implemented by an Agent that can load its model ahead of a
// request (*agent.Agent does). The core calls Preload when the hotkey goes
// down, so the model loads while the user speaks and whisper transcribes;
// errors are left to the request that follows.
type Preloader interface {
	Preload(ctx context.Context) error
}

// History is where conversations are kept, for "Recent conversations":
// List gives them newest first, Load reads one to render it with
// agent.Transcript. *agent.Store satisfies it as it is.
type History interface {
	List() ([]agent.Summary, error)
	Load(id string) (*agent.Conversation, error)
}

// Pending is a command waiting for the user's approval, as the agent
// describes it; the core replaces ID with one unique while the app runs.
type Pending = agent.Pending

// Decision is an answer about a pending command, as the agent takes it:
// the Approver's answer callback and the menu build one, and the core's
// Confirmer returns it. PendingID names the Pending it answers.
type Decision = agent.Decision

// Who decided about a pending command (Decision.By).
const (
	ByNotification = agent.ByNotification
	ByMenu         = agent.ByMenu
	ByTimeout      = agent.ByTimeout
	ByCancel       = agent.ByCancel
)

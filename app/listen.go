package app

import "context"

// ListenAction is what `hark listen` asks of the app: the hotkey pressed
// from outside, by a keyboard shortcut the desktop binds, a script or the
// GlobalShortcuts portal's "cancel".
type ListenAction string

// The actions of `hark listen`.
const (
	ListenTap    ListenAction = "tap"    // start listening, or stop and send when listening: a tap of the hotkey
	ListenStart  ListenAction = "start"  // start listening (already listening is fine)
	ListenStop   ListenAction = "stop"   // stop listening and transcribe
	ListenCancel ListenAction = "cancel" // stop whatever the request is doing, as Cancel in the menu does
)

// ListenRequest is one `hark listen`. The core answers on Reply exactly
// once (Reply must have room for one value), at once: OK when it did what
// was asked, else Error in the words the menu uses.
type ListenRequest struct {
	Action ListenAction
	Reply  chan<- SendReply
}

func (ListenRequest) isEvent() {}

// Why `hark listen` was refused, in the menu's words.
const (
	notListening   = "Hark is not listening; run  hark listen  (or press the hotkey) to start"
	nothingToStop  = "nothing to cancel: Hark is idle"
	busyWithOther  = "Hark is busy with another request; wait for it to finish or choose Cancel in the menu, then try again"
	listenQuitting = "Hark is quitting; start it again with `hark`"
)

func (a *App) listenRequest(ctx context.Context, r ListenRequest) {
	refuse := func(why string) { r.Reply <- SendReply{Error: why} }
	switch r.Action {
	case ListenTap, ListenStart, ListenStop:
		if a.listening() {
			if r.Action != ListenStart {
				a.stopRecording()
			}
			r.Reply <- SendReply{OK: true}
			return
		}
		if r.Action == ListenStop {
			refuse(notListening)
			return
		}
		if a.state.Busy() {
			a.busyNote()
			refuse(busyWithOther)
			return
		}
		if why := a.voiceUnavailable(); why != "" {
			a.startVoice(ctx) // says so where the user looks, as a key press does
			refuse(why)
			return
		}
		a.startVoice(ctx)
		// A recording started from outside has no key to hold: it runs
		// until the next tap or stop, as a latched tap does.
		r.Reply <- SendReply{OK: true}
	case ListenCancel:
		if a.turn == nil || a.turn.cancelling {
			refuse(nothingToStop)
			return
		}
		a.cancel()
		r.Reply <- SendReply{OK: true}
	default:
		refuse("unknown listen action " + string(r.Action) + "; use tap, start, stop or cancel")
	}
}

// voiceUnavailable says why voice input cannot start, or "".
func (a *App) voiceUnavailable() string {
	if a.o.Recorder != nil && a.o.Transcriber != nil {
		return ""
	}
	if p, ok := a.problems["voice"]; ok && p.Detail != "" {
		return "voice input is not available: " + p.Detail
	}
	return "voice input is not available — use Type a request… or hark send"
}

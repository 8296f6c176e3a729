package app

import "time"

// Event is one input to the event loop. Adapters send the exported variants
// through App.Post: the hotkey sends KeyDown/KeyUp, the tray MenuClick, the
// control socket SendRequest, the wiring Problem and Quit. The loop also
// receives private events from its own turn goroutines.
type Event interface{ isEvent() }

// KeyDown is the hotkey going down (auto-repeat already debounced by the
// adapter). At is when the key moved (hotkey.Event.At); zero means now.
// What a press means depends on settings.HotkeyMode.
type KeyDown struct{ At time.Time }

// KeyUp is the hotkey being released; At as for KeyDown. In hybrid mode a
// release sooner than settings.TapThreshold after its press keeps
// listening until the next press.
type KeyUp struct{ At time.Time }

// MenuClick is a click on the menu item with this ID (MenuItem.ID).
type MenuClick struct{ ID string }

// SendRequest is text handed over by `hark send` as if it had been spoken.
// The core answers on Reply exactly once (Reply must have room for one
// value): at once when Wait is false (accepted or refused), else when the
// run ends.
type SendRequest struct {
	Text  string
	Wait  bool
	Reply chan<- SendReply
}

// DenyRequest denies the open approval PendingID with Reason, as "Deny and
// say why…" does; `hark send --deny-why`, which that entry opens in a
// terminal where no dialog tool exists, sends it. The core answers on
// Reply (room for one) at once: OK, or that the approval no longer waits.
type DenyRequest struct {
	PendingID string
	Reason    string
	Reply     chan<- SendReply
}

// SendReply is the core's answer to a SendRequest.
type SendReply struct {
	OK     bool   `json:"ok"`
	Answer string `json:"answer,omitempty"` // the final answer (Wait only)
	Error  string `json:"error,omitempty"`  // what went wrong and what to do
	// Decision answers an approval asked over the control socket
	// (ApprovalRequest): the user's answer, or a timeout or cancel.
	Decision *Decision `json:"decision,omitempty"`
}

// Problem reports a condition that keeps Hark from working fully, shown in
// the status line while idle (e.g. Source "hotkey": "no X display — use
// Type a request…"). An empty Message clears the problem from Source.
type Problem struct {
	Source  string
	Message string
	// Title is the short menu row ("Ollama not running"); empty: the
	// source's usual title.
	Title string
}

// Quit ends Run, cancelling any turn first.
type Quit struct{}

func (KeyDown) isEvent()     {}
func (KeyUp) isEvent()       {}
func (MenuClick) isEvent()   {}
func (SendRequest) isEvent() {}
func (DenyRequest) isEvent() {}
func (Problem) isEvent()     {}
func (Quit) isEvent()        {}

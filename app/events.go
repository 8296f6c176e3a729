package app

// Event is one input to the event loop. Adapters send the exported variants
// through App.Post: the hotkey sends KeyDown/KeyUp, the tray MenuClick, the
// control socket SendRequest, the wiring Problem and Quit. The loop also
// receives private events from its own turn goroutines.
type Event interface{ isEvent() }

// KeyDown is the push-to-talk hotkey going down (auto-repeat already
// debounced by the adapter).
type KeyDown struct{}

// KeyUp is the push-to-talk hotkey being released.
type KeyUp struct{}

// MenuClick is a click on the menu item with this ID (MenuItem.ID).
type MenuClick struct{ ID string }

// Decision is an answer about a pending command. It is both an event (from
// the Approver's answer callback, or built by the core from a menu click)
// and the result of Confirmer.Confirm.
type Decision struct {
	PendingID string
	Approved  bool   // the command may run as written
	By        string // ByNotification, ByMenu, ByTimeout or ByCancel
	// Trash: Move to Trash instead of the deletion (Pending.TrashOffered);
	// the command does not run.
	Trash bool
}

// SendRequest is text handed over by `hark send` as if it had been spoken.
// The core answers on Reply exactly once (Reply must have room for one
// value): at once when Wait is false (accepted or refused), else when the
// run ends.
type SendRequest struct {
	Text  string
	Wait  bool
	Reply chan<- SendReply
}

// SendReply is the core's answer to a SendRequest.
type SendReply struct {
	OK     bool   `json:"ok"`
	Answer string `json:"answer,omitempty"` // the final answer (Wait only)
	Error  string `json:"error,omitempty"`  // what went wrong and what to do
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
func (Decision) isEvent()    {}
func (SendRequest) isEvent() {}
func (Problem) isEvent()     {}
func (Quit) isEvent()        {}

package app

// Menu is the whole tray menu at one moment: what the tray adapter renders.
// It is built from the core's state by a pure function, so the same state
// always gives the same menu.
type Menu struct {
	// Icon names the icon set for the state: "idle", "listening", "busy",
	// "approval", "error", "autorun" (confirmation is off) or "degraded"
	// (a part the hotkey needs is missing); see assets/icons.
	Icon string
	// Tooltip is a one-line summary for the icon's hover text.
	Tooltip string
	// Title is short text the adapter may show beside the icon (macOS):
	// streamed words while the model speaks, else empty.
	Title string
	Items []MenuItem
}

// ItemKind is how a MenuItem looks and behaves.
type ItemKind int

const (
	// ItemLabel is text that cannot be clicked (status, command lines).
	ItemLabel ItemKind = iota
	// ItemAction is a clickable entry.
	ItemAction
	// ItemCheckbox is a clickable entry with a check mark (Checked).
	ItemCheckbox
	// ItemSeparator is a divider line.
	ItemSeparator
	// ItemSubmenu opens Children.
	ItemSubmenu
	// ItemText is text to read that does nothing when clicked: an
	// approval's command, reasons and preview. The tray shows it, like
	// ItemLabel, as an item that cannot be chosen, so that the arrow keys
	// skip it and Enter never lands on a row that does nothing.
	ItemText
)

// MenuItem is one row of the menu.
type MenuItem struct {
	// ID is stable for the same meaning across renders ("quit",
	// "approve:p3", "conv:ID", "status") so clicks map back and an adapter
	// can update rows in place. Every item has a unique non-empty ID.
	ID       string
	Kind     ItemKind
	Label    string
	Tooltip  string
	Checked  bool // ItemCheckbox only
	Disabled bool // shown greyed out; clicks are ignored
	// AccessKey is the letter of Label that chooses the item from the
	// keyboard while the menu is open (a mnemonic, shown underlined where
	// the platform marks them: dbusmenu on Linux); 0 for none. Items
	// that destroy for good get none, so no stray key press deletes.
	AccessKey rune
	Children  []MenuItem
}

// Stable IDs of the fixed menu entries. Per-pending and per-conversation
// entries use the prefixes below followed by their ID.
const (
	IDStatus          = "status"
	IDPendingHeader   = "pending"
	IDConfirm         = "confirm-before-executing"
	IDCancel          = "cancel"
	IDNewConversation = "new-conversation"
	IDRecent          = "recent"
	IDAuditLog        = "audit-log"
	IDSettings        = "settings"
	IDLog             = "log"
	IDLoginItem       = "launch-at-login"
	IDSoundCues       = "sound-cues"
	IDTypeRequest     = "type-request"
	IDQuit            = "quit"
	IDProblems        = "problems"
	IDAutoRun         = "auto-run"
	IDUndoTrash       = "undo-trash"
	IDCancelDownload  = "cancel-download"
	IDAskAgain        = "ask-again"

	PrefixApprove      = "approve:"      // + Pending.ID
	PrefixDeny         = "deny:"         // + Pending.ID
	PrefixAlwaysAllow  = "always-allow:" // + Pending.ID
	PrefixDenyWhy      = "deny-why:"     // + Pending.ID
	PrefixTrash        = "trash:"        // + Pending.ID: Move to Trash instead of the deletion
	PrefixPending      = "pending:"      // + Pending.ID + ":" + row, label rows
	PrefixAsker        = "asker:"        // + Pending.ID: the entry's header, who asks
	PrefixEntry        = "entry:"        // + Pending.ID: the row that opens an entry collapsed beside others
	PrefixConversation = "conversation:" // + RecentItem.ID
	PrefixSeparator    = "sep:"          // + a name unique within the menu
	PrefixShowFull     = "show-full:"    // + Pending.ID
	PrefixSayAgain     = "say-again:"    // + Pending.ID: drop it and listen for the request again
	PrefixProblem      = "problem:"      // + the problem's source
	PrefixDownload     = "download:"     // + the Ollama model a problem offers to pull
	PrefixSpeechModel  = "speech-model:" // + the speech model (speech/models name) a problem offers to download
)

// SayAgainLabel is the menu entry and the notification button that drop a
// misheard spoken request's command and listen for the request again.
const SayAgainLabel = "Say it again"

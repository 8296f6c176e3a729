package hotkey

// systemShortcuts are key combinations that the operating system or very
// common apps already use, with what they do there. A hotkey on this list
// may register without error (macOS lets two owners share one) and still
// never reach Hark, or take the key from something the person relies on.
// Sources: macOS's default Keyboard Shortcuts (System Settings › Keyboard ›
// Keyboard Shortcuts: Spotlight, Input Sources, Screenshots, Mission
// Control, Accessibility), GNOME's and KDE's default bindings, and the
// launchers people install first (Raycast, Alfred).
var systemShortcuts = map[string]map[Combo]string{
	"darwin": {
		{Super, "space"}:               "Spotlight",
		{Super | Alt, "space"}:         "Finder's search window",
		{Ctrl, "space"}:                "Select the previous input source",
		{Ctrl | Alt, "space"}:          "Select the next input source (and VoiceOver's VO-Space)",
		{Ctrl | Super, "space"}:        "the Emoji & Symbols viewer",
		{Alt, "space"}:                 "Raycast and Alfred",
		{Super, "tab"}:                 "the app switcher",
		{Super | Shift, "3"}:           "a screenshot",
		{Super | Shift, "4"}:           "a screenshot of a selection",
		{Super | Shift, "5"}:           "the screenshot toolbar",
		{Ctrl | Super, "q"}:            "Lock Screen",
		{Super | Alt, "escape"}:        "Force Quit",
		{Super, "q"}:                   "Quit in every app",
		{Super, "w"}:                   "Close in every app",
		{Super, "h"}:                   "Hide in every app",
		{Super, "m"}:                   "Minimize in every app",
		{Ctrl | Super, "f"}:            "full screen in every app",
		{Super | Alt, "d"}:             "showing and hiding the Dock",
		{Super | Alt | Ctrl, "8"}:      "Invert colours (Accessibility)",
		{Super | Alt, "f5"}:            "the Accessibility shortcuts panel",
		{Ctrl, "f2"}:                   "moving focus to the menu bar",
		{Ctrl, "f3"}:                   "moving focus to the Dock",
		{Super | Shift, "space"}:       "ChatGPT's and other assistants' launchers",
		{Super | Alt | Shift, "space"}: "window managers such as Rectangle",
	},
	"linux": {
		{Super, "space"}:          "switching the input source (GNOME)",
		{Super | Shift, "space"}:  "switching the input source back (GNOME)",
		{Alt, "space"}:            "the window menu",
		{Alt, "tab"}:              "the window switcher",
		{Alt, "f2"}:               "the run dialog",
		{Alt, "f4"}:               "Close window",
		{Ctrl | Alt, "t"}:         "opening a terminal",
		{Ctrl | Alt, "backspace"}: "ending the X session, where enabled",
		{Ctrl | Alt, "l"}:         "Lock Screen",
		{Super, "l"}:              "Lock Screen",
		{Super, "a"}:              "the app grid (GNOME)",
		{Super, "tab"}:            "the app switcher",
	},
}

// SystemShortcut says what already uses c on goos ("darwin", "linux"), if
// anything: "Spotlight", "Select the next input source" …
func SystemShortcut(c Combo, goos string) (string, bool) {
	what, ok := systemShortcuts[goos][c]
	return what, ok
}

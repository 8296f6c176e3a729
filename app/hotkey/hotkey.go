// Package hotkey turns a global key combination into push-to-talk events.
// On macOS it registers a Carbon hot key (no Accessibility prompt); on Linux
// it grabs the combination on the X11 root window in pure Go, so Hark starts
// even where there is no X server and simply reports the hotkey as
// unavailable. Key auto-repeat is filtered out before events reach the app.
// EscapeKey is plain Escape, taken from the desktop only while the app asks
// for it (while it has something to cancel).
package hotkey

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind says whether the combination went down or came up.
type Kind int

const (
	// Down: the combination was pressed. The app decides what a press means
	// (start listening, or in its toggle mode start or stop), so the
	// listener reports only the keys.
	Down Kind = iota + 1
	// Up: the combination was released.
	Up
	// Cancel: the desktop's cancel shortcut (the GlobalShortcuts portal),
	// which does what Escape does where Hark can grab Escape itself.
	Cancel
)

func (k Kind) String() string {
	switch k {
	case Down:
		return "down"
	case Up:
		return "up"
	case Cancel:
		return "cancel"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Event is one debounced hotkey transition. At is when the key physically
// moved, which for a release is earlier than the moment the event is
// delivered (the debouncer waits to be sure it was not auto-repeat), so a
// recording tail can be measured from the real release.
type Event struct {
	Kind Kind
	At   time.Time
}

// Errors callers branch on. Both leave Hark running: the status line says
// the hotkey is unavailable and speaking works through the tray or
// `hark send`.
var (
	// ErrUnavailable: this session offers no way to grab a global key (no X
	// server, a build without cgo on macOS, an unsupported OS).
	ErrUnavailable = errors.New("global hotkey unavailable")
	// ErrTaken: another application already holds the combination.
	ErrTaken = errors.New("hotkey combination already taken by another application")
)

// Modifier is one of the modifier keys a combination may hold.
type Modifier int

const (
	Ctrl Modifier = 1 << iota
	Alt           // Option on macOS
	Shift
	Super // Command on macOS, the Windows/Super key on Linux
)

// Combo is a parsed key combination such as "ctrl+alt+space".
type Combo struct {
	Mods Modifier
	Key  string // canonical key name: "space", "a"…"z", "0"…"9", "f1"…"f20", "return", "escape", "tab", "backspace"
}

var modNames = map[string]Modifier{
	"ctrl": Ctrl, "control": Ctrl, "ctl": Ctrl,
	"alt": Alt, "option": Alt, "opt": Alt,
	"shift": Shift,
	"cmd":   Super, "command": Super, "super": Super, "meta": Super, "win": Super,
}

var keyAliases = map[string]string{
	"spacebar": "space", " ": "space",
	"enter": "return", "ret": "return",
	"esc":    "escape",
	"delete": "backspace", "del": "backspace",
}

// validKey reports whether name is a key every platform adapter can grab.
func validKey(name string) bool {
	switch name {
	case "space", "return", "escape", "tab", "backspace":
		return true
	}
	if len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= '0' && name[0] <= '9') {
		return true
	}
	if n, ok := fkey(name); ok && n >= 1 && n <= 20 {
		return true
	}
	return false
}

// fkey parses "f1"…"f20".
func fkey(name string) (int, bool) {
	if len(name) < 2 || name[0] != 'f' {
		return 0, false
	}
	n := 0
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Parse reads a combination written as modifiers and one key joined by "+",
// case-insensitively: "ctrl+option+space", "Ctrl+Alt+Space", "cmd+shift+h".
// At least one modifier is required so the grab never swallows plain typing.
func Parse(s string) (Combo, error) {
	var c Combo
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	if len(parts) < 2 {
		return c, fmt.Errorf("hotkey %q: write modifiers and one key joined by \"+\", such as \"ctrl+alt+space\"", s)
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return c, fmt.Errorf("hotkey %q: empty part; write it like \"ctrl+alt+space\"", s)
		}
		if i < len(parts)-1 {
			m, ok := modNames[p]
			if !ok {
				return c, fmt.Errorf("hotkey %q: %q is not a modifier (use ctrl, alt/option, shift, cmd/super)", s, p)
			}
			if c.Mods&m != 0 {
				return c, fmt.Errorf("hotkey %q: modifier %q given twice", s, p)
			}
			c.Mods |= m
			continue
		}
		if a, ok := keyAliases[p]; ok {
			p = a
		}
		if _, isMod := modNames[p]; isMod {
			return c, fmt.Errorf("hotkey %q: ends in a modifier; add a key such as \"space\"", s)
		}
		if !validKey(p) {
			return c, fmt.Errorf("hotkey %q: unknown key %q (use space, a–z, 0–9, f1–f20, return, escape, tab, backspace)", s, p)
		}
		c.Key = p
	}
	return c, nil
}

// String writes the combination in canonical form, using macOS names when
// mac is true ("ctrl+option+space") and Linux names otherwise.
func (c Combo) String() string { return c.format(false) }

// MacString is String with macOS modifier names.
func (c Combo) MacString() string { return c.format(true) }

func (c Combo) format(mac bool) string {
	var parts []string
	names := map[Modifier][2]string{Ctrl: {"ctrl", "ctrl"}, Alt: {"alt", "option"}, Shift: {"shift", "shift"}, Super: {"super", "cmd"}}
	order := []Modifier{Ctrl, Alt, Shift, Super}
	for _, m := range order {
		if c.Mods&m != 0 {
			n := names[m][0]
			if mac {
				n = names[m][1]
			}
			parts = append(parts, n)
		}
	}
	return strings.Join(append(parts, c.Key), "+")
}

// Options configure a Listener.
type Options struct {
	// RepeatWindow: a release followed by a press within this long is key
	// auto-repeat, not a release. Zero means DefaultRepeatWindow.
	RepeatWindow time.Duration
}

// DefaultRepeatWindow is long enough for every auto-repeat rate a keyboard
// settings panel offers, short enough that a deliberate re-press is seen.
const DefaultRepeatWindow = 60 * time.Millisecond

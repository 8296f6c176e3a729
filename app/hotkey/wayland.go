package hotkey

import (
	"errors"
	"fmt"
	"strings"
)

// The shortcuts Hark binds.
const (
	PortalListen = "listen" // hold to talk, tap to latch: the hotkey
	PortalCancel = "cancel" // what Escape does on X11 and macOS
)

// Errors of RegisterPortal that callers branch on.
var (
	// ErrNoPortal: the session has no portal, or its portal has no
	// GlobalShortcuts (GNOME before 48, sway, wlroots desktops).
	ErrNoPortal = errors.New("the desktop's portal offers no global shortcuts")
	// ErrDeclined: the user closed or refused the desktop's dialog.
	ErrDeclined = errors.New("the desktop's shortcut dialog was declined")
)

// WaylandSession reports whether the session is a Wayland one, where an X11
// grab only fires while an XWayland window has focus.
func WaylandSession(getenv func(string) string) bool {
	return getenv("XDG_SESSION_TYPE") == "wayland" || getenv("WAYLAND_DISPLAY") != ""
}

// BindGuide says how to bind `hark listen` to combo where Hark cannot get a
// global key itself (a Wayland desktop without the GlobalShortcuts portal):
// GNOME's custom keybinding, KDE's shortcut settings, and sway's config.
// A desktop binding fires on the press only, so the key works as a tap:
// press to start listening, press again to send.
func BindGuide(c Combo) string {
	gnome := "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/hark/"
	schema := "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:" + gnome
	var sb strings.Builder
	sb.WriteString("Bind `hark listen` to a key in your desktop's keyboard settings (press once to start, again to send):\n")
	sb.WriteString("  GNOME (this replaces your other custom shortcuts; add the path to the list instead if you have some):\n")
	fmt.Fprintf(&sb, "    gsettings set org.gnome.settings-daemon.plugins.media-keys custom-keybindings \"['%s']\"\n", gnome)
	fmt.Fprintf(&sb, "    gsettings set %s name 'Hark'\n", schema)
	fmt.Fprintf(&sb, "    gsettings set %s command 'hark listen'\n", schema)
	fmt.Fprintf(&sb, "    gsettings set %s binding '%s'\n", schema, gnomeBinding(c))
	sb.WriteString("  KDE Plasma: System Settings → Keyboard → Shortcuts → Add New → Command or Script…, command `hark listen`, then record " + c.String() + "\n")
	fmt.Fprintf(&sb, "  sway (~/.config/sway/config):\n    bindsym %s exec hark listen\n", swayBinding(c))
	sb.WriteString("  `hark listen --cancel` on another key does what Escape does.")
	return sb.String()
}

func gnomeBinding(c Combo) string {
	var sb strings.Builder
	for _, m := range []struct {
		mod  Modifier
		name string
	}{{Ctrl, "<Control>"}, {Alt, "<Alt>"}, {Shift, "<Shift>"}, {Super, "<Super>"}} {
		if c.Mods&m.mod != 0 {
			sb.WriteString(m.name)
		}
	}
	return sb.String() + xkbName(c.Key)
}

func swayBinding(c Combo) string {
	var parts []string
	for _, m := range []struct {
		mod  Modifier
		name string
	}{{Ctrl, "Ctrl"}, {Alt, "Mod1"}, {Shift, "Shift"}, {Super, "Mod4"}} {
		if c.Mods&m.mod != 0 {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, xkbName(c.Key)), "+")
}

// Trigger writes c as the XDG shortcuts specification does: modifiers in
// capitals (CTRL, ALT, SHIFT, LOGO) and the key by its XKB keysym name.
func Trigger(c Combo) string {
	var parts []string
	for _, m := range []struct {
		mod  Modifier
		name string
	}{{Ctrl, "CTRL"}, {Alt, "ALT"}, {Shift, "SHIFT"}, {Super, "LOGO"}} {
		if c.Mods&m.mod != 0 {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, xkbName(c.Key)), "+")
}

// xkbName is a key's XKB keysym name.
func xkbName(key string) string {
	switch {
	case key == "return":
		return "Return"
	case key == "escape":
		return "Escape"
	case key == "tab":
		return "Tab"
	case key == "backspace":
		return "BackSpace"
	case len(key) > 1 && key[0] == 'f':
		return "F" + key[1:]
	}
	return key
}

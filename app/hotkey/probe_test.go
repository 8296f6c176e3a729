package hotkey

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/doctor"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	free := func(Combo) error { return nil }
	cases := []struct {
		name, combo string
		grab        func(Combo) error
		ok          bool
		detail, fix string
	}{
		{"free", "ctrl+alt+space", free, true, "ctrl+alt+space can be registered", ""},
		{"taken", "ctrl+alt+space", func(Combo) error { return fmt.Errorf("%w: BadAccess", ErrTaken) }, false, "BadAccess", `choose another "hotkey"`},
		{"no X display", "ctrl+alt+space", func(Combo) error { return fmt.Errorf("%w: no X11 display (DISPLAY is not set)", ErrUnavailable) }, false, "DISPLAY is not set", "X11 session"},
		{"checked at start", "ctrl+option+space", nil, true, "ctrl+option+space (registered when Hark starts)", ""},
		{"not understood", "ctrl+banana", free, false, "banana", `fix "hotkey"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			detail, err := probe(c.combo, c.grab)
			if c.ok {
				if err != nil || detail != c.detail {
					t.Errorf("got %q, %v; want %q", detail, err, c.detail)
				}
				return
			}
			var p *doctor.Problem
			if !errors.As(err, &p) || !strings.Contains(p.Detail, c.detail) || !strings.Contains(p.Fix(), c.fix) || p.Limited() {
				t.Errorf("got %q, %v; want %q with fix %q", detail, err, c.detail, c.fix)
			}
		})
	}
}

// On Wayland the doctor says whether the portal lends the key, and
// without it prints the lines that bind `hark listen` on GNOME, KDE and
// sway.
func TestProbeWayland(t *testing.T) {
	t.Parallel()
	detail, err := probeWayland("ctrl+alt+space", func() error { return nil })
	if err != nil || !strings.Contains(detail, "GlobalShortcuts portal") {
		t.Errorf("with the portal: %q, %v", detail, err)
	}
	_, err = probeWayland("ctrl+alt+space", func() error { return ErrNoPortal })
	var p *doctor.Problem
	if !errors.As(err, &p) {
		t.Fatalf("without the portal: %v, want a problem", err)
	}
	for _, want := range []string{
		"gsettings set org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/hark/ command 'hark listen'",
		"binding '<Control><Alt>space'",
		"KDE Plasma: System Settings",
		"bindsym Ctrl+Mod1+space exec hark listen",
		"hark listen --cancel",
	} {
		if !strings.Contains(p.Fix(), want) {
			t.Errorf("the fix lacks %q:\n%s", want, p.Fix())
		}
	}
}

// On macOS a letter or digit hotkey follows US key positions, and the
// doctor's line says so; keys that sit in the same place on every layout
// get no note.
func TestUSPositionNote(t *testing.T) {
	t.Parallel()
	for combo, want := range map[string]string{
		"ctrl+option+a":         "A means the key in that place on a US keyboard",
		"cmd+shift+7":           "7 means the key in that place on a US keyboard",
		"ctrl+option+cmd+space": "",
		"ctrl+f5":               "",
		"ctrl+return":           "",
	} {
		c, err := Parse(combo)
		if err != nil {
			t.Fatal(err)
		}
		got := USPositionNote(c)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", combo, got, want)
		}
	}
}

// A taken hotkey keeps ErrTaken under the doctor's line, so `hark doctor`
// can tell the running Hark holds it, and its fix is said once.
func TestProbeTakenSaysItsFixOnce(t *testing.T) {
	taken := func(c Combo) error {
		return fmt.Errorf("%w: %s; choose another \"hotkey\" in settings", ErrTaken, "ctrl+alt+space")
	}
	_, err := probe("ctrl+alt+space", taken)
	if !errors.Is(err, ErrTaken) {
		t.Fatalf("error %v does not keep ErrTaken", err)
	}
	var p *doctor.Problem
	if !errors.As(err, &p) {
		t.Fatalf("error %T is no doctor.Problem", err)
	}
	if n := strings.Count(p.Detail+" "+p.Next, "choose another"); n != 1 {
		t.Errorf("the fix is said %d times: %q → %q", n, p.Detail, p.Next)
	}
}

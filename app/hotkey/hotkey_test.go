package hotkey

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    Combo
		linux   string
		mac     string
		wantErr string
	}{
		{in: "ctrl+alt+space", want: Combo{Ctrl | Alt, "space"}, linux: "ctrl+alt+space", mac: "ctrl+option+space"},
		{in: "Ctrl+Option+Space", want: Combo{Ctrl | Alt, "space"}, linux: "ctrl+alt+space", mac: "ctrl+option+space"},
		{in: " cmd + shift + H ", want: Combo{Super | Shift, "h"}, linux: "shift+super+h", mac: "shift+cmd+h"},
		{in: "super+f12", want: Combo{Super, "f12"}, linux: "super+f12", mac: "cmd+f12"},
		{in: "ctrl+enter", want: Combo{Ctrl, "return"}, linux: "ctrl+return", mac: "ctrl+return"},
		{in: "space", wantErr: "modifiers and one key"},
		{in: "ctrl+", wantErr: "empty part"},
		{in: "ctrl+alt", wantErr: "ends in a modifier"},
		{in: "hyper+space", wantErr: `"hyper" is not a modifier`},
		{in: "ctrl+ctrl+a", wantErr: "given twice"},
		{in: "ctrl+f99", wantErr: "unknown key"},
		{in: "ctrl+é", wantErr: "unknown key"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			if s := got.String(); s != tc.linux {
				t.Errorf("String() = %q, want %q", s, tc.linux)
			}
			if s := got.MacString(); s != tc.mac {
				t.Errorf("MacString() = %q, want %q", s, tc.mac)
			}
		})
	}
}

func TestErrorsAreDistinct(t *testing.T) {
	t.Parallel()
	if errors.Is(ErrTaken, ErrUnavailable) || errors.Is(ErrUnavailable, ErrTaken) {
		t.Fatal("ErrTaken and ErrUnavailable must be distinguishable")
	}
}

// Hark's default combinations are free on their systems, and the table
// knows the shortcuts people most often try first.
func TestSystemShortcuts(t *testing.T) {
	t.Parallel()
	for goos, def := range map[string]string{"darwin": "ctrl+option+cmd+space", "linux": "ctrl+alt+space"} {
		c, err := Parse(def)
		if err != nil {
			t.Fatal(err)
		}
		if what, taken := SystemShortcut(c, goos); taken {
			t.Errorf("the %s default %s is %s", goos, def, what)
		}
	}
	for _, tt := range []struct{ goos, combo, what string }{
		{"darwin", "ctrl+option+space", "input source"},
		{"darwin", "cmd+space", "Spotlight"},
		{"darwin", "option+space", "Raycast"},
		{"darwin", "ctrl+cmd+space", "Emoji"},
		{"linux", "super+space", "input source"},
	} {
		c, err := Parse(tt.combo)
		if err != nil {
			t.Fatal(err)
		}
		if what, taken := SystemShortcut(c, tt.goos); !taken || !strings.Contains(what, tt.what) {
			t.Errorf("%s on %s: %q, %v; want %q", tt.combo, tt.goos, what, taken, tt.what)
		}
	}
}

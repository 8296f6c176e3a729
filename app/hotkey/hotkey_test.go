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

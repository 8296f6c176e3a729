package speech

import (
	"testing"
	"time"
)

func TestCleanTranscript(t *testing.T) {
	t.Parallel()
	quiet := Level{LoudDBFS: -55, Voiced: 0}
	faint := Level{LoudDBFS: -30, Voiced: 120 * time.Millisecond}
	spoken := Level{LoudDBFS: -18, Voiced: 2 * time.Second}
	cases := []struct {
		name string
		in   string
		lv   Level
		want string
	}{
		{"blank audio tag", " [BLANK_AUDIO]", spoken, ""},
		{"silence tag with spaces", "[ Silence ]", spoken, ""},
		{"music in parentheses", "(music)", spoken, ""},
		{"description in parentheses", "(speaking in foreign language)", spoken, ""},
		{"capitalised tag", "[Music]", spoken, ""},
		{"starred sound", "*laughs*", spoken, ""},
		{"notes", "♪ ♪", spoken, ""},
		{"lyrics between notes", "♪ never gonna give you up ♪", spoken, ""},
		{"tags around speech", "[MUSIC] list my downloads (upbeat music)", spoken, "list my downloads"},
		{"nested tag", "[ (wind blowing) ] git status", spoken, "git status"},
		{"speaker change mark", ">> show disk usage", spoken, "show disk usage"},
		{"long aside kept", "delete it (the one I made yesterday in the projects folder)", spoken, "delete it (the one I made yesterday in the projects folder)"},
		{"thank you on silence", " Thank you.", quiet, ""},
		{"thanks for watching on a breath", "Thanks for watching!", faint, ""},
		{"lone you", " you", quiet, ""},
		{"repeated stock phrase", "Thank you. Thank you.", faint, ""},
		{"stock phrase after a tag", "[BLANK_AUDIO] Thank you.", quiet, "" /* both go */},
		{"thank you said aloud is kept", "Thank you.", spoken, "Thank you."},
		{"real request on faint audio is kept", "Thank you. Now list my files.", faint, "Thank you. Now list my files."},
		{"plain command", "  what is using port 8080?  ", spoken, "what is using port 8080?"},
		{"only punctuation left", "[BLANK_AUDIO] ...", spoken, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := CleanTranscript(tc.in, tc.lv); got != tc.want {
				t.Fatalf("CleanTranscript(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNearSilent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lv   Level
		want bool
	}{
		{Level{LoudDBFS: -60}, true},
		{Level{LoudDBFS: -20, Voiced: 100 * time.Millisecond}, true},
		{Level{LoudDBFS: -20, Voiced: time.Second}, false},
	} {
		if got := tc.lv.NearSilent(); got != tc.want {
			t.Errorf("%+v.NearSilent() = %v, want %v", tc.lv, got, tc.want)
		}
	}
}

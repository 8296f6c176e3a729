package desktop

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// fakeTool writes an executable script standing in for a dialog tool.
func fakeTool(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tool")
	exectest.WriteScript(t, path, "#!/bin/sh\n"+body+"\n")
	return path
}

func TestDetectPrompter(t *testing.T) {
	t.Parallel()
	have := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", fmt.Errorf("%s not found", n)
		}
	}
	cases := []struct {
		name, goos string
		look       func(string) (string, error)
		want       string // tool, or "" for none
	}{
		{"mac", "darwin", have("osascript"), "osascript"},
		{"linux zenity", "linux", have("zenity", "kdialog"), "zenity"},
		{"linux kdialog", "linux", have("kdialog"), "kdialog"},
		{"linux none", "linux", have(), ""},
		{"linux ignores osascript", "linux", have("osascript"), ""},
	}
	for _, c := range cases {
		p := DetectPrompter(c.goos, c.look)
		switch {
		case c.want == "" && p != nil:
			t.Errorf("%s: got %+v, want none (Type a request… hidden)", c.name, p)
		case c.want != "" && (p == nil || p.(*ExecPrompter).Tool != c.want):
			t.Errorf("%s: got %+v, want %s", c.name, p, c.want)
		}
	}
}

func TestExecPrompter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool, body string
		text             string
		ok               bool
		wantErr          bool
	}{
		{"zenity answer", "zenity", `[ "$1" = --entry ] && echo "list my downloads"`, "list my downloads", true, false},
		{"kdialog answer", "kdialog", `[ "$3" = --inputbox ] && echo "df -h"`, "df -h", true, false},
		{"cancel", "zenity", `exit 1`, "", false, false},
		{"tool broken", "zenity", `exit 5`, "", false, true},
		// The entry must hold a sentence: zenity's default is ~150 px.
		{"zenity entry wide enough", "zenity", `while [ $# -gt 0 ]; do [ "$1" = --width ] && [ "$2" -ge 480 ] && { echo wide; exit 0; }; shift; done; echo narrow`, "wide", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := &ExecPrompter{Tool: c.tool, Path: fakeTool(t, c.body)}
			text, ok, err := p.Prompt(context.Background(), "Hark", "What should Hark do?")
			if text != c.text || ok != c.ok || (err != nil) != c.wantErr {
				t.Errorf("got %q, %v, %v; want %q, %v, err=%v", text, ok, err, c.text, c.ok, c.wantErr)
			}
		})
	}
}

// TestExecPrompterAsk: the yes/no question is Yes only on the button that
// says so; Cancel, closing and a broken tool all keep confirmation on.
func TestExecPrompterAsk(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool, body string
		yes, wantErr     bool
	}{
		{"zenity yes", "zenity", `[ "$1" = --question ] && exit 0; exit 9`, true, false},
		{"zenity no", "zenity", `exit 1`, false, false},
		{"kdialog yes", "kdialog", `[ "$3" = --warningyesno ] && exit 0; exit 9`, true, false},
		{"broken", "kdialog", `exit 7`, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := &ExecPrompter{Tool: c.tool, Path: fakeTool(t, c.body)}
			yes, err := p.Ask(context.Background(), "Hark", "Run without asking?")
			if yes != c.yes || (err != nil) != c.wantErr {
				t.Errorf("got %v, %v; want %v, err=%v", yes, err, c.yes, c.wantErr)
			}
		})
	}
}

// TestExecPrompterReasonKeepsTheCommand: the deny-reason dialog is asked
// with its label escaped for the tool, so the command shows as it is:
// zenity's --entry label eats "_" (a mnemonic) and reads "\" as an escape;
// kdialog's Qt label eats "&" and takes a leading tag as rich text.
func TestExecPrompterReasonKeepsTheCommand(t *testing.T) {
	t.Parallel()
	msg := `Why not run “rm ~/Videos/big_video_backup.mp4 a&b <b>x</b> C:\tmp”?`
	cases := []struct{ tool, body, want string }{
		{"zenity", `[ "$1" = --entry ] && [ "$4" = --text ] && printf '%s\n' "$5"`,
			`Why not run “rm ~/Videos/big__video__backup.mp4 a&b <b>x</b> C:\\tmp”?`},
		{"kdialog", `[ "$3" = --inputbox ] && printf '%s\n' "$4"`,
			"Why not run “rm ~/Videos/big_video_backup.mp4 a&&b <\u2060b>x<\u2060/b> C:\\tmp”?"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			p := &ExecPrompter{Tool: c.tool, Path: fakeTool(t, c.body)}
			got, ok, err := p.Reason(context.Background(), "p1", "Hark — deny", msg)
			if err != nil || !ok || got != c.want {
				t.Errorf("%s was given the label\n  %q (ok %v, err %v)\nwant\n  %q", c.tool, got, ok, err, c.want)
			}
		})
	}
}

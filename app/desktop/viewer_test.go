package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

func TestDetectTextViewer(t *testing.T) {
	t.Parallel()
	on := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, m := range names {
				if m == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	none := func(string) string { return "" }
	for _, c := range []struct {
		name  string
		goos  string
		tools []string
		want  string // the tool, or "" for none
	}{
		{"zenity first", "linux", []string{"zenity", "kdialog", "less", "xterm"}, "zenity"},
		{"kdialog", "linux", []string{"kdialog", "less", "xterm"}, "kdialog"},
		{"less in a terminal", "linux", []string{"less", "xterm"}, "less"},
		{"less without a terminal", "linux", []string{"less"}, ""},
		{"macOS wraps in TextEdit", "darwin", []string{"zenity"}, ""},
	} {
		got := DetectTextViewer(c.goos, none, on(c.tools...))
		switch v, _ := got.(*TextViewer); {
		case c.want == "" && got != nil:
			t.Errorf("%s: %+v, want none", c.name, got)
		case c.want != "" && (v == nil || v.Tool != c.want):
			t.Errorf("%s: %+v, want %s", c.name, got, c.want)
		}
	}
}

func TestTextViewerArgs(t *testing.T) {
	t.Parallel()
	path := "/run/hark/commands/-p1.txt"
	z := &TextViewer{Tool: "zenity", Path: "/usr/bin/zenity"}
	long := strings.Repeat("rm -rf /home/user/projects/build/output ", 60)
	for _, c := range []struct {
		name, text, want string
	}{
		// The Problems window: one Close button, no text box to type in
		// (walk 6, B3-22: Cancel and OK did the same, and a cursor blinked).
		{"short text in a dialog with one button", "⚠ Voice input unavailable\nrun `hark doctor`\n",
			"--info --no-markup --title Hark — problems --ok-label Close --text=⚠ Voice input unavailable\nrun `hark doctor`"},
		{"long text scrolls", long,
			"--text-info --title Hark — problems --filename " + path + " --ok-label Close --width 720 --height 520"},
		{"unreadable file: the box reads it itself", "",
			"--text-info --title Hark — problems --filename " + path + " --ok-label Close --width 720 --height 520"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, args, err := z.Args("Hark — problems", path, c.text)
			if err != nil || prog != "/usr/bin/zenity" || strings.Join(args, " ") != c.want {
				t.Errorf("zenity: %s %q %v\nwant %s", prog, args, err, c.want)
			}
		})
	}
	term, _ := DetectTerminal(func(string) string { return "" }, func(n string) (string, error) {
		if n == "xterm" {
			return "/usr/bin/xterm", nil
		}
		return "", errors.New("no")
	})
	l := &TextViewer{Tool: "less", Path: "/usr/bin/less", Terminal: term}
	prog, args, err := l.Args("Hark — the full command", path, "x")
	if err != nil || prog != "/usr/bin/xterm" || !strings.HasSuffix(strings.Join(args, " "), "-e /usr/bin/less -- "+path) {
		t.Errorf("less: %s %q %v", prog, args, err)
	}
}

func TestFitsDialog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		text string
		want bool
	}{
		{"empty", "", false},
		{"a few lines", "a\nb\n\nc\n", true},
		{"30 short lines", strings.Repeat("line\n", dialogLines), true},
		{"31 short lines", strings.Repeat("line\n", dialogLines+1), false},
		{"one line that wraps 30 times", strings.Repeat("x", dialogColumns*dialogLines), true},
		{"one line that wraps 31 times", strings.Repeat("x", dialogColumns*dialogLines+1), false},
		{"runes, not bytes", strings.Repeat("⚠", dialogColumns*dialogLines), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fitsDialog(c.text); got != c.want {
				t.Errorf("fitsDialog = %v, want %v", got, c.want)
			}
		})
	}
}

// TestTextViewerRunsTheTool runs a stand-in zenity: the file reaches it by
// name, a closed window is not an error, a tool that fails is.
func TestTextViewerRunsTheTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		exit    string
		wantErr bool
	}{{"0", false}, {"1", false}, {"5", true}} {
		got := filepath.Join(dir, "got-"+c.exit)
		bin := filepath.Join(dir, "zenity-"+c.exit)
		exectest.WriteScript(t, bin, "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+got+"\nexit "+c.exit+"\n")
		v := &TextViewer{Tool: "zenity", Path: bin}
		absent := filepath.Join(dir, "absent.txt")
		err := v.ShowText(context.Background(), "T", absent)
		if (err != nil) != c.wantErr {
			t.Errorf("exit %s: err %v", c.exit, err)
		}
		if b, _ := os.ReadFile(got); !strings.Contains(string(b), "--filename\n"+absent+"\n") {
			t.Errorf("exit %s: args %q", c.exit, b)
		}
	}
	// A short file is read and shown in the one-button dialog.
	got := filepath.Join(dir, "got-short")
	bin := filepath.Join(dir, "zenity-short")
	exectest.WriteScript(t, bin, "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+got+"\n")
	short := filepath.Join(dir, "problems.txt")
	if err := os.WriteFile(short, []byte("⚠ Voice input unavailable\nfix it\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (&TextViewer{Tool: "zenity", Path: bin}).ShowText(context.Background(), "T", short); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); !strings.Contains(string(b), "--info\n") || !strings.Contains(string(b), "--text=⚠ Voice input unavailable\nfix it\n") {
		t.Errorf("short file: args %q", b)
	}
}

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
	prog, args, err := z.Args("Hark — the full command", path)
	if err != nil || prog != "/usr/bin/zenity" || strings.Join(args, " ") != "--text-info --title Hark — the full command --filename "+path+" --width 720 --height 520" {
		t.Errorf("zenity: %s %q %v", prog, args, err)
	}
	term, _ := DetectTerminal(func(string) string { return "" }, func(n string) (string, error) {
		if n == "xterm" {
			return "/usr/bin/xterm", nil
		}
		return "", errors.New("no")
	})
	l := &TextViewer{Tool: "less", Path: "/usr/bin/less", Terminal: term}
	prog, args, err = l.Args("Hark — the full command", path)
	if err != nil || prog != "/usr/bin/xterm" || !strings.HasSuffix(strings.Join(args, " "), "-e /usr/bin/less -- "+path) {
		t.Errorf("less: %s %q %v", prog, args, err)
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
		err := v.ShowText(context.Background(), "T", "/tmp/x.txt")
		if (err != nil) != c.wantErr {
			t.Errorf("exit %s: err %v", c.exit, err)
		}
		if b, _ := os.ReadFile(got); !strings.Contains(string(b), "--filename\n/tmp/x.txt\n") {
			t.Errorf("exit %s: args %q", c.exit, b)
		}
	}
}

package desktop

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
)

func lookIn(names ...string) func(string) (string, error) {
	return func(n string) (string, error) {
		for _, have := range names {
			if n == have {
				return "/usr/bin/" + n, nil
			}
		}
		return "", fs.ErrNotExist
	}
}

func TestDetectTerminal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		terminal string // $TERMINAL
		have     []string
		want     string // "" : none
	}{
		{"TERMINAL wins", "foot", []string{"foot", "xterm", "x-terminal-emulator"}, "foot"},
		{"TERMINAL not installed falls through", "wezterm", []string{"xterm"}, "xterm"},
		{"TERMINAL with arguments is not run", "xterm -fa Mono", []string{"gnome-terminal"}, "gnome-terminal"},
		{"the distribution's choice first", "", []string{"xterm", "x-terminal-emulator", "konsole"}, "x-terminal-emulator"},
		{"a desktop's own before xterm", "", []string{"xterm", "xfce4-terminal"}, "xfce4-terminal"},
		{"xterm last", "", []string{"xterm"}, "xterm"},
		{"none", "", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string {
				if k == "TERMINAL" {
					return c.terminal
				}
				return ""
			}
			got, ok := DetectTerminal(getenv, lookIn(c.have...))
			if ok != (c.want != "") || got.Name != c.want {
				t.Errorf("DetectTerminal = %q, %v; want %q", got.Name, ok, c.want)
			}
			if ok && got.Path != "/usr/bin/"+c.want {
				t.Errorf("path %q", got.Path)
			}
		})
	}
}

// Each emulator gets the command as separate arguments in the form it
// understands, never as one string for a shell.
func TestTerminalArgs(t *testing.T) {
	t.Parallel()
	argv := []string{"/opt/my hark/hark", "send", "--prompt"}
	cases := []struct {
		name string
		want []string
	}{
		{"xterm", []string{"-T", "Hark", "-e", "/opt/my hark/hark", "send", "--prompt"}},
		{"x-terminal-emulator", []string{"-e", "/opt/my hark/hark", "send", "--prompt"}},
		{"gnome-terminal", []string{"--title=Hark", "--", "/opt/my hark/hark", "send", "--prompt"}},
		{"konsole", []string{"-e", "/opt/my hark/hark", "send", "--prompt"}},
		{"xfce4-terminal", []string{"-T", "Hark", "-x", "/opt/my hark/hark", "send", "--prompt"}},
		{"alacritty", []string{"-t", "Hark", "-e", "/opt/my hark/hark", "send", "--prompt"}},
		{"kitty", []string{"--title", "Hark", "/opt/my hark/hark", "send", "--prompt"}},
		{"/usr/local/bin/foot", []string{"--title", "Hark", "/opt/my hark/hark", "send", "--prompt"}},
		{"someterm", []string{"-e", "/opt/my hark/hark", "send", "--prompt"}},
	}
	for _, c := range cases {
		term := Terminal{Name: c.name, style: styleOf(c.name)}
		if got := term.Args("Hark", argv); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Prompt opens the window, waits for it, and leaves the text to `hark
// send`; a terminal that cannot start is an error that says what to do.
func TestTerminalPrompter(t *testing.T) {
	t.Parallel()
	var gotPath string
	var gotArgs []string
	p := NewTerminalPrompter(Terminal{Name: "xterm", Path: "/usr/bin/xterm", style: styleTitleE}, []string{"/bin/hark", "send", "--prompt"})
	p.start = func(ctx context.Context, path string, args []string) error {
		gotPath, gotArgs = path, args
		return nil
	}
	text, ok, err := p.Prompt(context.Background(), "Hark", "What should Hark do?")
	if text != "" || ok || err != nil {
		t.Errorf("Prompt = %q, %v, %v; want nothing, the text goes through hark send", text, ok, err)
	}
	if gotPath != "/usr/bin/xterm" || !reflect.DeepEqual(gotArgs, []string{"-T", "Hark", "-e", "/bin/hark", "send", "--prompt"}) {
		t.Errorf("ran %s %q", gotPath, gotArgs)
	}

	p.start = func(context.Context, string, []string) error { return errors.New("exit status 1: cannot open display") }
	if _, _, err := p.Prompt(context.Background(), "Hark", ""); err == nil || !strings.Contains(err.Error(), "$TERMINAL") || !strings.Contains(err.Error(), "hark send") {
		t.Errorf("error %v should name the fix", err)
	}
}

// TestTerminalPrompterReason: the deny-reason window runs its own
// command, naming the approval and carrying the question, never the
// request prompt, so what is typed there denies that approval.
func TestTerminalPrompterReason(t *testing.T) {
	t.Parallel()
	var gotArgs []string
	p := NewTerminalPrompter(Terminal{Name: "xterm", Path: "/usr/bin/xterm", style: styleTitleE}, []string{"/bin/hark", "send", "--prompt"})
	p.ReasonCommand = []string{"/bin/hark", "send"}
	p.start = func(ctx context.Context, path string, args []string) error {
		gotArgs = args
		return nil
	}
	text, ok, err := p.Reason(context.Background(), "p3", "Hark — deny", "Why not run “rm a_b”?")
	if text != "" || ok || err != nil {
		t.Errorf("Reason = %q, %v, %v; want nothing, the reason goes through hark send", text, ok, err)
	}
	want := []string{"-T", "Hark — deny", "-e", "/bin/hark", "send", "--question", "Why not run “rm a_b”?", "--deny-why", "p3"}
	if !reflect.DeepEqual(gotArgs, want) {
		t.Errorf("ran xterm %q\nwant %q", gotArgs, want)
	}
	p.ReasonCommand = nil
	if _, _, err := p.Reason(context.Background(), "p3", "Hark — deny", ""); err == nil {
		t.Error("a prompter without a reason command opened something")
	}
}

// The real runner starts the emulator with the arguments as given and
// stops it when the context ends.
func TestRunTerminalForReal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	script := filepath.Join(dir, "fake-term")
	exectest.WriteScript(t, script, "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+out+"\nexec sleep 30\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runTerminal(ctx, script, []string{"-e", "/bin/hark", "send", "--prompt"}) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(out); err == nil && strings.Count(string(b), "\n") == 4 {
			if string(b) != "-e\n/bin/hark\nsend\n--prompt\n" {
				t.Errorf("the terminal got %q", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake terminal never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Errorf("a cancelled terminal returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not stop the terminal")
	}
}

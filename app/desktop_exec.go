package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ExecOpener opens files with `open` on macOS and `xdg-open` elsewhere.
// On Linux a failing xdg-open (exit 3: nothing handles the type) is not the
// end: the file opens in $VISUAL or $EDITOR inside a terminal emulator, and
// when that fails too the error says where the file is.
type ExecOpener struct {
	// For tests; nil means the real ones.
	goos     string
	lookPath func(string) (string, error)
	getenv   func(string) string
	// run starts a program and reports its exit within the wait (nil when
	// it is still running then, as a viewer does).
	run func(wait time.Duration, name string, args ...string) error
}

// openerWait is how long Open waits for xdg-open to fail before taking
// it as having opened the file.
const openerWait = 3 * time.Second

// Open starts the viewer and returns once it is known to have started.
func (o ExecOpener) Open(path string) error {
	goos, look, getenv, run := o.goos, o.lookPath, o.getenv, o.run
	if goos == "" {
		goos = runtime.GOOS
	}
	if look == nil {
		look = exec.LookPath
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if run == nil {
		run = startAndWatch
	}
	tool := "xdg-open"
	if goos == "darwin" {
		tool = "open"
	}
	var first error
	if bin, err := look(tool); err != nil {
		first = fmt.Errorf("%s is not installed", tool)
	} else if err := run(openerWait, bin, path); err != nil {
		first = fmt.Errorf("%s: %v", tool, err)
	} else {
		return nil
	}
	if goos == "darwin" {
		return first
	}
	editor := getenv("VISUAL")
	if editor == "" {
		editor = getenv("EDITOR")
	}
	if editor != "" {
		for _, term := range []string{"x-terminal-emulator", "xfce4-terminal", "gnome-terminal", "konsole", "xterm"} {
			bin, err := look(term)
			if err != nil {
				continue
			}
			if err := run(openerWait, bin, "-e", editor+" "+shellQuote(path)); err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("%v, and no editor in a terminal could open it either; the file is %s", first, path)
}

// shellQuote quotes s for the one shell word a terminal's -e runs.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func startAndWatch(wait time.Duration, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		return nil // still running: a viewer or an editor stays open
	}
}

// DetectPrompter returns the native text prompt available here, or nil when
// there is none: osascript on macOS, zenity or kdialog on Linux. lookPath is
// exec.LookPath outside tests.
func DetectPrompter(goos string, lookPath func(string) (string, error)) Prompter {
	candidates := []string{"zenity", "kdialog"}
	if goos == "darwin" {
		candidates = []string{"osascript"}
	}
	for _, name := range candidates {
		if path, err := lookPath(name); err == nil {
			return &ExecPrompter{Tool: name, Path: path}
		}
	}
	return nil
}

// ExecPrompter asks for text through a dialog tool. The message and title
// are passed as arguments, never spliced into a script.
type ExecPrompter struct {
	Tool string // "osascript", "zenity" or "kdialog"
	Path string
}

// Prompt shows the dialog and waits for the user.
func (p *ExecPrompter) Prompt(ctx context.Context, title, message string) (string, bool, error) {
	var args []string
	switch p.Tool {
	case "osascript":
		args = []string{
			"-e", "on run argv",
			"-e", `text returned of (display dialog (item 1 of argv) default answer "" with title (item 2 of argv))`,
			"-e", "end run",
			message, title,
		}
	case "zenity":
		args = []string{"--entry", "--title", title, "--text", message}
	case "kdialog":
		args = []string{"--title", title, "--inputbox", message}
	default:
		return "", false, fmt.Errorf("unknown prompt tool %q", p.Tool)
	}
	out, err := exec.CommandContext(ctx, p.Path, args...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", false, nil // the user pressed Cancel
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", p.Tool, err)
	}
	return strings.TrimRight(string(out), "\r\n"), true, nil
}

// Ask puts a yes/no question in the same dialog tool; No is the default
// button, so Return or Escape keep things as they are.
//
// Manual check on macOS (osascript cannot run here): untick "Confirm
// before executing"; a dialog with Keep asking / Run without asking must
// appear with Keep asking highlighted, and only the latter untick the box.
func (p *ExecPrompter) Ask(ctx context.Context, title, message string) (bool, error) {
	var args []string
	switch p.Tool {
	case "osascript":
		args = []string{
			"-e", "on run argv",
			"-e", `button returned of (display dialog (item 1 of argv) with title (item 2 of argv) buttons {"Keep asking", "Run without asking"} default button "Keep asking" cancel button "Keep asking" with icon caution)`,
			"-e", "end run",
			message, title,
		}
	case "zenity":
		args = []string{"--question", "--title", title, "--text", message, "--ok-label", "Run without asking", "--cancel-label", "Keep asking", "--default-cancel"}
	case "kdialog":
		args = []string{"--title", title, "--warningyesno", message, "--yes-label", "Run without asking", "--no-label", "Keep asking"}
	default:
		return false, fmt.Errorf("unknown prompt tool %q", p.Tool)
	}
	out, err := exec.CommandContext(ctx, p.Path, args...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil // No, Cancel or closed
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", p.Tool, err)
	}
	if p.Tool == "osascript" {
		return strings.TrimSpace(string(out)) == "Run without asking", nil
	}
	return true, nil
}

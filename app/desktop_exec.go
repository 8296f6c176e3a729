package app

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// ExecOpener opens files with `open` on macOS and `xdg-open` elsewhere.
type ExecOpener struct{}

// Open starts the viewer and returns without waiting for it to close.
func (ExecOpener) Open(path string) error {
	tool := "xdg-open"
	if runtime.GOOS == "darwin" {
		tool = "open"
	}
	bin, err := exec.LookPath(tool)
	if err != nil {
		return fmt.Errorf("%s is not installed (it opens files in their default application)", tool)
	}
	cmd := exec.Command(bin, path)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it; the viewer's exit status is not ours to judge
	return nil
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

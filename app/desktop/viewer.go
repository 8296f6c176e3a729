package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/hark-sh/hark/app"
)

// TextViewer shows a text file in a window that wraps and scrolls, for
// Show full command…: zenity's or kdialog's text box where one exists,
// else less in the user's terminal. Unlike a text editor opened through
// xdg-open it needs no MIME set-up and cannot leave the command on one
// line running off the screen.
type TextViewer struct {
	Tool     string // "zenity", "kdialog" or "less"
	Path     string // the tool's path
	Terminal Terminal

	// run runs the tool and waits for its window to close; tests replace
	// it.
	run func(ctx context.Context, path string, args []string) error
}

// DetectTextViewer returns the text viewer available here, or nil: on
// macOS the default viewer (TextEdit) wraps already, so none is needed.
// getenv and lookPath are os.Getenv and exec.LookPath outside tests.
func DetectTextViewer(goos string, getenv func(string) string, lookPath func(string) (string, error)) app.TextViewer {
	if goos == "darwin" {
		return nil
	}
	for _, name := range []string{"zenity", "kdialog"} {
		if path, err := lookPath(name); err == nil {
			return &TextViewer{Tool: name, Path: path}
		}
	}
	less, err := lookPath("less")
	if err != nil {
		return nil
	}
	t, ok := DetectTerminal(getenv, lookPath)
	if !ok {
		return nil
	}
	return &TextViewer{Tool: "less", Path: less, Terminal: t}
}

// InTerminal says whether the window is a pager in a terminal (less),
// which Problems… does not use: a notification reads better.
func (v *TextViewer) InTerminal() bool { return v.Tool == "less" }

// Args is the command line that shows text, the content of the file at
// path, under title. zenity's --text-info always has Cancel beside OK,
// doing the same, and a text cursor in its read-only box; so text that
// fits on a screen goes in an --info dialog instead, with one Close
// button and nothing to type into. --no-markup shows it as it is (no
// markup, mnemonics or backslash escapes; zenity 3.44, checked under
// Xvfb). Longer text, which a label would push off the screen, keeps
// --text-info, which scrolls.
func (v *TextViewer) Args(title, path, text string) (prog string, args []string, err error) {
	switch v.Tool {
	case "zenity":
		if fitsDialog(text) {
			return v.Path, []string{"--info", "--no-markup", "--title", title, "--ok-label", "Close", "--text=" + strings.TrimRight(text, "\n")}, nil
		}
		return v.Path, []string{"--text-info", "--title", title, "--filename", path, "--ok-label", "Close", "--width", "720", "--height", "520"}, nil
	case "kdialog":
		return v.Path, []string{"--title", title, "--textbox", path, "720", "520"}, nil
	case "less":
		// less wraps long lines unless told otherwise (-S); -- keeps a
		// path from reading as an option.
		return v.Terminal.Path, v.Terminal.Args(title, []string{v.Path, "--", path}), nil
	}
	return "", nil, fmt.Errorf("unknown text viewer %q", v.Tool)
}

// dialogLines and dialogColumns bound the text an --info dialog shows:
// its label wraps at about 70 characters, 17 pixels a line, so 30 lines
// with the buttons fit a 768-pixel screen.
const (
	dialogLines   = 30
	dialogColumns = 70
)

// fitsDialog says whether text, wrapped as zenity's --info label wraps
// it, fits on the screen; "" (a file that could not be read) does not.
func fitsDialog(text string) bool {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return false
	}
	lines := 0
	for _, l := range strings.Split(text, "\n") {
		lines += 1 + (utf8.RuneCountInString(l)-1)/dialogColumns
		if lines > dialogLines {
			return false
		}
	}
	return true
}

// ShowText opens the window and waits until it is closed. Closing it
// any way is fine; an error means the window never showed.
func (v *TextViewer) ShowText(ctx context.Context, title, path string) error {
	text, _ := os.ReadFile(path) // unread, it goes to the box that reads it itself
	prog, args, err := v.Args(title, path, string(text))
	if err != nil {
		return err
	}
	run := v.run
	if run == nil {
		run = runViewer
	}
	return run(ctx, prog, args)
}

func runViewer(ctx context.Context, prog string, args []string) error {
	err := exec.CommandContext(ctx, prog, args...).Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil // zenity and kdialog: the window was closed, not OK'd
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %w", prog, err)
	}
	return nil
}

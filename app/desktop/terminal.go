package desktop

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Terminal is a terminal emulator that can run one command in a new window.
type Terminal struct {
	Name string // as found: "xterm", "gnome-terminal", or $TERMINAL's value
	Path string
	// style says how the emulator takes a title and a command line.
	style termStyle
}

type termStyle int

const (
	styleDashE      termStyle = iota // -e COMMAND ARGS… (xterm's convention, Debian's x-terminal-emulator, most others)
	styleTitleE                      // -T TITLE -e COMMAND ARGS… (xterm, alacritty with -t)
	styleDoubleDash                  // --title=TITLE -- COMMAND ARGS… (gnome-terminal)
	styleXfce                        // -T TITLE -x COMMAND ARGS… (xfce4-terminal)
	styleBare                        // [--title TITLE] COMMAND ARGS… (kitty, foot)
)

// terminals are tried in this order after $TERMINAL: the distribution's
// choice first (x-terminal-emulator is Debian's and Ubuntu's alternative for
// "the user's terminal"), then the desktops' own, then xterm, which every X
// installation can add.
var terminals = []struct {
	name  string
	style termStyle
}{
	{"x-terminal-emulator", styleDashE},
	{"gnome-terminal", styleDoubleDash},
	{"konsole", styleDashE},
	{"xfce4-terminal", styleXfce},
	{"kitty", styleBare},
	{"alacritty", styleTitleE},
	{"foot", styleBare},
	{"xterm", styleTitleE},
}

// styleOf knows the emulators whose command line differs from -e; any
// other (a $TERMINAL we do not know) gets the -e convention.
func styleOf(name string) termStyle {
	base := filepath.Base(name)
	for _, t := range terminals {
		if t.name == base {
			return t.style
		}
	}
	return styleDashE
}

// DetectTerminal finds the user's terminal emulator: $TERMINAL when it
// names a program on PATH (or a path), else the first of x-terminal-emulator,
// gnome-terminal, konsole, xfce4-terminal, kitty, alacritty, foot and
// xterm that exists. getenv and lookPath are
// os.Getenv and exec.LookPath outside tests.
func DetectTerminal(getenv func(string) string, lookPath func(string) (string, error)) (Terminal, bool) {
	if t := strings.TrimSpace(getenv("TERMINAL")); t != "" {
		// $TERMINAL is a program name, not a command line; a value with
		// arguments is not something we can run safely.
		if !strings.ContainsAny(t, " \t") {
			if p, err := lookPath(t); err == nil {
				return Terminal{Name: t, Path: p, style: styleOf(t)}, true
			}
		}
	}
	for _, c := range terminals {
		if p, err := lookPath(c.name); err == nil {
			return Terminal{Name: c.name, Path: p, style: c.style}, true
		}
	}
	return Terminal{}, false
}

// Args is the argument list (after the program) that opens a window
// titled title running argv.
func (t Terminal) Args(title string, argv []string) []string {
	switch t.style {
	case styleTitleE:
		flag := "-T"
		if filepath.Base(t.Name) == "alacritty" {
			flag = "-t"
		}
		return append([]string{flag, title, "-e"}, argv...)
	case styleDoubleDash:
		return append([]string{"--title=" + title, "--"}, argv...)
	case styleXfce:
		return append([]string{"-T", title, "-x"}, argv...)
	case styleBare:
		return append([]string{"--title", title}, argv...)
	}
	return append([]string{"-e"}, argv...)
}

// TerminalPrompter asks for a typed request in a terminal window: it opens
// the user's terminal emulator running Command (cmd/hark passes
// `hark send --prompt`), which reads one line there and hands it to the
// running app over the control socket. The text reaches the core as a
// SendRequest, not as Prompt's result, so Prompt returns ok false once the
// window has closed. It needs nothing but a terminal emulator, which every
// Linux desktop has, where zenity and kdialog may be missing.
type TerminalPrompter struct {
	Terminal Terminal
	Command  []string // the program and its arguments to run in the window
	// ReasonCommand asks for a denial's reason instead (cmd/hark passes
	// `hark send`); Reason appends --question MESSAGE --deny-why ID, and
	// the line typed there goes back as that approval's denial.
	ReasonCommand []string

	// start runs the terminal; tests replace it.
	start func(ctx context.Context, path string, args []string) error
}

// NewTerminalPrompter returns a prompter that runs command in t.
func NewTerminalPrompter(t Terminal, command []string) *TerminalPrompter {
	return &TerminalPrompter{Terminal: t, Command: command}
}

// Prompt opens the window and waits until the emulator exits (some, such
// as gnome-terminal, hand the window to a server and exit at once).
// Cancelling ctx closes a window that is still open.
func (p *TerminalPrompter) Prompt(ctx context.Context, title, message string) (string, bool, error) {
	if len(p.Command) == 0 {
		return "", false, errors.New("no command to run in the terminal")
	}
	return p.open(ctx, title, p.Command)
}

func (p *TerminalPrompter) open(ctx context.Context, title string, argv []string) (string, bool, error) {
	start := p.start
	if start == nil {
		start = runTerminal
	}
	if err := start(ctx, p.Terminal.Path, p.Terminal.Args(title, argv)); err != nil && ctx.Err() == nil {
		return "", false, fmt.Errorf("could not open %s (%v) — set $TERMINAL to your terminal emulator, or run  hark send \"your request\"  in one", p.Terminal.Name, err)
	}
	return "", false, nil
}

// Reason opens a window that asks why the approval pendingID is denied;
// the answer goes over the control socket as its denial, never as a new
// request, so Reason returns ok false once the window has closed.
func (p *TerminalPrompter) Reason(ctx context.Context, pendingID, title, message string) (string, bool, error) {
	if len(p.ReasonCommand) == 0 {
		return "", false, errors.New("no command to ask for the reason in the terminal — use Deny")
	}
	argv := append(append([]string(nil), p.ReasonCommand...), "--question", message, "--deny-why", pendingID)
	return p.open(ctx, title, argv)
}

func runTerminal(ctx context.Context, path string, args []string) error {
	cmd := exec.CommandContext(ctx, path, args...)
	// A child the emulator leaves behind must not keep Prompt waiting on
	// the output pipe once the emulator itself is gone.
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil && len(strings.TrimSpace(string(out))) > 0 {
		return fmt.Errorf("%w: %s", err, firstLineOf(string(out)))
	}
	return err
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

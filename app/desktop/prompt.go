package desktop

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"unicode"

	"github.com/hark-sh/hark/app"
)

// DetectPrompter returns the native text prompt available here, or nil when
// there is none: osascript on macOS, zenity or kdialog on Linux. lookPath is
// exec.LookPath outside tests.
func DetectPrompter(goos string, lookPath func(string) (string, error)) app.Prompter {
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
		args = []string{"--entry", "--title", title, "--text", zenityEntryText(message)}
	case "kdialog":
		args = []string{"--title", title, "--inputbox", kdialogLabel(message)}
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

// Reason asks for a denial's reason in the same kind of dialog as Prompt:
// its own dialog, whose answer comes back here, so the core denies the
// approval with it.
func (p *ExecPrompter) Reason(ctx context.Context, pendingID, title, message string) (string, bool, error) {
	return p.Prompt(ctx, title, message)
}

// zenityEntryText keeps message as it is in zenity's --entry label, which
// (zenity 3.44, Debian 12; checked on screen under Xvfb) is plain text
// with mnemonics, after g_strcompress: "_" marks the next letter as the
// shortcut and vanishes, so big_video_backup.mp4 showed as
// bigvideobackup.mp4, and a backslash starts an escape (\t is a tab).
// Markup is not interpreted there: & and < show as they are.
func zenityEntryText(message string) string {
	return strings.NewReplacer(`\`, `\\`, "_", "__").Replace(message)
}

// kdialogLabel keeps message as it is in kdialog's --inputbox label, a Qt
// label: "&" marks a shortcut (doubled, it shows), and a "<" that starts a
// tag would switch the label to rich text; a word joiner after it, which
// shows as nothing, keeps the label plain.
func kdialogLabel(message string) string {
	var b strings.Builder
	rs := []rune(message)
	for i, r := range rs {
		switch {
		case r == '&':
			b.WriteString("&&")
		case r == '<' && i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || rs[i+1] == '/' || rs[i+1] == '!'):
			b.WriteString("<\u2060")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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

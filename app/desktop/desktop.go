// Package desktop posts Hark's notifications: ordinary ones for answers and
// errors, and approval requests with Approve and Deny buttons for commands
// that change the machine. On Linux both go to org.freedesktop.Notifications
// over a private D-Bus connection; on macOS answers go through the
// notification centre (beeep) and approvals through an osascript dialog
// whose text is passed as an argument, never spliced into the script.
package desktop

import (
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/app"
)

// Result is what Setup found: the adapters to wire into app.Options (nil
// when unavailable) and, when something is missing, a Problem message for
// the status line that says what still works.
type Result struct {
	Notifier app.Notifier
	Approver app.Approver
	Problem  string
	Close    func()
}

// approvalTitle and approvalBody are the words of an approval request,
// shared by every platform so the user sees the same thing everywhere.
func approvalTitle(p app.Pending) string {
	if c := strings.Join(strings.Fields(p.Client), " "); c != "" {
		// Another program asks through hark mcp: say which, so that the
		// user never approves it as if Hark's own model had asked.
		return clipRunes(c, 40) + " wants to run:"
	}
	if p.Purpose != "" {
		return "Hark wants to run a command (" + p.Purpose + ")"
	}
	return "Hark wants to run a command"
}

func approvalBody(p app.Pending) string {
	var b strings.Builder
	b.WriteString(commandExcerpt(p.Command))
	if len(p.Reasons) > 0 {
		b.WriteString("\n\n")
		for i, r := range p.Reasons {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("• ")
			b.WriteString(r.Why)
		}
	}
	if p.Rule != "" {
		b.WriteString("\n\n")
		b.WriteString(p.Rule)
	}
	if p.WorkingDirectory != "" {
		b.WriteString("\n\nin ")
		b.WriteString(p.WorkingDirectory)
	}
	if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		// The request was spoken: a misheard word shows here, before
		// anyone approves what came of it.
		b.WriteString("\n\nHeard: “" + clipRunes(h, heardLimit) + "”")
	}
	if pv := p.Preview; pv != nil {
		b.WriteString("\n\n" + pv.Summary)
		for i, l := range pv.Lines {
			if i == previewLines {
				fmt.Fprintf(&b, "\n… %d more in the audit log", len(pv.Lines)-previewLines)
				break
			}
			b.WriteString("\n" + l)
		}
	}
	if !p.Deadline.IsZero() {
		// A notification cannot count down; the menu does. Say when.
		fmt.Fprintf(&b, "\n\nAuto-deny at %s (in %s) if nobody answers.", p.Deadline.Local().Format("15:04"), roundMinutes(time.Until(p.Deadline)))
	}
	return b.String()
}

// Notification bodies are short: the transcript and the preview's target
// lines are cut to these.
const (
	heardLimit   = 160
	previewLines = 5
)

// clipRunes cuts s to n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// roundMinutes writes d as people say it: "2 min", "45 s".
func roundMinutes(d time.Duration) string {
	if d = d.Round(time.Second); d < time.Minute {
		return fmt.Sprintf("%d s", max(0, int(d.Round(time.Second).Seconds())))
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
}

// Notification bodies are cut by the desktop after a few lines, and the
// end of a command is where a trailing `; rm -rf ~` would hide: a long
// command is shown as its head and its tail around how much was left out.
const (
	excerptHead = 240
	excerptTail = 160
)

func commandExcerpt(cmd string) string {
	r := []rune(cmd)
	if len(r) <= excerptHead+excerptTail+40 {
		return cmd
	}
	hidden := len(r) - excerptHead - excerptTail
	return fmt.Sprintf("%s\n… %d more characters (Show full command… in the Hark menu) …\n%s",
		string(r[:excerptHead]), hidden, string(r[len(r)-excerptTail:]))
}

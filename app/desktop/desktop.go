// Package desktop posts Hark's notifications: ordinary ones for answers and
// errors, and approval requests with Approve and Deny buttons for commands
// that change the machine. On Linux both go to org.freedesktop.Notifications
// over a private D-Bus connection; on macOS answers go through the
// notification centre (beeep) and approvals through an osascript dialog
// whose text is passed as an argument, never spliced into the script.
package desktop

import (
	"fmt"
	"os"
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
// The title says whether the model is trying again after a no.
func approvalTitle(p app.Pending) string { return app.ApprovalTitle(p) }

// homeDir is written ~ in an approval's folder, as commands write it.
var homeDir = func() string { h, _ := os.UserHomeDir(); return h }()

func approvalBody(p app.Pending) string {
	var b strings.Builder
	sl := app.ScopeLines(p, homeDir)
	if len(sl) > 0 && app.ScopeWarns(p) {
		// A whole home folder or system root: said before anything else.
		b.WriteString(app.Visible(sl[0]) + "\n")
		sl = sl[1:]
	}
	if p.HeardDoubt != "" {
		b.WriteString("⚠ " + app.Visible(p.HeardDoubt) + "\n")
	}
	if line := app.AfterNoLine(p); line != "" {
		b.WriteString(line + "\n")
	}
	// Every field is shown with its hidden and control characters made
	// visible, as in the menu: the text may come from another program,
	// and what the user reads must be what runs.
	v := app.Visible
	excerpt, elided := commandExcerpt(v(p.Command))
	b.WriteString(excerpt)
	if elided {
		// The middle of a long command is cut: what deletes or overwrites
		// there is shown whole, so it is never the part that is hidden.
		for _, r := range app.DestructiveParts(p) {
			b.WriteString("\n⚠ " + v(r.Why) + ":\n" + shortLines(v(strings.TrimSpace(r.Command))))
		}
	}
	if len(p.Reasons) > 0 {
		// Most harmful first, as the agent orders them; all of them.
		b.WriteString("\n\n")
		for i, r := range p.Reasons {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("• ")
			b.WriteString(v(r.Why))
		}
	}
	if p.Rule != "" {
		b.WriteString("\n\n")
		b.WriteString(v(p.Rule))
	}
	if p.WorkingDirectory != "" {
		b.WriteString("\n\nin ")
		b.WriteString(v(app.Tilde(p.WorkingDirectory, homeDir)))
	}
	if l := app.HomeLegend(p, homeDir); l != "" {
		// The command names home by its path, the folder and preview
		// as ~: say they are one place, leaving the command as it runs.
		b.WriteString("\n" + l)
	}
	if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		// The request was spoken: a misheard word shows here, before
		// anyone approves what came of it.
		b.WriteString("\n\nHeard: “" + clipRunes(v(h), heardLimit) + "”")
	}
	if len(sl) > 0 {
		b.WriteString("\n\n" + v(strings.Join(sl, "\n")))
	}
	if pv := p.Preview; pv != nil {
		b.WriteString("\n\n" + v(pv.Summary))
		n := len(pv.Lines)
		if n > previewLines+1 {
			// One more line fits where "1 more" would go.
			n = previewLines
		}
		for _, l := range pv.Lines[:n] {
			b.WriteString("\n" + v(l))
		}
		if n < len(pv.Lines) {
			// Counted with their size: the lines shown and this one add
			// up to the summary.
			b.WriteString("\n… " + pv.More(n) + " (the audit log has them all)")
		}
	}
	if p.Proposal != nil {
		// A button would save the rule in one click; the menu shows what
		// it matches first.
		b.WriteString("\n\nAlways allow… is in the Hark menu, with what the rule would match.")
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
// command is shown as its head and its tail around how much was left out,
// and approvalBody adds its destructive parts whole.
const (
	excerptHead = 200
	excerptTail = 120
)

func commandExcerpt(cmd string) (string, bool) {
	r := []rune(cmd)
	if len(r) <= excerptHead+excerptTail+40 {
		return cmd, false
	}
	// Cut between words where one is near, so neither end shows half a
	// file name.
	head, tail := excerptHead, len(r)-excerptTail
	for i := head; i > head-30; i-- {
		if r[i] == ' ' {
			head = i
			break
		}
	}
	for i := tail; i < tail+30; i++ {
		if r[i-1] == ' ' {
			tail = i
			break
		}
	}
	return fmt.Sprintf("%s\n… %d more characters (Show full command… in the Hark menu) …\n%s",
		shortLines(string(r[:head])), tail-head, shortLines(string(r[tail:]))), true
}

// lineWidth bounds the lines shortLines makes: some servers
// (xfce4-notifyd) show only a few wrapped lines of each line of a body
// and cut the rest with "…", so a long line would lose its end.
const lineWidth = 56

// shortLines breaks s at spaces into lines of at most lineWidth
// characters; a longer word stays whole on its own line.
func shortLines(s string) string {
	var out []string
	line := ""
	for _, w := range strings.Split(s, " ") {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= lineWidth:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	return strings.Join(append(out, line), "\n")
}

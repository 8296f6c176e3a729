package agent

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Tally is what Hark itself knows about one request's commands,
// independent of what the model says about them. The app's final
// notification, its Recent conversations and every transcript state it
// the same way.
type Tally struct {
	Ran      int // commands that were executed
	Failed   int // of those, how many exited with an error
	Denied   int // the user said no
	TimedOut int // nobody answered in time
	Refused  int // forbidden by policy, nobody was asked
	Trashed  int // deletions answered with Move to Trash, all moved
	// TrashFailed: Move to Trash chosen, but not everything moved (the
	// tool result says what did).
	TrashFailed int
	// Timeout is how long an approval waited before it timed out.
	Timeout time.Duration
}

// Facts is the outcome in one line ("1 command denied — nothing changed"),
// or "" when no command was proposed.
func (o Tally) Facts() string {
	var parts []string
	if o.Ran > 0 {
		s := countOf(o.Ran, "command ran", "commands ran")
		if o.Failed > 0 {
			s += fmt.Sprintf(" (%d failed)", o.Failed)
		}
		parts = append(parts, s)
	}
	if o.Trashed > 0 {
		// Trashed counts commands, not files: "1 deletion moved" read as
		// one file when four went.
		parts = append(parts, "what "+countOf(o.Trashed, "deletion", "deletions")+" would have removed went to the Trash instead (Undo last trash puts it back)")
	}
	if o.TrashFailed > 0 {
		parts = append(parts, countOf(o.TrashFailed, "Move to Trash", "Moves to Trash")+" not complete")
	}
	if o.Denied > 0 {
		parts = append(parts, countOf(o.Denied, "command denied", "commands denied"))
	}
	if o.TimedOut > 0 {
		s := "approval timed out"
		if o.Timeout > 0 {
			s += " after " + humanDuration(o.Timeout)
		}
		if o.TimedOut > 1 {
			s = fmt.Sprintf("%d approvals timed out", o.TimedOut)
		}
		parts = append(parts, s)
	}
	if o.Refused > 0 {
		parts = append(parts, countOf(o.Refused, "command refused", "commands refused")+" (Hark never runs it)")
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, ", ")
	if o.Ran == 0 && o.Trashed == 0 && o.TrashFailed == 0 {
		s += " — nothing changed"
	}
	return s
}

// Ending is the text of a final notification or transcript entry: Hark's
// facts first, then the model's answer as plain text.
func Ending(o Tally, answer string) string {
	facts, plain := o.Facts(), PlainText(answer)
	switch {
	case facts == "":
		return plain
	case plain == "":
		return facts + "."
	}
	return facts + ".\n\n" + plain
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// humanDuration writes d as a person would say it: "2 min", "45 s",
// "1 min 30 s".
func humanDuration(d time.Duration) string {
	d = d.Round(time.Second)
	m, s := int(d/time.Minute), int((d%time.Minute)/time.Second)
	switch {
	case m == 0:
		return fmt.Sprintf("%d s", s)
	case s == 0:
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d min %d s", m, s)
}

var (
	mdFence  = regexp.MustCompile("(?m)^\\s*```[A-Za-z0-9_+-]*\\s*$\n?")
	mdHead   = regexp.MustCompile(`(?m)^\s{0,3}#{1,6}\s+`)
	mdQuote  = regexp.MustCompile(`(?m)^\s{0,3}>\s?`)
	mdBullet = regexp.MustCompile(`(?m)^(\s*)[-*+]\s+`)
	mdBold   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	// A single * is emphasis only when it hugs a word on both sides; a
	// single _ is left alone, since file names are full of them.
	mdEm   = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*\n]*[^*\s]|[^*\s])\*`)
	mdCode = regexp.MustCompile("`([^`\n]+)`")
	mdLink = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)
	blanks = regexp.MustCompile(`\n{3,}`)
)

// PlainText strips the Markdown a model likes to write (bold, code,
// headings, bullets, links, tables) so a notification shows words, not markup.
// Underscores are kept: `old_builds` must stay `old_builds`.
func PlainText(md string) string {
	s := strings.ReplaceAll(md, "\r\n", "\n")
	s = mdFence.ReplaceAllString(s, "")
	s = mdHead.ReplaceAllString(s, "")
	s = mdQuote.ReplaceAllString(s, "")
	s = mdBullet.ReplaceAllString(s, "${1}• ")
	s = mdBold.ReplaceAllString(s, "$1$2")
	s = mdEm.ReplaceAllString(s, "$1$2")
	s = mdCode.ReplaceAllString(s, "$1")
	s = mdLink.ReplaceAllString(s, "$1 ($2)")
	s = plainTables(s) // last, so the columns line up on the text as shown
	s = blanks.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

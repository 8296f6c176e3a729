package agent

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hark-sh/hark/shell/visible"
)

// Tally is what Hark itself knows about one request's commands,
// independent of what the model says about them. The app's final
// notification, its Recent conversations and every transcript state it
// the same way.
type Tally struct {
	Ran    int // commands that were executed
	Failed int // of those, how many exited with an error
	// ReadOnly and ReadOnlyFailed count the executed commands the policy
	// proved read-only (they ran in the read-only sandbox): they cannot
	// have changed anything, whatever the model says.
	ReadOnly       int
	ReadOnlyFailed int
	Denied         int // the user said no
	TimedOut       int // nobody answered in time
	Refused        int // forbidden by policy, nobody was asked
	NotAsked       int // needed an approval, but nobody could be asked (no terminal)
	Trashed        int // deletions answered with Move to Trash, all moved
	// TrashFailed: Move to Trash chosen, but not everything moved (the
	// tool result says what did).
	TrashFailed int
	// Timeout is how long an approval waited before it timed out.
	Timeout time.Duration
	// TrashedWhat names what Move to Trash moved ("old_builds", "a.log
	// and b.log", "4 items") and TrashedItems counts it; "" and 0 in
	// records written before the names were kept. (A string, so that a
	// Tally stays comparable.)
	TrashedWhat  string
	TrashedItems int
	// Deleted counts the plain deletions the user answered with Delete
	// (not Move to Trash) that ran and succeeded: gone for good. They are
	// among Ran. DeletedWhat and DeletedItems name what they removed,
	// as TrashedWhat does; "" for a find, whose matches are not listed.
	Deleted      int
	DeletedWhat  string
	DeletedItems int
	// Undo is how the surface showing the facts puts the last trashed
	// set back ("Undo last trash in the menu", "`hark undo`"); "" says
	// nothing about it (a transcript read later).
	Undo string
}

// Facts is the outcome in one line ("1 command denied — nothing changed"),
// or "" when no command was proposed.
func (o Tally) Facts() string {
	var parts []string
	moved := o.movedText()
	if d := o.deletedText(); d != "" {
		if moved != "" {
			moved = d + ". " + moved
		} else {
			moved = d
		}
	}
	if ran := o.Ran - o.Deleted; ran > 0 {
		s := countOf(ran, "command ran", "commands ran")
		if o.ReadOnly == ran {
			s = countOf(ran, "read-only command ran", "read-only commands ran")
		}
		if o.Failed > 0 {
			s += fmt.Sprintf(" (%d failed)", o.Failed)
		}
		parts = append(parts, s)
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
	if o.NotAsked > 0 {
		parts = append(parts, countOf(o.NotAsked, "command", "commands")+" not run: nobody could be asked to approve it")
	}
	if moved != "" {
		// What changed leads, as a sentence of its own.
		if len(parts) == 0 {
			return moved
		}
		return moved + ". " + strings.Join(parts, ", ")
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, ", ")
	if !o.CouldChange() {
		s += " — nothing changed"
	}
	return s
}

// movedText says what Move to Trash moved ("Moved old_builds to the
// Trash (… puts it back)"), or "" when nothing was.
func (o Tally) movedText() string {
	if o.Trashed == 0 {
		return ""
	}
	s := "Moved " + o.TrashedWhat + " to the Trash"
	if o.TrashedWhat == "" {
		// Trashed counts commands, not files: "1 deletion moved" read as
		// one file when four went.
		s = "Moved what " + countOf(o.Trashed, "deletion", "deletions") + " would have removed to the Trash"
	}
	if o.Undo != "" {
		it := "it"
		if o.TrashedItems > 1 {
			it = "them"
		}
		s += " (" + o.Undo + " puts " + it + " back)"
	}
	return s
}

// deletedText says what a Delete answer removed for good ("Deleted
// old_builds for good (not in the Trash)"), or "" when none did.
func (o Tally) deletedText() string {
	if o.Deleted == 0 {
		return ""
	}
	what := o.DeletedWhat
	if what == "" {
		what = "what " + countOf(o.Deleted, "command", "commands") + " removed"
	}
	return "Deleted " + what + " for good (not in the Trash)"
}

// deletedWhat names what Delete removed, as trashedWhat names what went
// to the Trash.
func deletedWhat(names []string) string { return trashedWhat(names) }

// CouldChange reports whether anything ran that could have changed the
// machine: a command outside the read-only tier, or a Move to Trash.
func (o Tally) CouldChange() bool {
	return o.Ran-o.ReadOnly > 0 || o.Trashed > 0 || o.TrashFailed > 0
}

// changed reports whether something surely changed: a command outside
// the read-only tier that exited 0, or a completed Move to Trash.
func (o Tally) changed() bool {
	return (o.Ran-o.ReadOnly)-(o.Failed-o.ReadOnlyFailed) > 0 || o.Trashed > 0 || o.TrashFailed > 0
}

// trashedWhat names what Move to Trash moved, from its names: both of
// two, else how many; hidden characters in a name are shown escaped.
func trashedWhat(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return visible.Line(names[0])
	case 2:
		return visible.Line(names[0]) + " and " + visible.Line(names[1])
	}
	return fmt.Sprintf("%d items", len(names))
}

// Ending is the text of a final notification or a reply: the model's
// answer as plain text first, since it is what was asked for, then Hark's
// facts. When the answer claims a change the record contradicts
// (Contradiction), Hark's account leads instead: its summary, then the
// flagged claim, then the rest of the model's reply, marked as the
// model's. A model sentence that only says again that nothing changed is
// left out, so it is said once, by Hark.
//
// It is read in a notification, a reply or aloud, where padded columns
// cannot line up, so its tables are one line per row (readableTables);
// EndingParts keeps them as columns for a transcript.
func Ending(o Tally, answer string) string {
	hark, model, flagged := endingParts(o, answer, readableText)
	switch {
	case flagged && model != "":
		return "Hark: " + hark + "\n\nThe model's reply: " + model
	case flagged:
		return "Hark: " + hark
	case hark == "":
		return model
	case model == "":
		return hark
	}
	return model + "\n\n" + hark
}

// EndingParts is Ending by speaker, for a surface that names each (a
// transcript): Hark's account (its facts, or when the answer claims what
// did not happen its summary and the flagged claim, flagged true) and
// what remains of the model's words as plain text; either may be "".
func EndingParts(o Tally, answer string) (hark, model string, flagged bool) {
	return endingParts(o, answer, PlainText)
}

// endingParts is EndingParts with the model's words made plain by render.
func endingParts(o Tally, answer string, render func(string) string) (hark, model string, flagged bool) {
	facts, plain := o.Facts(), render(answer)
	if claim := o.claim(plain); claim != "" {
		hark = strings.TrimPrefix(o.Summary(), "Hark: ") + "\n" + o.flag(claim)
		if strings.TrimRight(strings.TrimSpace(plain), ".!") != strings.TrimRight(claim, ".!") {
			model = plain
		}
		return hark, model, true
	}
	if !o.CouldChange() {
		plain = dropNothingChanged(plain)
	}
	if facts != "" {
		hark = facts + "."
	}
	return hark, plain, false
}

// SpokenEnding is Ending for a voice: Hark's summary and, when the model
// claims what did not happen, the flag alone — the false claim is heard
// once, inside the warning, never first or in full.
func SpokenEnding(o Tally, answer string) string {
	plain := PlainText(answer)
	if claim := o.claim(plain); claim != "" {
		return o.Summary() + " " + o.flag(claim)
	}
	return Ending(o, answer)
}

// nothingChangedRe is a sentence that says only that nothing changed.
var nothingChangedRe = regexp.MustCompile(`(?i)^\s*(so\s+)?(nothing|no files?|no changes?)(\s+(was|were|has been|have been|got))?\s+(changed|modified|touched|deleted|removed|made)\s*[.!]?\s*$`)

var sentenceRe = regexp.MustCompile(`[^.!?\n]+[.!?]*`)

// DropNothingChanged leaves out of plain text the sentences that say only
// that nothing changed, for a surface whose own closing line says it
// (hark ask, which streams the model's words before that line).
func DropNothingChanged(plain string) string { return dropNothingChanged(plain) }

// dropNothingChanged leaves out the sentences of s that say only that
// nothing changed: Hark's facts have said it.
func dropNothingChanged(s string) string {
	locs := sentenceRe.FindAllStringIndex(s, -1)
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if !nothingChangedRe.MatchString(s[l[0]:l[1]]) {
			continue
		}
		b.WriteString(s[last:l[0]])
		// Where a sentence went, one space joins what stood on either
		// side; runs of spaces elsewhere are kept, for they line up a
		// table's columns.
		last = l[1]
		for last < len(s) && (s[last] == ' ' || s[last] == '\t') {
			last++
		}
		if cur := b.String(); cur != "" && !strings.HasSuffix(cur, "\n") && last > l[1] {
			if !strings.HasSuffix(cur, " ") {
				b.WriteString(" ")
			}
		}
	}
	b.WriteString(s[last:])
	out := strings.TrimSpace(b.String())
	return blanks.ReplaceAllString(out, "\n\n")
}

// Did is the tally in a few words for a list row: what changed first
// ("2 moved to the Trash, 1 ran"), then what did not ("3 denied, 1 timed
// out"); read-only commands only as "looked only" when nothing else
// happened, and "" when no command was proposed.
func (o Tally) Did() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(o.Deleted, "deleted for good")
	add(o.Trashed+o.TrashFailed, "moved to the Trash")
	add(o.Ran-o.ReadOnly-o.Deleted, "ran")
	add(o.Failed-o.ReadOnlyFailed, "failed")
	add(o.Denied, "denied")
	add(o.TimedOut, "timed out")
	add(o.Refused, "refused")
	add(o.NotAsked, "not asked")
	if len(parts) == 0 && o.Ran > 0 {
		return "looked only, nothing changed"
	}
	return strings.Join(parts, ", ")
}

// Summary is Hark's own closing line: "Hark: " and the facts, or that no
// command ran at all.
func (o Tally) Summary() string {
	f := o.Facts()
	if f == "" {
		f = "no command ran — nothing changed"
	}
	return "Hark: " + f + "."
}

// claimWords are what a model writes when it says it changed something.
var claimWords = regexp.MustCompile(`(?i)\b(removed|deleted|erased|moved|trashed|archived|renamed|created|copied|cleaned|cleared|wrote|written|saved|installed|uninstalled|updated|changed|compressed|extracted|killed|freed|emptied|added|appended|overwritten|replaced|done|no longer)\b`)

// hedgeWords mark a sentence that denies, doubts or only proposes a
// change ("I did not delete it", "I would have removed", "if you want").
var hedgeWords = regexp.MustCompile(`(?i)\b(not|never|nothing|no|none|would|could|can|cannot|will|should|shall|if|want|wanted|may|might|instead|unless|denied|declined|refused|cancel(l)?ed|timed|failed|try|tried|please|let me)\b|n't\b|\?`)

// sentenceEnd splits an answer into sentences and lines.
var sentenceEnd = regexp.MustCompile(`[.!]\s+|\n+`)

// Contradiction flags an answer that claims a change when the record
// says nothing changed: every command that could change anything was
// denied, timed out, refused or failed, or no command ran at all. It returns
// the flag line ("⚠ The model says “Removed the originals.”, but that
// command was denied and did not run.") or "" when the answer claims
// nothing or something did change. It judges words, so it errs on the
// quiet side: a sentence that hedges or negates is never a claim.
func (o Tally) Contradiction(answer string) string {
	if claim := o.claim(PlainText(answer)); claim != "" {
		return o.flag(claim)
	}
	return ""
}

// claim is the sentence of plain that claims a change the record
// contradicts, "" when there is none.
func (o Tally) claim(plain string) string {
	blocked := o.Denied+o.TimedOut+o.Refused+o.NotAsked+(o.Failed-o.ReadOnlyFailed) > 0
	// Read-only commands alone are a question answered: "created
	// yesterday" there describes files, it claims nothing.
	if o.changed() || (!blocked && o.Ran > 0) {
		return ""
	}
	for _, s := range sentenceEnd.Split(plain, -1) {
		s = strings.TrimSpace(strings.TrimLeft(s, "•-* "))
		if claimWords.MatchString(s) && !hedgeWords.MatchString(strings.ReplaceAll(strings.ToLower(s), "no longer", "")) {
			return s
		}
	}
	return ""
}

// flag is the warning line for claim.
func (o Tally) flag(claim string) string {
	claim = strings.TrimRight(claim, ".!")
	if r := []rune(claim); len(r) > 80 {
		claim = strings.TrimSpace(string(r[:79])) + "…"
	}
	return "⚠ The model says “" + claim + "”, but " + o.whyNot() + "."
}

// whyNot says why nothing the model claims can have happened.
func (o Tally) whyNot() string {
	var why []string
	if o.Denied > 0 {
		why = append(why, "you denied it")
	}
	if o.TimedOut > 0 {
		why = append(why, "its approval timed out")
	}
	if o.Refused > 0 {
		why = append(why, "Hark refused it")
	}
	if o.NotAsked > 0 {
		why = append(why, "nobody could be asked to approve it")
	}
	failed := o.Failed - o.ReadOnlyFailed
	switch {
	case len(why) > 0 && failed > 0:
		return "that command did not run (" + strings.Join(why, ", ") + ") or failed"
	case len(why) > 0:
		return "that command did not run (" + strings.Join(why, ", ") + ")"
	case failed > 0:
		return "that command failed"
	}
	return "Hark ran no command for this request"
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
	mdCode   = regexp.MustCompile("`([^`\n]+)`")
	mdLink   = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)
	blanks   = regexp.MustCompile(`\n{3,}`)
)

// PlainText strips the Markdown a model likes to write (bold, code,
// headings, bullets, links, tables) so a notification shows words, not markup.
// Underscores are kept: `old_builds` must stay `old_builds`.
//
// Tables become padded columns, for a fixed-width font; readableText is
// the same with each row on a line of its own that names its columns.
func PlainText(md string) string { return plainText(md, plainTables) }

// readableText is PlainText for a proportional font (a notification,
// speech): tables become one line per row.
func readableText(md string) string { return plainText(md, readableTables) }

func plainText(md string, tables func(string) string) string {
	s := strings.ReplaceAll(md, "\r\n", "\n")
	s = mdFence.ReplaceAllString(s, "")
	s = mdHead.ReplaceAllString(s, "")
	s = mdQuote.ReplaceAllString(s, "")
	s = mdBullet.ReplaceAllString(s, "${1}• ")
	s = StripEmphasis(s) // only real emphasis: names keep their underscores
	s = mdCode.ReplaceAllString(s, "$1")
	s = mdLink.ReplaceAllString(s, "$1 ($2)")
	s = tables(s) // last, so the columns line up on the text as shown
	s = blanks.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

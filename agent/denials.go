package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hark-sh/hark/shell/plan"
)

// maxDenials is how many denials in a row end a request: a model that
// keeps proposing what the user keeps refusing is not going to stop on
// its own, and each question costs the user a decision.
const maxDenials = 3

// denials is what one request remembers of the user's "no": the commands
// denied so far, and how many denials came in a row. A new request starts
// with none, so the user can ask for the same thing again.
type denials struct {
	seen  map[string]bool
	inRow int
	// byUser counts only the denials in a row the user gave (a no, or no
	// answer in time), not the ones of nobody to ask: what a session of
	// calls from another program carries from call to call.
	byUser int
	// notAsked is why the last command nobody could be asked about was
	// not run ("" when none was), for the message that ends the request.
	notAsked string
}

// commandKey is a command as the shell reads it, in its folder: two
// proposals that parse alike (spacing, redundant quoting aside) in the
// same folder are one command. A line that does not parse is compared by
// its words.
func commandKey(command, workingDirectory string) string {
	text := strings.Join(strings.Fields(command), " ")
	if s, err := plan.Parse(command); err == nil {
		// Quoting that changes nothing is dropped: a word whose value is
		// plain text becomes that text, quoted one canonical way.
		syntax.Walk(s.File, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				if v, ok := literal(w); ok {
					if q, err := syntax.Quote(v, syntax.LangBash); err == nil {
						w.Parts = []syntax.WordPart{&syntax.Lit{Value: q}}
					}
				}
				return false
			}
			return true
		})
		var b strings.Builder
		if syntax.NewPrinter(syntax.Minify(true)).Print(&b, s.File) == nil {
			text = strings.TrimSpace(b.String())
		}
	}
	return filepath.Clean(workingDirectory) + "\x00" + text
}

// literal is a word's value when it is plain text under any quoting
// (plan.Literal) and no unquoted part of it is a pattern, a brace list
// or a tilde, which requoting would turn into text.
func literal(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[{~") {
			return "", false
		}
	}
	return plan.Literal(w)
}

func (d *denials) deniedBefore(key string) bool { return d.seen[key] }

// denied records a denial of key and says whether the request must stop.
// Only a denial the user gave (asked) is remembered as the user's: one
// made because nobody could be asked (Hark was not running) must not
// refuse the same command later, once someone can.
func (d *denials) denied(key string, asked bool) (stop bool) {
	if asked {
		if d.seen == nil {
			d.seen = map[string]bool{}
		}
		d.seen[key] = true
		d.byUser++
	}
	d.inRow++
	return d.inRow >= maxDenials
}

// ran breaks a run of denials: the user let something happen.
func (d *denials) ran() { d.inRow, d.byUser, d.notAsked = 0, 0, "" }

// err ends the request after maxDenials commands in a row were not run.
// It speaks of denials only when somebody denied: commands that nobody
// could be asked about (no terminal, Hark not running) are no one's
// "no", and the fix is a place where someone can answer.
func (d *denials) err() *Error {
	unasked := d.inRow - d.byUser
	switch {
	case unasked <= 0:
		return &Error{Kind: ErrDenials, msg: fmt.Sprintf("stopped after %d denials in a row; nothing you denied ran — say what you want done differently, and your next request starts fresh", d.inRow)}
	case d.byUser == 0:
		return &Error{Kind: ErrDenials, msg: fmt.Sprintf("stopped after %d commands in a row that needed your approval and could not get it (%s); none of them ran — ask where Hark can ask you, and your next request starts fresh", d.inRow, d.why())}
	}
	return &Error{Kind: ErrDenials, msg: fmt.Sprintf("stopped after %d commands in a row were not run: %d denied by you, %d that could not be put to you (%s) — say what you want done differently, and your next request starts fresh",
		d.inRow, d.byUser, unasked, d.why())}
}

// why is the reason nobody was asked, in its first sentence: the rest of
// it speaks to the model.
func (d *denials) why() string {
	s := d.notAsked
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	for _, p := range []string{"nobody was asked: ", "not run: "} {
		s = strings.TrimPrefix(s, p)
	}
	if s = strings.TrimSuffix(strings.TrimSpace(s), "."); s == "" {
		return "nobody could be asked"
	}
	return s
}

package app

import (
	"strings"
	"unicode"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/visible"
	"github.com/hark-sh/hark/speech"
)

// spokenKind is what a spoken answer to an approval asks for.
type spokenKind int

const (
	spokenNone    spokenKind = iota // not an answer: the approval keeps waiting
	spokenApprove                   // "yes", "approve", "run it"
	spokenDeny                      // "no", "deny", "stop", optionally with a reason
	spokenTrash                     // "trash it", "move to trash"
	spokenDelete                    // "delete it": Delete where Move to Trash is offered
)

// spokenAnswer is a transcript read against the approval grammar.
type spokenAnswer struct {
	kind   spokenKind
	reason string // with spokenDeny: what the model is told after "no, …"
}

// SpokenHelp names the words that answer an approval, for the status line
// when something else was heard.
const SpokenHelp = `say yes, no, or no because…`

// Whole utterances that answer; anything longer or different is not an
// answer, so "yes but no" and "not yet" never approve.
var (
	approvePhrases = []string{"yes", "approve", "run it", "yes run it", "yes approve", "yes approve it", "approve it"}
	denyPhrases    = []string{"no", "deny", "stop", "no deny", "deny it", "no stop"}
	trashPhrases   = []string{"trash it", "move to trash", "move to the trash", "move it to trash", "move it to the trash", "yes trash it"}
	// Only these take Delete over Move to Trash: a plain "yes" to a
	// deletion that offers the Trash takes the safe choice.
	deletePhrases = []string{"delete", "delete it", "delete them", "yes delete", "yes delete it", "yes delete them"}
	fillers       = map[string]bool{"um": true, "umm": true, "uh": true, "uhh": true, "er": true, "erm": true, "hmm": true, "please": true, "okay": true, "ok": true}
)

// parseSpoken reads text against the approval grammar. Case, punctuation
// and filler words do not count. A question ("yes?") is not an answer: the
// person is unsure, and an approval must not be guessed from doubt. A
// denial takes a reason only after a comma or "because" ("no, because it
// is the wrong folder"), so "no yes" stays ambiguous and is ignored.
func parseSpoken(text string) spokenAnswer {
	t := strings.TrimSpace(text)
	if strings.HasSuffix(t, "?") {
		return spokenAnswer{}
	}
	// A reason after the first word: split on the first comma, dash or
	// "because" before the words are normalised.
	head, rest, sep := t, "", false
	if i := strings.IndexAny(t, ",;:—–"); i >= 0 {
		head, rest, sep = t[:i], t[i+len(string([]rune(t[i:])[0])):], true
	}
	words := normWords(head)
	if !sep {
		for i, w := range words {
			if w == "because" && i > 0 {
				rest = strings.Join(strings.Fields(head)[i+countFillersBefore(head, i):], " ")
				words, sep = words[:i], true
				break
			}
		}
	}
	phrase := strings.Join(words, " ")
	if sep && isDenyHead(words) {
		reason := strings.TrimSpace(rest)
		reason = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(reason, "because"), "Because"))
		reason = strings.TrimRight(reason, ".!")
		if reason != "" && !allFiller(reason) {
			return spokenAnswer{kind: spokenDeny, reason: reason}
		}
		return spokenAnswer{kind: spokenDeny}
	}
	if sep {
		// "yes, run it" reads as one phrase; anything else after a comma
		// is not an answer.
		phrase = strings.Join(append(words, normWords(rest)...), " ")
	}
	switch {
	case in(phrase, approvePhrases):
		return spokenAnswer{kind: spokenApprove}
	case in(phrase, denyPhrases):
		return spokenAnswer{kind: spokenDeny}
	case in(phrase, trashPhrases):
		return spokenAnswer{kind: spokenTrash}
	case in(phrase, deletePhrases):
		return spokenAnswer{kind: spokenDelete}
	}
	return spokenAnswer{}
}

// countFillersBefore is how many filler words normWords dropped from the
// first n kept words of s, so a split by kept index lands in s's fields.
func countFillersBefore(s string, n int) int {
	dropped, kept := 0, 0
	for _, f := range strings.Fields(s) {
		if kept == n {
			break
		}
		w := strings.ToLower(strings.TrimFunc(f, isPunct))
		if w == "" || fillers[w] {
			dropped++
			continue
		}
		kept++
	}
	return dropped
}

func isDenyHead(words []string) bool {
	return len(words) >= 1 && len(words) <= 2 && in(strings.Join(words, " "), denyPhrases)
}

func allFiller(s string) bool { return len(normWords(s)) == 0 }

func isPunct(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// normWords lowercases s, drops punctuation and filler words.
func normWords(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), isPunct) {
		if f == "" || fillers[f] {
			continue
		}
		out = append(out, f)
	}
	return out
}

func in(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// ApproveMinP is how sure the transcriber must be of every word of a
// spoken answer that runs something (approve, Delete, Move to Trash); a
// denial needs no such care, since it runs nothing.
const ApproveMinP = 0.8

// spokenDecision turns a spoken answer to p into a Decision, or says why
// it is not one: ok is false and why names what to do instead. words are
// the transcriber's per-word probabilities, nil when it gives none.
//
// A spoken answer never runs a command the person may not have taken in
// by ear or at a glance: one with hidden characters, one whose preview
// cannot tell what it touches, a forbidden one (never asked anyway). A
// "yes" to a deletion that offers Move to Trash takes the Trash; only
// "delete it", heard clearly, deletes. A word heard with doubt never
// approves.
func spokenDecision(p Pending, heardText string, words []speech.Word) (d Decision, ok bool, why string) {
	heardText = strings.TrimSpace(heardText)
	ans := parseSpoken(heardText)
	d = Decision{PendingID: p.ID, By: ByVoice, Heard: heardText}
	if ans.kind == spokenDeny {
		d.Reason = ans.reason
		return d, true, ""
	}
	if ans.kind == spokenNone {
		return Decision{}, false, "heard “" + clip(Visible(heardText), 30) + "” — " + SpokenHelp
	}
	if ans.kind == spokenTrash && !p.TrashOffered {
		return Decision{}, false, `Move to Trash is not offered for this command — ` + SpokenHelp
	}
	if ans.kind == spokenDelete && !p.TrashOffered {
		return Decision{}, false, `heard “` + clip(Visible(heardText), 80) + `” — to run it say "yes"; or say "no"`
	}
	if why := needsClick(p); why != "" {
		return Decision{}, false, why
	}
	if unsure := unsureWords(heardText, words); unsure != "" {
		return Decision{}, false, "not sure I heard “" + unsure + "” — say it again, or answer with a click"
	}
	switch ans.kind {
	case spokenApprove:
		if p.TrashOffered {
			d.Trash = true // the safe choice: "delete it" deletes
		} else {
			d.Approved = true
		}
	case spokenTrash:
		d.Trash = true
	case spokenDelete:
		d.Approved = true
	}
	return d, true, ""
}

// needsClick says why p cannot be run by a spoken answer, or "".
func needsClick(p Pending) string {
	switch {
	case p.Tier == shell.Forbidden:
		return "this command is forbidden and never runs"
	case visible.Hidden(p.Command) || visible.Hidden(p.WorkingDirectory):
		return "this command holds hidden characters — approve it with a click, not by voice"
	case previewCannotTell(p.Preview):
		return "Hark cannot tell what this command would touch — approve it with a click, not by voice"
	case p.Unlimited:
		return "a run without limits is approved with a click, never by voice"
	case p.Further != "":
		return "going beyond what you approved is approved with a click, not by voice"
	case p.Scope != nil && p.Scope.Broad != "":
		return "this command may change anything in a whole folder such as your home — approve it with a click, not by voice"
	}
	return ""
}

// previewCannotTell reports a preview that does not know what the command
// touches: the person cannot have heard it described.
func previewCannotTell(pv *preview.Preview) bool {
	if pv == nil {
		return false
	}
	if pv.Status == preview.Unavailable {
		return true
	}
	if strings.Contains(strings.ToLower(pv.Summary), "cannot tell") || strings.Contains(strings.ToLower(pv.Summary), "cannot be known") {
		return true
	}
	for _, l := range pv.Lines {
		if strings.Contains(strings.ToLower(l), "cannot tell") {
			return true
		}
	}
	return false
}

// unsureWords is the words of text heard with less than ApproveMinP, or
// "" when all were clear (or the transcriber gives no probabilities).
// A word no token matches counts as unsure: an answer that cannot be
// checked does not run anything.
func unsureWords(text string, words []speech.Word) string {
	if words == nil {
		return ""
	}
	var out []string
	ps := speech.Confidence(text, words)
	for i, f := range strings.Fields(text) {
		w := strings.Join(normWords(f), " ")
		if w == "" {
			continue // punctuation or a filler word: it decides nothing
		}
		if ps[i] < ApproveMinP {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// ByVoice marks a Decision spoken while the approval waited; the audit
// log records it in decidedBy with the words heard.
const ByVoice = agent.ByVoice

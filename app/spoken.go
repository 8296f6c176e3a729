package app

import (
	"strings"
	"unicode"

	"github.com/hark-sh/hark/shell/visible"
)

// spokenKind is what a spoken answer to an approval asks for.
type spokenKind int

const (
	spokenNone    spokenKind = iota // not an answer: the approval keeps waiting
	spokenApprove                   // "yes", "approve", "run it"
	spokenDeny                      // "no", "deny", "stop", optionally with a reason
	spokenTrash                     // "trash it", "move to trash"
)

// spokenAnswer is a transcript read against the approval grammar.
type spokenAnswer struct {
	kind   spokenKind
	reason string // with spokenDeny: what the model is told after "no, …"
}

// SpokenHelp names the words that answer an approval, for the status line
// when something else was heard.
const SpokenHelp = `say "yes", "no", or "no, because …"`

// Whole utterances that answer; anything longer or different is not an
// answer, so "yes but no" and "not yet" never approve.
var (
	approvePhrases = []string{"yes", "approve", "run it", "yes run it", "yes approve", "yes approve it", "approve it"}
	denyPhrases    = []string{"no", "deny", "stop", "no deny", "deny it", "no stop"}
	trashPhrases   = []string{"trash it", "move to trash", "move to the trash", "move it to trash", "move it to the trash", "yes trash it"}
	fillers        = map[string]bool{"um": true, "umm": true, "uh": true, "uhh": true, "er": true, "erm": true, "hmm": true, "please": true, "okay": true, "ok": true}
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

// spokenDecision turns a spoken answer to p into a Decision, or says why
// it is not one: ok is false and why names what to do instead. An approval
// of a command with hidden characters needs a click, and Move to Trash
// only answers where it is offered.
func spokenDecision(p Pending, heardText string) (d Decision, ok bool, why string) {
	ans := parseSpoken(heardText)
	d = Decision{PendingID: p.ID, By: ByVoice}
	switch ans.kind {
	case spokenApprove:
		if visible.Hidden(p.Command) {
			return Decision{}, false, "this command holds hidden characters — approve it with a click, not by voice"
		}
		d.Approved = true
		return d, true, ""
	case spokenDeny:
		d.Reason = ans.reason
		return d, true, ""
	case spokenTrash:
		if !p.TrashOffered {
			return Decision{}, false, `Move to Trash is not offered for this command — ` + SpokenHelp
		}
		d.Trash = true
		return d, true, ""
	}
	return Decision{}, false, "heard “" + strings.TrimSpace(heardText) + "” — " + SpokenHelp
}

// ByVoice marks a Decision spoken while the approval waited; the audit
// log records it in decidedBy like the other channels.
const ByVoice = "voice"

package agent

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// FollowUpWindow is how soon after a conversation's last update a request
// may continue it. Time alone cannot tell a follow-up from the next
// unrelated errand (walk 6 put eight errands in six minutes), so a request
// within the window must also read as a follow-up (FollowsUp); past it,
// everything starts afresh.
const FollowUpWindow = 10 * time.Minute

// cuePlace is where in a request a follow-up cue counts.
type cuePlace int

const (
	anywhere cuePlace = iota // as a word or words of their own anywhere
	atStart                  // only as the request's first word
)

// followUpCues are the words and phrases by which a request refers back to
// what came before ("and delete them too", "do it again", "what about the
// api project"). Requests are English: the speech models are English-only.
// Apostrophes split words, so "it's" and "that's" carry "it" and "that".
// "and", "now" and "then" join on only at the start: inside a request they
// are ordinary words ("cats and dogs", "right now").
var followUpCues = map[string]cuePlace{
	"it": anywhere, "they": anywhere, "them": anywhere, "that": anywhere,
	"those": anywhere, "these": anywhere, "there": anywhere,
	"again": anywhere, "also": anywhere, "too": anywhere, "instead": anywhere,
	"same": anywhere, "undo": anywhere, "why": anywhere,
	"the rest": anywhere, "the other": anywhere,
	"what about": anywhere, "how about": anywhere,
	"and": atStart, "now": atStart, "then": atStart,
}

// FollowsUp reports whether request, made at now, continues c: it comes
// within FollowUpWindow of c's last update, and it refers back to what
// came before (followUpCues), or repeats c's last request (a retry after
// an error, a timeout or a denial), or answers the question the model's
// last reply ended with. Anything else is a new errand for a new
// conversation; the caller's explicit choices (New conversation, hark ask
// --new or --continue) go before this.
func FollowsUp(c *Conversation, request string, now time.Time) bool {
	if c == nil || len(c.Messages) == 0 || c.Updated.IsZero() || now.Sub(c.Updated) >= FollowUpWindow {
		return false
	}
	words := requestWords(request)
	if len(words) == 0 {
		return false
	}
	return refersBack(words) || repeats(words, lastRequest(c)) || askedBack(c)
}

// ConversationFor is the conversation request, made at now, goes to: prev
// when it follows up on it (FollowsUp), else a new one started at now.
// continued says which, so the caller can say so.
func ConversationFor(prev *Conversation, request string, now time.Time) (c *Conversation, continued bool) {
	if FollowsUp(prev, request, now) {
		return prev, true
	}
	return newConversationAt(now), false
}

// requestWords are request's words in lower case, split at everything but
// letters and digits, so punctuation and spacing that transcription adds
// or drops do not matter.
func requestWords(request string) []string {
	return strings.FieldsFunc(strings.ToLower(request), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func refersBack(words []string) bool {
	for i, w := range words {
		place, ok := followUpCues[w]
		if ok && (place == anywhere || i == 0) && !pointsNowhere(words, i) {
			return true
		}
	}
	// Padded with spaces, a phrase matches whole words only.
	joined := " " + strings.Join(words, " ") + " "
	for cue := range followUpCues {
		if strings.Contains(cue, " ") && strings.Contains(joined, " "+cue+" ") {
			return true
		}
	}
	return false
}

// notBack are uses of a cue word that refer to nothing said before: "is
// there any space left" asks whether something exists, and "files that
// are older" describes the files; each is a word just before or after.
var notBack = map[string]struct{ before, after []string }{
	"there": {before: []string{"is", "are", "was", "were"}, after: []string{"is", "are", "was", "were"}},
	"that":  {after: []string{"are", "is", "was", "were", "have", "has", "had", "contain", "contains", "match", "matches", "end", "ends", "start", "starts"}},
}

func pointsNowhere(words []string, i int) bool {
	n, ok := notBack[words[i]]
	return ok && (i > 0 && slices.Contains(n.before, words[i-1]) || i+1 < len(words) && slices.Contains(n.after, words[i+1]))
}

// repeats compares without spaces too: "web app" heard once and "webapp"
// the next time is the same request.
func repeats(words []string, last string) bool {
	return last != "" && strings.Join(words, "") == strings.Join(requestWords(last), "")
}

// lastRequest is the request c heard last: its last run's, else (a request
// still running elsewhere) its last user message that Hark did not add.
func lastRequest(c *Conversation) string {
	if n := len(c.Runs); n > 0 {
		return c.Runs[n-1].Request
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if m := c.Messages[i]; m.Role == "user" && !strings.HasPrefix(m.Content, CorrectionPrefix) {
			return m.Content
		}
	}
	return ""
}

// askedBack reports whether c ends with the model asking the user
// something: its last message is an answer that ends with a question mark
// (markup and quotes after it aside).
func askedBack(c *Conversation) bool {
	m := c.Messages[len(c.Messages)-1]
	if m.Role != "assistant" || len(m.ToolCalls) > 0 {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(m.Content, " \t\r\n*_`\"'”’)"), "?")
}

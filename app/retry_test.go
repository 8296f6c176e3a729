package app

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// maxTitle is about what a notification server shows of a title before it
// cuts it (xfce4-notifyd on a 640 px wide screen cuts near 40).
const maxTitle = 32

// TestRetryIsMarkedAfterADenialOrATimeout: a proposal that follows a no
// or a timeout says which, in the menu, the notification's lines and
// speech; its title is short enough to be read whole and does not repeat
// the line that says which.
func TestRetryIsMarkedAfterADenialOrATimeout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		timeout      bool
		line, spoken string
		never        string
	}{
		{"after a no", false, "After you said no to “echo milk > ~/notes.txt”, the model proposes this instead:", "After your no, the model proposes another command.", "timed out"},
		{"after a timeout", true, "After “echo milk > ~/notes.txt” timed out unanswered, the model proposes this instead:", "After the last one timed out, the model proposes another command.", "said no"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := Pending{ID: "p2", Command: "echo milk >> ~/notes.txt", AfterNo: "echo milk > ~/notes.txt", AfterTimeout: c.timeout}
			if got := AfterNoLine(p); got != c.line {
				t.Errorf("AfterNoLine = %q, want %q", got, c.line)
			}
			title := ApprovalTitle(p)
			if n := utf8.RuneCountInString(title); n > maxTitle {
				t.Errorf("title %q is %d characters, over %d", title, n, maxTitle)
			}
			if title == ApprovalTitle(Pending{Command: p.Command}) {
				t.Errorf("a retry has a first request's title %q", title)
			}
			if strings.Contains(title, "proposes") || strings.Contains(title, c.never) {
				t.Errorf("title %q repeats the body's first line or misnames the retry", title)
			}
			var labels []string
			for _, it := range BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{p}}).Items {
				if strings.HasPrefix(it.ID, PrefixPending+p.ID+":") {
					labels = append(labels, it.Label)
				}
			}
			rows := strings.Join(strings.Fields(strings.Join(labels, " ")), " ")
			if !strings.Contains(rows, c.line) || strings.Contains(rows, c.never) {
				t.Errorf("menu rows do not say %q:\n%s", c.line, rows)
			}
			desc := SpokenApproval(p, "/home/u")
			if !strings.HasPrefix(desc, c.spoken) {
				t.Errorf("spoken %q does not open with %q", desc, c.spoken)
			}
			if strings.Contains(FullCommandText(p, "/home/u"), c.never) {
				t.Errorf("Show full command… misnames the retry")
			}
		})
	}
	// A first proposal is not marked, and AfterTimeout alone marks nothing.
	p := Pending{Command: "mkdir x", AfterTimeout: true}
	if AfterNoLine(p) != "" || ApprovalTitle(p) != "Run this command?" {
		t.Errorf("a first proposal is marked: %q %q", AfterNoLine(p), ApprovalTitle(p))
	}
}

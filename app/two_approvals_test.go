package app

import (
	"strings"
	"testing"
	"time"
)

// TestMenuTwoApprovalsFitTheScreen: walk 6 had a deletion of its own and
// Claude Desktop's waiting at once; the menu grew past a 900-pixel screen,
// Settings… and Quit Hark scrolled out of view, and the two entries ran
// together with who asked on their 6th row. Each entry is now headed by
// who asks, a separator parts them, and once a second arrives each folds
// to its header and one row that opens it whole, so the top level stays
// short and every answer is still there.
func TestMenuTwoApprovalsFitTheScreen(t *testing.T) {
	t.Parallel()
	fam := longFamily()
	own := fam["rm in the middle"]
	other := fam["everything at once"]
	other.ID, other.Client, other.Heard = "p2", "Claude Desktop", ""
	idle := BuildMenu(View{State: Idle, Confirm: true, CanType: true, Home: "/home/ana"})
	v := View{State: AwaitingApproval, Confirm: true, CanType: true, Home: "/home/ana", Request: "archive the logs",
		Pending: []Pending{own, other}, Deadlines: map[string]time.Duration{"p1": 41 * time.Second, "p2": 2 * time.Minute}}
	m := BuildMenu(v)
	rows := outline(m.Items, "")
	var top []string
	for _, r := range rows {
		if !strings.HasPrefix(r, " ") {
			top = append(top, r)
		}
	}
	want := []string{
		"pending|label|Pending approval (2)|D",
		"asker:p1|label|You asked: “archive the logs”|D",
		"entry:p1|sub|  $ mkdir -p ~/a && tar -czf ~/a/x.tgz ~/Projec… · auto-deny in 0:41|",
		"sep:pending:p2|sep||",
		"asker:p2|label|Claude Desktop asks:|D",
		"entry:p2|sub|  $ mkdir -p d0 && touch d0/f && chmod 600 d0/f… · auto-deny in 2:00|",
		"sep:pending|sep||",
	}
	if got := strings.Join(top[:len(want)], "\n"); got != strings.Join(want, "\n") {
		t.Errorf("top of the menu:\n%s\n\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The approvals add the header and no more than three rows each to
	// the menu at rest, and Cancel (the status row says how to answer).
	if extra := len(top) - len(idle.Items); extra > 2+3*len(v.Pending) {
		t.Errorf("two approvals add %d rows to the top level:\n%s", extra, strings.Join(top, "\n"))
	}
	if findItem(m.Items, IDSettings) == nil || findItem(m.Items, IDQuit) == nil {
		t.Errorf("Settings… or Quit Hark is missing:\n%s", strings.Join(rows, "\n"))
	}
	// Inside, each entry is whole: its command, its answers.
	for _, p := range v.Pending {
		sub := findItem(m.Items, PrefixEntry+p.ID)
		if sub == nil {
			t.Fatalf("no entry row for %s", p.ID)
		}
		for _, id := range []string{PrefixDeny + p.ID, PrefixApprove + p.ID, PrefixShowFull + p.ID} {
			if findItem(sub.Children, id) == nil {
				t.Errorf("%s is not inside %s's entry", id, p.ID)
			}
		}
	}
	assertUniqueIDs(t, m.Items)

	// One alone is shown open, headed the same way.
	m = BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{other}})
	if it := findItem(m.Items, PrefixAsker+"p2"); it == nil || it.Label != "Claude Desktop asks:" || findItem(m.Items, PrefixEntry+"p2") != nil {
		t.Errorf("a single approval:\n%s", rowsOf(m))
	}
}

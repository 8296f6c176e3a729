package app

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/scope"
)

// Every surface that asks shows what the run may change and reach, as the
// kernel will hold it; a scope of a whole home folder is said first.
func TestApprovalShowsItsScope(t *testing.T) {
	t.Parallel()
	home := "/home/u"
	narrow := Pending{ID: "p1", Command: "npm install", WorkingDirectory: home + "/proj",
		Scope: &scope.Scope{Write: []string{home + "/proj", home + "/.npm"}, Network: true, Why: map[string]string{home + "/.npm": "npm's package cache and logs"}}}
	broad := Pending{ID: "p2", Command: "make", WorkingDirectory: home, Scope: &scope.Scope{Write: []string{home}, Broad: home}}

	rows := strings.Join(outline(BuildMenu(View{State: AwaitingApproval, Confirm: true, Home: home, Pending: []Pending{narrow}}).Items, ""), "\n")
	for _, want := range []string{"|    May change: ~/proj, ~/.npm (npm's package cache and logs)|", "|    Uses the network|"} {
		if !strings.Contains(rows, want) {
			t.Errorf("menu lacks %q:\n%s", want, rows)
		}
	}
	rows = strings.Join(outline(BuildMenu(View{State: AwaitingApproval, Confirm: true, Home: home, Pending: []Pending{broad}}).Items, ""), "\n")
	warn, cmd := strings.Index(rows, "May change anything in your home folder"), strings.Index(rows, "$ make")
	if warn < 0 || cmd < 0 || warn > cmd {
		t.Errorf("the home-folder warning must come before the command:\n%s", rows)
	}

	if full := FullCommandText(narrow, home); !strings.Contains(full, "May change: ~/proj, ~/.npm") || !strings.Contains(full, "Uses the network") {
		t.Errorf("Show full command… lacks the scope:\n%s", full)
	}
	if said := SpokenApproval(broad, home); !strings.Contains(said, "May change anything in your home folder") {
		t.Errorf("the spoken approval lacks the warning: %s", said)
	}
	if len(ScopeLines(Pending{Command: "ls"}, home)) != 0 {
		t.Error("a call without a scope has no scope lines")
	}
}

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

// A spoken "yes" alone approves neither a scope of a whole home folder,
// nor going beyond what was approved, nor a run without limits; a spoken
// "no" still denies each.
func TestSpokenYesCannotWidenAScope(t *testing.T) {
	t.Parallel()
	home := "/home/u"
	for name, p := range map[string]Pending{
		"home":      {ID: "p", Command: "make", Scope: &scope.Scope{Write: []string{home}, Broad: home}},
		"further":   {ID: "p", Command: "make", Scope: &scope.Scope{Write: []string{home + "/proj", home + "/notes"}}, Further: "Also allow changing ~/notes (this run)?"},
		"unlimited": {ID: "p", Command: "make", Unlimited: true, Further: "It was refused something outside what you approved."},
	} {
		if d, ok, why := spokenDecision(p, "yes", nil); ok || d.Approved || why == "" {
			t.Errorf("%s: a spoken yes gave %+v ok=%v", name, d, ok)
		}
		if d, ok, _ := spokenDecision(p, "no", nil); !ok || d.Approved {
			t.Errorf("%s: a spoken no gave %+v ok=%v", name, d, ok)
		}
	}
	narrow := Pending{ID: "p", Command: "make", Scope: &scope.Scope{Write: []string{home + "/proj"}}}
	if d, ok, _ := spokenDecision(narrow, "yes", nil); !ok || !d.Approved {
		t.Errorf("a narrow scope is approved by voice as before: %+v %v", d, ok)
	}
	if l := ScopeLines(Pending{Unlimited: true}, home); len(l) == 0 || !strings.HasPrefix(l[0], "⚠ Runs without limits") {
		t.Errorf("a run without limits says so first: %q", l)
	}
}

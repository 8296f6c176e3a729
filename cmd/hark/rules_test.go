package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

func rulesEnv(t *testing.T) (*env, *bytes.Buffer, *bytes.Buffer, *rules.Store, string) {
	t.Helper()
	home := t.TempDir()
	var out, errb bytes.Buffer
	pol := shell.NewPolicy()
	st := rules.Open(filepath.Join(home, "hark", rules.FileName), home, pol)
	return &env{stdout: &out, stderr: &errb}, &out, &errb, st, home
}

func TestRulesAddListCheckRemove(t *testing.T) {
	t.Parallel()
	e, out, errb, st, home := rulesEnv(t)
	pol := shell.NewPolicy()
	run := func(args ...string) int {
		out.Reset()
		errb.Reset()
		return rulesCommand(e, st, pol, home, args)
	}
	if code := run("add", "allow", "git", "commit", "--folder", "~/src/app", "--match", "git commit -m x", "--no-match", "git push"); code != exitOK {
		t.Fatalf("add: %d %s", code, errb)
	}
	if !strings.Contains(out.String(), "Added rule 1: always allow git commit in ~/src/app") {
		t.Fatalf("add said %q", out)
	}
	// A rule whose examples contradict it is refused, with the reason.
	if code := run("add", "never", "rm", "--match", "ls", "--no-match", "rm x"); code != exitError || !strings.Contains(errb.String(), `"ls" should match`) {
		t.Fatalf("bad add: %d %q", code, errb)
	}
	if code := run("add", "allow", "git"); code != exitError || !strings.Contains(errb.String(), "at least one example") {
		t.Fatalf("add without examples: %d %q", code, errb)
	}
	if code := run("add", "never", "git", "push", "--match", "git push origin main --force", "--no-match", "git push", "--", "--force"); code != exitOK ||
		!strings.Contains(out.String(), "Added rule 2: never run git push --force") {
		t.Fatalf("add with a word after --: %d %q %q", code, out, errb)
	}
	if _, err := st.Remove(2); err != nil {
		t.Fatal(err)
	}
	if code := run("list"); code != exitOK || !strings.Contains(out.String(), "1. always allow git commit in ~/src/app") || !strings.Contains(out.String(), "matches: git commit -m x") {
		t.Fatalf("list: %d %q", code, out)
	}

	checks := []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--dir", "~/src/app", "--", "git", "commit", "-m", "fix"},
			[]string{"runs without asking", "policy: confirm", "your rule 1 (always allow git commit in ~/src/app) allowed it"}},
		{[]string{"check", "--dir", "~/src/app", "--", "git push"},
			[]string{"asks", "no rule matches", "Always allow would save: always allow git push in ~/src/app"}},
		{[]string{"check", "--dir", "~/src/app", "--", "git commit .git/config"},
			[]string{"asks", "always asks"}},
		{[]string{"check", "--", "sudo rm -rf /"},
			[]string{"refused (forbidden)", "forbids it"}},
		{[]string{"check", "--", "ls"},
			[]string{"read-only sandbox"}},
		{[]string{"check", "--dir", "~/src/app", "--", "echo hi > x"},
			[]string{"Always allow is not offered: it has a redirection"}},
	}
	for _, c := range checks {
		if code := run(c.args...); code != exitOK {
			t.Fatalf("%v: %d %s", c.args, code, errb)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	if code := run("remove", "2"); code != exitError || !strings.Contains(errb.String(), "no rule 2") {
		t.Fatalf("remove 2: %d %q", code, errb)
	}
	if code := run("remove", "1"); code != exitOK || !strings.Contains(out.String(), "Removed rule 1") {
		t.Fatalf("remove 1: %d %q", code, out)
	}
	if code := run("list"); code != exitOK || !strings.Contains(out.String(), "No rules yet") {
		t.Fatalf("list after remove: %q", out)
	}
}

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want answer
	}{
		{"y", answer{approve: true}},
		{" YES ", answer{approve: true}},
		{"a", answer{always: true}},
		{"always", answer{always: true}},
		{"", answer{}},
		{"n", answer{}},
		{"no", answer{}},
		{"n: use the Trash instead", answer{reason: "use the Trash instead"}},
		{"No, keep them", answer{reason: "keep them"}},
		{"n - wrong folder", answer{reason: "wrong folder"}},
		{"nope", answer{}},
		{"yes please", answer{}}, // only a clear yes runs a command
		{"ya", answer{}},
	}
	for _, c := range cases {
		if got := parseAnswer(c.in); got != c.want {
			t.Errorf("parseAnswer(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestTerminalAlwaysAllowAndDenyWithReason(t *testing.T) {
	t.Parallel()
	prop := &rules.Rule{Kind: rules.Allow, Program: "touch", Folder: "~/proj",
		Examples: rules.Examples{Match: []string{"touch a"}, NoMatch: []string{"touch ../a"}}}
	cases := []struct {
		name   string
		input  string
		p      agent.Pending
		want   agent.Decision
		stderr []string
	}{
		{"always allow confirmed", "a\ny\n", agent.Pending{Proposal: prop},
			agent.Decision{Approved: true, By: agent.ByTerminal, Rule: prop},
			[]string{"rule: always allow touch in ~/proj", "still asks, e.g.: touch ../a", "Save this rule and run?"}},
		{"always allow declined, then plain yes", "a\nn\ny\n", agent.Pending{Proposal: prop},
			agent.Decision{Approved: true, By: agent.ByTerminal},
			[]string{"no rule saved"}},
		{"always allow not offered", "a\nn\n", agent.Pending{NoProposal: "Always allow is not offered: it has a redirection"},
			agent.Decision{By: agent.ByTerminal},
			[]string{"it has a redirection"}},
		{"deny with a reason", "n: not that folder\n", agent.Pending{Rule: "your rule 2 (always ask for cat secrets.txt) asks before it runs"},
			agent.Decision{By: agent.ByTerminal, Reason: "not that folder"},
			[]string{"your rule 2 (always ask for cat secrets.txt) asks before it runs", "n REASON: deny and say why"}},
		{"end of input denies", "", agent.Pending{Proposal: prop},
			agent.Decision{By: agent.ByTerminal}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var errb bytes.Buffer
			e := &env{stdin: strings.NewReader(c.input), stdout: &bytes.Buffer{}, stderr: &errb, isTerminal: true}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d, err := newTerminalConfirmer(e).Confirm(ctx, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if d.Approved != c.want.Approved || d.By != c.want.By || d.Rule != c.want.Rule || d.Reason != c.want.Reason {
				t.Fatalf("decision %+v, want %+v", d, c.want)
			}
			for _, w := range c.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("prompt lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

// The rules file shown in docs/rules.md loads with every rule in force.
func TestDocsRulesExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```json\n(\\{\n  \"version\": 1.*?)\n```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/rules.md has no rules.json example")
	}
	home := t.TempDir()
	path := filepath.Join(home, rules.FileName)
	if err := os.WriteFile(path, m[1], 0o600); err != nil {
		t.Fatal(err)
	}
	st := rules.Open(path, home, shell.NewPolicy())
	es := st.Entries()
	if len(es) != 3 || len(st.Warnings()) != 0 {
		t.Fatalf("entries %+v, warnings %v", es, st.Warnings())
	}
	for _, e := range es {
		if e.Err != nil {
			t.Errorf("docs/rules.md rule %d: %v", e.Number, e.Err)
		}
	}
}

func TestRulesProblemsNameTheFix(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, rules.FileName)
	bad := `{"version": 1, "rules": [{"kind": "allow", "program": "rm", "examples": {"match": ["ls"], "noMatch": ["rm x"]}}]}`
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	got := rulesProblems(rules.Open(path, home, shell.NewPolicy()))
	if len(got) != 1 || !strings.Contains(got[0], "rule 1 in "+path+" is ignored") || !strings.Contains(got[0], "hark rules remove 1") {
		t.Fatalf("problems %q", got)
	}
	if got := rulesProblems(nil); got != nil {
		t.Fatalf("no store: %q", got)
	}
}

// TestRunThisOffersAlwaysAllowOnlyWithARule: the question names a: always
// allow only when there is a rule to save; otherwise choosing it led only
// to a list of reasons why not.
func TestRunThisOffersAlwaysAllowOnlyWithARule(t *testing.T) {
	t.Parallel()
	prop := &rules.Rule{Kind: rules.Allow, Program: "mkdir"}
	for _, c := range []struct {
		p    agent.Pending
		want bool
	}{{agent.Pending{ID: "a", NoProposal: "it has a redirection"}, false}, {agent.Pending{ID: "b", Proposal: prop}, true}} {
		var errb bytes.Buffer
		e := &env{stdin: strings.NewReader("n\n"), stdout: &bytes.Buffer{}, stderr: &errb, isTerminal: true}
		if _, err := newTerminalConfirmer(e).Confirm(context.Background(), c.p); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(errb.String(), "a: always allow"); got != c.want {
			t.Errorf("proposal %v: offers always allow = %v, want %v\n%s", c.p.Proposal != nil, got, c.want, errb.String())
		}
	}
}

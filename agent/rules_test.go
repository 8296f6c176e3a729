package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

// rulesHarness is the harness with the real policy and a rules file, and
// a Confirmer that answers each Pending through answer.
func rulesHarness(t *testing.T, replies []reply, answer func(p Pending) Decision) (*harness, *rules.Store, *[]Pending) {
	t.Helper()
	var mu sync.Mutex
	var asked []Pending
	var store *rules.Store
	h := newHarness(t, replies, func(o *Options) {
		pol := shell.NewPolicy()
		o.Classifier = pol
		store = rules.Open(filepath.Join(o.Home, rules.FileName), o.Home, pol)
		o.Rules = store
		o.Confirmer = ConfirmerFunc(func(_ context.Context, p Pending) (Decision, error) {
			mu.Lock()
			asked = append(asked, p)
			mu.Unlock()
			return answer(p), nil
		})
	})
	return h, store, &asked
}

func TestAlwaysAllowThenSameCommandRunsUnaskedAndOtherStillAsks(t *testing.T) {
	t.Parallel()
	h, store, asked := rulesHarness(t, nil, func(p Pending) Decision {
		if p.Proposal != nil {
			return Decision{Approved: true, By: ByMenu, Rule: p.Proposal}
		}
		return Decision{Approved: false, By: ByMenu}
	})
	proj := filepath.Join(h.home, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	h.client.replies = []reply{
		tools(call("command", "touch notes.txt", "workingDirectory", proj)),
		tools(call("command", "touch notes.txt", "workingDirectory", proj)),
		tools(call("command", "touch ../elsewhere.txt", "workingDirectory", proj)),
		text("Done."),
	}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "make notes"); err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 2 || (*asked)[0].Command != "touch notes.txt" || (*asked)[1].Command != "touch ../elsewhere.txt" {
		t.Fatalf("asked %+v", *asked)
	}
	first, third := (*asked)[0], (*asked)[1]
	if first.Proposal == nil || first.Proposal.String() != "always allow touch in ~/proj" {
		t.Fatalf("proposal %+v (%s)", first.Proposal, first.NoProposal)
	}
	if third.Proposal != nil || !strings.Contains(third.NoProposal, "outside the folder") {
		t.Fatalf("a command leaving the folder was offered %+v (%s)", third.Proposal, third.NoProposal)
	}
	if got := h.exec.commands(); !slices.Equal(got, []string{"touch notes.txt", "touch notes.txt"}) {
		t.Fatalf("ran %v", got)
	}
	if es := store.Entries(); len(es) != 1 || es[0].Err != nil || es[0].Rule.Program != "touch" {
		t.Fatalf("rules file %+v", es)
	}
	es := h.auditEntries(t)
	if len(es) != 3 {
		t.Fatalf("audit %+v", es)
	}
	if es[0].Decision != DecisionApproved || es[0].DecidedBy != ByMenu || es[0].Rule != "added rule 1: always allow touch in ~/proj" {
		t.Errorf("audit 1 %+v", es[0])
	}
	if es[1].Decision != DecisionAllowed || es[1].DecidedBy != ByRule || es[1].Rule != "rule 1: always allow touch in ~/proj" || !es[1].Executed {
		t.Errorf("audit 2 %+v", es[1])
	}
	if es[2].Decision != DecisionDenied || es[2].Rule != "" {
		t.Errorf("audit 3 %+v", es[2])
	}
	tm := toolMessages(t, h.client.request(t, 2).Messages)
	if len(tm) != 2 || tm[1]["rule"] != "rule 1: always allow touch in ~/proj" || tm[1]["executed"] != true {
		t.Errorf("the model was not told the rule decided: %v", tm)
	}
	if h.exec.ran[1].Verdict.Tier != shell.Confirm {
		t.Errorf("an allowed command runs as an approved one: %+v", h.exec.ran[1].Verdict)
	}
}

func TestDenyWithReasonReachesModelAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	h, _, _ := rulesHarness(t, []reply{
		tools(cmd("rm -rf /tmp/old-builds", "executing")),
		text("Understood: I will keep the builds."),
	}, func(p Pending) Decision {
		return Decision{Approved: false, By: ByTerminal, Reason: "  keep them,\n I still need the March build  "}
	})
	out, err := h.agent.Run(context.Background(), NewConversation(), "clean up")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.exec.ran) != 0 {
		t.Fatal("a denied command ran")
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	if len(tm) != 1 || tm[0]["error"] != "The user denied this command: keep them, I still need the March build" {
		t.Fatalf("model was told %v", tm)
	}
	if out.Answer != "Understood: I will keep the builds." {
		t.Fatalf("answer %q", out.Answer)
	}
	if es := h.auditEntries(t); len(es) != 1 || es[0].DenyReason != "keep them, I still need the March build" || es[0].Decision != DecisionDenied {
		t.Fatalf("audit %+v", es)
	}
}

func TestReasonOnApprovalOrErrorIsNotADenialReason(t *testing.T) {
	t.Parallel()
	h, _, _ := rulesHarness(t, []reply{
		tools(cmd("mkdir /tmp/x", "executing")),
		text("ok"),
	}, func(p Pending) Decision {
		// A reason never turns an approval into something else.
		return Decision{Approved: true, By: ByMenu, Reason: "sure"}
	})
	if _, err := h.agent.Run(context.Background(), NewConversation(), "x"); err != nil {
		t.Fatal(err)
	}
	if es := h.auditEntries(t); len(es) != 1 || es[0].Decision != DecisionApproved || es[0].DenyReason != "" {
		t.Fatalf("audit %+v", es)
	}
}

func TestForgedAlwaysAllowRuleIsNotSaved(t *testing.T) {
	t.Parallel()
	h, store, _ := rulesHarness(t, []reply{
		tools(cmd("mkdir /tmp/x", "executing")),
		text("ok"),
	}, func(p Pending) Decision {
		wide := rules.Rule{Kind: rules.Allow, Program: "rm",
			Examples: rules.Examples{Match: []string{"rm x"}, NoMatch: []string{"ls"}}}
		return Decision{Approved: true, By: ByMenu, Rule: &wide}
	})
	if _, err := h.agent.Run(context.Background(), NewConversation(), "x"); err != nil {
		t.Fatal(err)
	}
	if len(store.Entries()) != 0 {
		t.Fatalf("a rule that was never shown was saved: %+v", store.Entries())
	}
	warned := false
	for _, e := range h.events.events {
		warned = warned || e.Kind == EventWarning && strings.Contains(e.Text, "not the one shown")
	}
	if !warned || len(h.exec.ran) != 1 {
		t.Fatalf("warned %v, ran %v", warned, h.exec.commands())
	}
}

func TestNeverAndAskRules(t *testing.T) {
	t.Parallel()
	h, store, asked := rulesHarness(t, []reply{
		tools(cmd("git push --force origin main", "executing")),
		tools(cmd("cat secrets.txt", "checking")),
		text("ok"),
	}, func(p Pending) Decision { return Decision{Approved: false, By: ByMenu} })
	for _, r := range []rules.Rule{
		{Kind: rules.Never, Program: "git", Words: []string{"push", "--force"},
			Examples: rules.Examples{Match: []string{"git push --force"}, NoMatch: []string{"git push"}}},
		{Kind: rules.Ask, Program: "cat", Words: []string{"secrets.txt"},
			Examples: rules.Examples{Match: []string{"cat secrets.txt"}, NoMatch: []string{"cat notes.txt"}}},
	} {
		if _, err := store.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "x"); err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 1 || (*asked)[0].Command != "cat secrets.txt" || (*asked)[0].Tier != shell.Safe ||
		(*asked)[0].Rule != "your rule 2 (always ask for cat secrets.txt) asks before it runs" || (*asked)[0].Proposal != nil {
		t.Fatalf("asked %+v", *asked)
	}
	if len(h.exec.ran) != 0 {
		t.Fatalf("ran %v", h.exec.commands())
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	if len(tm) != 1 || !strings.HasPrefix(tm[0]["error"].(string), "Refused by the user's rule") || tm[0]["rule"] != "rule 1: never run git push --force" {
		t.Fatalf("model was told %v", tm)
	}
	es := h.auditEntries(t)
	if len(es) != 2 || es[0].Decision != DecisionRefused || es[0].DecidedBy != ByRule || es[1].Rule != "rule 2: always ask for cat secrets.txt" {
		t.Fatalf("audit %+v", es)
	}
}

func TestSpokenAnswerIsAuditedWithItsWords(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		d        Decision
		decision string
	}{
		"approve": {Decision{Approved: true, By: ByVoice, Heard: "Yes, run it."}, DecisionApproved},
		"deny":    {Decision{By: ByVoice, Heard: "No, because it is the wrong folder.", Reason: "it is the wrong folder"}, DecisionDenied},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, _, _ := rulesHarness(t, []reply{
				tools(cmd("mkdir /tmp/x", "executing")),
				text("ok"),
			}, func(p Pending) Decision { return c.d })
			if _, err := h.agent.Run(context.Background(), NewConversation(), "x"); err != nil {
				t.Fatal(err)
			}
			es := h.auditEntries(t)
			if len(es) != 1 || es[0].Decision != c.decision || es[0].DecidedBy != ByVoice || es[0].HeardAnswer != c.d.Heard {
				t.Fatalf("audit %+v", es)
			}
		})
	}
}

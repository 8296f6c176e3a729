package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell/rules"
)

// TestTerminalPromptOrder: the terminal asks in the order of every other
// surface, the safe choice first and marked as the default, Delete never
// beside it; a is offered only with a rule, and a retry after a no says
// which no it follows.
func TestTerminalPromptOrder(t *testing.T) {
	t.Parallel()
	ask := func(p agent.Pending, input string) (agent.Decision, string) {
		var errb bytes.Buffer
		e := &env{stdin: strings.NewReader(input), stdout: &bytes.Buffer{}, stderr: &errb, isTerminal: true}
		d, err := newTerminalConfirmer(e).Confirm(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return d, errb.String()
	}
	d, out := ask(agent.Pending{Command: "rm ~/a", TrashOffered: true}, "\n")
	if !d.Trash || !strings.Contains(out, "Move to Trash instead? [T]rash (safe choice) / [n]o / [d]elete") {
		t.Errorf("trash prompt %q answered %+v", out, d)
	}
	d, out = ask(agent.Pending{Command: "mkdir x"}, "\n")
	if d.Approved || !strings.Contains(out, "Run this? [N]o (safe choice) / [y]es (n REASON: deny and say why) ") || strings.Contains(out, "always") {
		t.Errorf("prompt without a rule %q answered %+v", out, d)
	}
	rule := &rules.Rule{Kind: rules.Allow, Program: "mkdir", Folder: "~/p", Examples: rules.Examples{Match: []string{"mkdir x"}, NoMatch: []string{"mkdir ../x"}}}
	d, out = ask(agent.Pending{Command: "mkdir x", Proposal: rule, AfterNo: "rm -r ~/p/old"}, "a\ny\n")
	if !d.Approved || d.Rule != rule || !strings.Contains(out, "a: always allow…") || !strings.Contains(out, "still asks, e.g.: mkdir ../x") ||
		!strings.Contains(out, "after you said no to: rm -r ~/p/old") {
		t.Errorf("prompt with a rule %q answered %+v", out, d)
	}
	_, out = ask(agent.Pending{Command: "echo a >> ~/n", AfterNo: "echo a > ~/n", AfterTimeout: true}, "\n")
	if strings.Contains(out, "said no") || !strings.Contains(out, "after no answer came in time for: echo a > ~/n") {
		t.Errorf("a retry after a timeout: %q", out)
	}
}

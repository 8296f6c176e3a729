package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/rules"
)

const testNoSandbox = "the sandbox is off in settings"

// TestNoSandboxAsksEveryCallFromAnotherProgram: with no sandbox, a call
// from another program runs only after the user's yes, a read-only one
// too, and Always allow is not offered for it; the approval says the
// command runs without limits.
func TestNoSandboxAsksEveryCallFromAnotherProgram(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *Options) { o.NoSandbox = testNoSandbox })
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}, {Approved: false, By: ByMenu}}
	for _, c := range []string{`{"command":"ls -la"}`, `{"command":"cat notes.txt"}`} {
		if _, err := h.agent.Handle(context.Background(), CallRequest{Arguments: json.RawMessage(c), Client: "Cursor", Confirmer: h.confirmer}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(h.confirmer.askedCommands(), "|"); got != "ls -la|cat notes.txt" {
		t.Fatalf("asked %q, want both read-only commands asked", got)
	}
	for _, p := range h.confirmer.asked {
		if !p.NoSandbox || p.Proposal != nil || !strings.Contains(p.NoProposal, "no sandbox") {
			t.Errorf("approval of %q: NoSandbox %v, proposal %v, %q", p.Command, p.NoSandbox, p.Proposal, p.NoProposal)
		}
	}
	if got := strings.Join(h.exec.commands(), "|"); got != "ls -la" {
		t.Errorf("ran %q, want only the approved one", got)
	}
}

// TestNoSandboxRefusesCallsThatAskNotToBeAsked: --yes and mcpConfirmOff
// cannot run another program's command unasked where there is no sandbox;
// the result says why and what to do, and the user is not asked.
func TestNoSandboxRefusesCallsThatAskNotToBeAsked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *Options) { o.NoSandbox = testNoSandbox })
	for _, tc := range []struct{ args, because string }{
		{`{"command":"ls -la"}`, "hark exec was given --yes"},
		{`{"command":"rm old.txt"}`, ""},
	} {
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: json.RawMessage(tc.args), Client: "Cursor",
			Confirmer: h.confirmer, NoConfirm: true, NoConfirmBecause: tc.because})
		if err != nil {
			t.Fatal(err)
		}
		if res.Executed || !strings.Contains(res.Error, "no sandbox ("+testNoSandbox+")") || !strings.Contains(res.Error, "turn the sandbox on") {
			t.Errorf("%s: executed %v, error %q", tc.args, res.Executed, res.Error)
		}
		if tc.because != "" && !strings.Contains(res.Error, tc.because) {
			t.Errorf("%s: the error %q does not name %q", tc.args, res.Error, tc.because)
		}
	}
	if len(h.confirmer.asked) != 0 || len(h.exec.ran) != 0 {
		t.Errorf("asked %q, ran %q", h.confirmer.askedCommands(), h.exec.commands())
	}
}

// TestNoSandboxAllowRuleStillAsksAnotherProgram: an always-allow rule
// runs the user's own requests unasked, but not another program's when
// there is no sandbox.
func TestNoSandboxAllowRuleStillAsksAnotherProgram(t *testing.T) {
	t.Parallel()
	h, store, asked := rulesHarness(t, nil, func(Pending) Decision { return Decision{Approved: false, By: ByMenu} })
	h.agent.o.NoSandbox = testNoSandbox
	proj := filepath.Join(h.home, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Add(rules.Rule{Kind: rules.Allow, Program: "touch", Folder: proj,
		Examples: rules.Examples{Match: []string{"touch a.txt"}, NoMatch: []string{"rm a.txt"}}}); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"command": "touch a.txt", "workingDirectory": proj})
	res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Cursor", Confirmer: h.agent.o.Confirmer})
	if err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 1 || res.Executed {
		t.Errorf("asked %d times, executed %v (%q); want asked once and, denied, not run", len(*asked), res.Executed, res.Error)
	}
}

// TestNoSandboxConfirmationOffAppliesToNothing: the voice loop's own
// commands are asked about with confirmation off too, when there is no
// sandbox to hold them.
func TestNoSandboxConfirmationOffAppliesToNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{tools(cmd("rm old.txt", "executing")), text("Done.")}, func(o *Options) {
		o.NoSandbox = testNoSandbox
		o.NoConfirm = true
	})
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "remove old.txt"); err != nil {
		t.Fatal(err)
	}
	if len(h.confirmer.asked) != 1 || !h.confirmer.asked[0].NoSandbox {
		t.Fatalf("asked %+v, want one approval that says there is no sandbox", h.confirmer.asked)
	}
}

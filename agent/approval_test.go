package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/trash"
)

func TestDeletionsAndOverwritesAreNeverOfferedAlwaysAllow(t *testing.T) {
	t.Parallel()
	h, _, asked := rulesHarness(t, nil, func(p Pending) Decision { return Decision{By: ByMenu} })
	dl := filepath.Join(h.home, "Downloads")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		t.Fatal(err)
	}
	cmds := []string{"rm -r old_builds", "mv a.txt b.txt", "cp a.txt b.txt", "rmdir old", "mkdir release_notes"}
	// One request each: three denials in a row end a request.
	for _, c := range cmds {
		h.client.replies = append(h.client.replies, tools(call("command", c, "workingDirectory", dl)), text("ok"))
		if _, err := h.agent.Run(context.Background(), NewConversation(), "tidy"); err != nil {
			t.Fatal(err)
		}
	}
	if len(*asked) != len(cmds) {
		t.Fatalf("asked %d times, want %d", len(*asked), len(cmds))
	}
	for _, p := range (*asked)[:4] {
		if p.Proposal != nil || p.NoProposal != NoProposalDestructive {
			t.Errorf("%s: offered %v (%q); a deletion or overwrite must never be one click from a rule", p.Command, p.Proposal, p.NoProposal)
		}
	}
	if last := (*asked)[4]; last.Proposal == nil {
		t.Errorf("mkdir lost its Always allow: %q", last.NoProposal)
	}
}

// allowRmHarness has a Trash, the real policy and a rules file that
// already allows every rm in ~/Downloads, as one click on the old
// Always allow saved it.
func allowRmHarness(t *testing.T, mod func(*Options)) (*harness, *trash.Bin, string) {
	t.Helper()
	var bin *trash.Bin
	withBin := withTrash(t, &bin)
	h := newHarness(t, nil, func(o *Options) {
		withBin(o)
		pol := shell.NewPolicy()
		o.Classifier = pol
		store := rules.Open(filepath.Join(o.Home, rules.FileName), o.Home, pol)
		if _, err := store.Add(rules.Rule{Kind: rules.Allow, Program: "rm", Folder: "~/Downloads",
			Examples: rules.Examples{Match: []string{"rm -r old_builds"}, NoMatch: []string{"rm ../elsewhere"}}}); err != nil {
			t.Fatal(err)
		}
		o.Rules = store
		if mod != nil {
			mod(o)
		}
	})
	return h, bin, filepath.Join(h.home, "Downloads")
}

func TestDeletionARuleAllowsGoesToTheTrash(t *testing.T) {
	t.Parallel()
	h, bin, dl := allowRmHarness(t, nil)
	old := filepath.Join(dl, "old_builds")
	writeFile(t, filepath.Join(old, "a.o"))
	h.client.replies = []reply{tools(call("command", "rm -r old_builds", "workingDirectory", dl)), text("Removed.")}
	out, err := h.agent.Run(context.Background(), NewConversation(), "remove the build folder")
	if err != nil {
		t.Fatal(err)
	}
	checkTrashedUnasked(t, h, bin, out, old, DecisionAllowed, "rules allows this deletion")
}

func TestDeletionWithConfirmationOffGoesToTheTrash(t *testing.T) {
	t.Parallel()
	h, bin, dl := allowRmHarness(t, func(o *Options) { o.Rules = nil; o.NoConfirm = true })
	old := filepath.Join(dl, "old_builds")
	writeFile(t, filepath.Join(old, "a.o"))
	h.client.replies = []reply{tools(call("command", "rm -r old_builds", "workingDirectory", dl)), text("Removed.")}
	out, err := h.agent.Run(context.Background(), NewConversation(), "delete the old builds")
	if err != nil {
		t.Fatal(err)
	}
	checkTrashedUnasked(t, h, bin, out, old, DecisionUnconfirmedRun, "Confirmation is off")
}

func checkTrashedUnasked(t *testing.T, h *harness, bin *trash.Bin, out Outcome, old, decision, why string) {
	t.Helper()
	if len(h.confirmer.asked) != 0 {
		t.Fatalf("asked %+v; the deletion should run without a question", h.confirmer.asked)
	}
	if len(h.exec.ran) != 0 {
		t.Fatalf("the deletion itself ran: %v", h.exec.commands())
	}
	if present(old) || !present(filepath.Join(h.home, ".local", "share", "Trash", "files", "old_builds", "a.o")) {
		t.Fatal("old_builds is not in the Trash")
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	got, _ := tm[0]["output"].(string)
	if len(tm) != 1 || tm[0]["success"] != true || tm[0]["executed"] != false ||
		!strings.Contains(got, why) || !strings.Contains(got, "Moved 1 item to the Trash instead of deleting: "+old) {
		t.Fatalf("model was told %v", tm)
	}
	if out.Metrics.Trashed != 1 || out.Metrics.Commands != 0 {
		t.Errorf("metrics %+v", out.Metrics)
	}
	if facts := out.Metrics.Tally().Facts(); facts != "Moved old_builds to the Trash" {
		t.Errorf("the summary %q does not say the deletion went to the Trash", facts)
	}
	es := h.auditEntries(t)
	if len(es) != 1 || es[0].Decision != decision || es[0].Executed || !slices.Equal(es[0].Trashed, []string{old}) {
		t.Fatalf("audit %+v", es)
	}
	if rec, err := bin.UndoLast(); err != nil || len(rec.Items) != 1 || !present(filepath.Join(old, "a.o")) {
		t.Fatalf("undo: %+v, %v", rec, err)
	}
}

func TestReasonsAreOrderedBySeverity(t *testing.T) {
	t.Parallel()
	v := shell.NewPolicy().ClassifyIn("mkdir -p ~/p/archive && tar -czf ~/p/archive/logs.tgz a.log && curl -sO https://example.com/x && echo x > notes.txt && rm a.log b.log", "~")
	var got []string
	for _, r := range OrderReasons(v.Reasons) {
		got = append(got, r.Why)
	}
	want := []string{"rm: deletes files", "> notes.txt: overwrites a file", "curl: uses the network", "mkdir: creates directories", "tar: creates or extracts archives"}
	if !slices.Equal(got, want) {
		t.Fatalf("ordered %q\nwant    %q", got, want)
	}
	if v.Reasons[0].Why != "mkdir: creates directories" {
		t.Errorf("OrderReasons changed its argument: %v", v.Reasons)
	}
	for _, c := range []struct {
		r    shell.Reason
		want bool
	}{
		{shell.Reason{Why: "rm: deletes files", Category: policy.Delete}, true},
		{shell.Reason{Why: "> f: overwrites a file", Category: policy.Write}, true},
		{shell.Reason{Why: "mv: moves or renames files", Category: policy.Write}, true},
		{shell.Reason{Why: ">> f: appends to a file", Category: policy.Write}, false},
		{shell.Reason{Why: "mkdir: creates directories", Category: policy.Write}, false},
		{shell.Reason{Why: "curl: uses the network", Category: policy.Network}, false},
	} {
		if Destructive(c.r) != c.want {
			t.Errorf("Destructive(%q) = %v", c.r.Why, !c.want)
		}
	}
}

func TestApprovalShowsReasonsMostHarmfulFirst(t *testing.T) {
	t.Parallel()
	h, _, asked := rulesHarness(t, []reply{
		tools(cmd("mkdir -p ~/p && tar -czf ~/p/l.tgz ~/a.log && rm ~/a.log", "executing")), text("ok"),
	}, func(p Pending) Decision { return Decision{By: ByMenu} })
	if _, err := h.agent.Run(context.Background(), NewConversation(), "archive"); err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 1 || len((*asked)[0].Reasons) != 3 || (*asked)[0].Reasons[0].Why != "rm: deletes files" {
		t.Fatalf("asked %+v", *asked)
	}
}

func TestRetryAfterNoIsMarked(t *testing.T) {
	t.Parallel()
	h, _, asked := rulesHarness(t, []reply{
		tools(cmd("rm -r ~/Downloads/old_builds", "executing")),
		tools(cmd("rm -r ~/Downloads/old_builds/*", "executing")),
		text("ok"),
	}, func(p Pending) Decision { return Decision{By: ByMenu} })
	if _, err := h.agent.Run(context.Background(), NewConversation(), "remove the builds"); err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 2 {
		t.Fatalf("asked %+v", *asked)
	}
	if (*asked)[0].AfterNo != "" || (*asked)[1].AfterNo != "rm -r ~/Downloads/old_builds" {
		t.Fatalf("AfterNo %q, %q", (*asked)[0].AfterNo, (*asked)[1].AfterNo)
	}
}

// TestRetryAfterTimeoutIsMarked: a proposal after an approval that timed
// out is marked as a retry too, as one after a timeout; one after a
// plain no is not marked as after a timeout.
func TestRetryAfterTimeoutIsMarked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		by      string
		timeout bool
	}{{ByTimeout, true}, {ByMenu, false}} {
		t.Run(c.by, func(t *testing.T) {
			t.Parallel()
			n := 0
			h, _, asked := rulesHarness(t, []reply{
				tools(cmd("echo milk > ~/notes.txt", "executing")),
				tools(cmd("echo milk >> ~/notes.txt", "executing")),
				text("ok"),
			}, func(p Pending) Decision {
				n++
				if n == 1 {
					return Decision{By: c.by}
				}
				return Decision{By: ByMenu}
			})
			if _, err := h.agent.Run(context.Background(), NewConversation(), "write milk into my notes"); err != nil {
				t.Fatal(err)
			}
			if len(*asked) != 2 {
				t.Fatalf("asked %+v", *asked)
			}
			first, second := (*asked)[0], (*asked)[1]
			if first.AfterNo != "" || first.AfterTimeout {
				t.Fatalf("the first proposal is marked: %q %v", first.AfterNo, first.AfterTimeout)
			}
			if second.AfterNo != "echo milk > ~/notes.txt" || second.AfterTimeout != c.timeout {
				t.Fatalf("the retry: AfterNo %q, AfterTimeout %v, want %v", second.AfterNo, second.AfterTimeout, c.timeout)
			}
		})
	}
}

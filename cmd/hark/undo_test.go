package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// trashHome points HOME at a fresh folder with one file to delete.
func trashHome(t *testing.T) (home, target string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	target = filepath.Join(home, "Downloads", "old notes.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, target
}

// checkTrashPrompt checks a run that answered the Trash prompt about
// trashHome's target: whether the file is gone, and whether to the Trash.
func checkTrashPrompt(t *testing.T, code int, stdout, stderr, home, target string, inTrash, deleted bool) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "Move to Trash instead? [T]rash (safe choice) / [n]o / [d]elete") {
		t.Fatalf("no Trash prompt: %q", stderr)
	}
	trashed := filepath.Join(home, ".local", "share", "Trash", "files", "old notes.txt")
	_, err := os.Stat(target)
	if gone := err != nil; gone != (inTrash || deleted) {
		t.Fatalf("target gone = %v\n%s", gone, stdout)
	}
	if _, err := os.Stat(trashed); (err == nil) != inTrash {
		t.Fatalf("in the Trash = %v, want %v\n%s", err == nil, inTrash, stdout)
	}
}

func TestAskOffersTheTrash(t *testing.T) {
	cases := []struct {
		name, stdin string
		decision    string
		inTrash     bool
		deleted     bool
	}{
		{"enter moves to the Trash", "\n", agent.DecisionTrashed, true, false},
		{"t moves to the Trash", "t\n", agent.DecisionTrashed, true, false},
		{"d deletes", "d\n", agent.DecisionApproved, false, true},
		{"n denies", "n\n", agent.DecisionDenied, false, false},
		{"y is not an answer here", "y\n", agent.DecisionDenied, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, target := trashHome(t)
			srv, harkHome := askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm ~/Downloads/'old notes.txt'", "purpose", "executing")}},
				ollamatest.Reply{Text: "Done."},
			)
			r := runAgentCLI(t, c.stdin, true, "ask", "--new", "delete my old notes")
			checkTrashPrompt(t, r.code, r.stdout, r.stderr, home, target, c.inTrash, c.deleted)
			if c.inTrash && !strings.Contains(r.stdout, "✓ Moved 1 item to the Trash instead of deleting: "+target) {
				t.Fatalf("stdout does not say what moved:\n%s", r.stdout)
			}
			// Hark's own summary names what moved and, in a terminal,
			// the command that puts it back, not a menu item.
			if c.inTrash && (!strings.Contains(r.stdout, "Hark: Moved old notes.txt to the Trash (hark undo puts it back).") || strings.Contains(r.stdout, "Undo last trash")) {
				t.Fatalf("the summary does not read well:\n%s", r.stdout)
			}
			tr := cliToolResults(t, srv.Requests()[1])
			if c.inTrash && (tr[0]["success"] != true || !strings.Contains(tr[0]["output"].(string), "hark undo")) {
				t.Fatalf("model told %v", tr[0])
			}
			es, _, _ := agent.ReadAudit(filepath.Join(harkHome, "audit.jsonl"))
			if len(es) != 1 || es[0].Decision != c.decision {
				t.Fatalf("audit %+v", es)
			}
		})
	}
}

func TestUndo(t *testing.T) {
	home, target := trashHome(t)
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm -r ~/Downloads", "purpose", "executing")}},
		ollamatest.Reply{Text: "Done."},
	)
	if r := runAgentCLI(t, "t\n", true, "ask", "--new", "delete Downloads"); r.code != exitOK {
		t.Fatalf("ask: exit %d\n%s", r.code, r.stderr)
	}
	downloads := filepath.Join(home, "Downloads")
	if _, err := os.Stat(downloads); err == nil {
		t.Fatal("Downloads was not moved")
	}

	r := runAgentCLI(t, "", false, "undo", "-n")
	if r.code != exitOK || !strings.Contains(r.stdout, "for `rm -r ~/Downloads`") || !strings.Contains(r.stdout, "  "+downloads+"\n") {
		t.Fatalf("undo -n: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Something new in the way: nothing is put back, and it says why.
	if err := os.Mkdir(downloads, 0o755); err != nil {
		t.Fatal(err)
	}
	r = runAgentCLI(t, "", false, "undo")
	if r.code != exitError || !strings.Contains(r.stderr, downloads+" exists") || !strings.Contains(r.stderr, "Nothing was restored") {
		t.Fatalf("undo over an existing folder: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a refused undo put the file back")
	}
	os.Remove(downloads)
	r = runAgentCLI(t, "", false, "undo")
	if r.code != exitOK || !strings.Contains(r.stdout, "Put back 1 item:\n  "+downloads+"\n") {
		t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "notes" {
		t.Fatalf("after undo: %q, %v", b, err)
	}
	r = runAgentCLI(t, "", false, "undo")
	if r.code != exitOK || !strings.Contains(r.stdout, "nothing to undo") {
		t.Fatalf("second undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestAskTrashesWhatFindWouldDelete runs the listing for real: the same
// find with -print in the read-only sandbox, then the Trash.
func TestAskTrashesWhatFindWouldDelete(t *testing.T) {
	home, _ := trashHome(t)
	logs := filepath.Join(home, "logs")
	for _, f := range []string{"a.log", "sub/b.log", "keep.txt"} {
		p := filepath.Join(logs, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, harkHome := askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "find ~/logs -name '*.log' -delete", "purpose", "executing")}},
		ollamatest.Reply{Text: "Done."},
	)
	r := runAgentCLI(t, "\n", true, "ask", "--new", "delete the logs")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	files := filepath.Join(home, ".local", "share", "Trash", "files")
	for _, name := range []string{"a.log", "b.log"} {
		if _, err := os.Stat(filepath.Join(files, name)); err != nil {
			t.Errorf("%s is not in the Trash: %v\n%s", name, err, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(logs, "keep.txt")); err != nil {
		t.Errorf("keep.txt went too: %v", err)
	}
	tr := cliToolResults(t, srv.Requests()[1])
	if tr[0]["success"] != true || !strings.HasPrefix(tr[0]["output"].(string), "Moved 2 items to the Trash") {
		t.Fatalf("model told %v", tr[0])
	}
	// The listing asked for the sandbox: "read-only" where the OS has one.
	if sb := tr[0]["sandbox"]; sb != "read-only" && sb != "unavailable" {
		t.Errorf("the listing ran with sandbox %q, want it requested", sb)
	}
	es, _, _ := agent.ReadAudit(filepath.Join(harkHome, "audit.jsonl"))
	if len(es) != 1 || es[0].Decision != agent.DecisionTrashed || len(es[0].Trashed) != 2 {
		t.Fatalf("audit %+v", es)
	}
}

// TestExecOffersTheTrash: `hark exec` asks as the agent's prompt does, and
// what it moved, `hark undo` puts back.
func TestExecOffersTheTrash(t *testing.T) {
	cases := []struct {
		name, stdin       string
		inTrash, deleted  bool
		wantOutput, wantE string
	}{
		{"enter moves to the Trash", "\n", true, false, "Moved 1 item to the Trash instead of deleting", ""},
		{"trash moves to the Trash", "trash\n", true, false, "Moved 1 item to the Trash", ""},
		{"d deletes", "d\n", false, true, "", ""},
		{"n declines", "n\n", false, false, "", "The user denied this command"},
		{"y is not an answer here", "y\n", false, false, "", "The user denied this command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			execHome(t)
			home, target := trashHome(t)
			r := runExecCLI(t, c.stdin, true, "--", "rm ~/Downloads/'old notes.txt'")
			checkTrashPrompt(t, r.code, r.stdout, r.stderr, home, target, c.inTrash, c.deleted)
			if !strings.Contains(r.result.Output, c.wantOutput) || !strings.Contains(r.result.Error, c.wantE) {
				t.Fatalf("result %+v", r.result)
			}
			if c.deleted && (!r.result.Executed || !r.result.Success) {
				t.Fatalf("d should run rm as written: %+v", r.result)
			}
			if !c.inTrash {
				return
			}
			if r.result.Executed {
				t.Errorf("the command itself ran: %+v", r.result)
			}
			if r.result.Tier != shell.Confirm || len(r.result.Reasons) == 0 || r.result.Sandbox == "" {
				t.Errorf("the Trash's result lacks what every exec result has (tier, reasons, sandbox): %+v", r.result)
			}
			u := runAgentCLI(t, "", false, "undo")
			if u.code != exitOK || !strings.Contains(u.stdout, "Put back 1 item:\n  "+target+"\n") {
				t.Fatalf("undo: exit %d\n%s%s", u.code, u.stdout, u.stderr)
			}
		})
	}
}

// The Trash is offered only for a plain deletion under home, in a folder
// the runner accepts, and not under --sandbox read-only, where moving files
// (Hark does it itself, unsandboxed) would be the one write allowed.
func TestExecTrashOnlyForDeletions(t *testing.T) {
	execHome(t)
	_, target := trashHome(t)
	outside := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{"--", "touch ~/new-file"},
		{"--", "rm " + outside},
		{"--sandbox", "read-only", "--", "rm ~/Downloads/'old notes.txt'"},
	} {
		r := runExecCLI(t, "\n", true, args...)
		if r.code != exitOK || strings.Contains(r.stderr, "Move to Trash") || !strings.Contains(r.stderr, "Run this? [N]o (safe choice) / [y]es") || r.result.Executed {
			t.Errorf("%q: exit %d, stderr %q, result %+v", args, r.code, r.stderr, r.result)
		}
	}
	// A folder that is not there is refused before anyone is asked.
	if r := runExecCLI(t, "\n", true, "--dir", "~root", "--", "rm -f x"); r.result.Executed || strings.Contains(r.stderr, "Run this?") || !strings.Contains(r.result.Error, "does not exist") {
		t.Errorf("--dir ~root: stderr %q, result %+v", r.stderr, r.result)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the file is gone: %v", err)
	}
}

// a at the Trash prompt saves no rule: a rule for rm would let every later
// rm in the folder delete without asking, past the Trash. It says why and
// asks again.
func TestExecTrashPromptOffersNoRule(t *testing.T) {
	execHome(t)
	_, target := trashHome(t)
	r := runExecCLI(t, "a\nn\n", true, "--dir", "~/Downloads", "--", "rm 'old notes.txt'")
	if r.code != exitOK || !strings.Contains(r.stderr, agent.NoProposalDestructive) || strings.Contains(r.stderr, "Save this rule") ||
		strings.Count(r.stderr, "Move to Trash instead?") != 2 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err != nil || r.result.Executed {
		t.Errorf("declined, yet: %v, %+v", err, r.result)
	}
}

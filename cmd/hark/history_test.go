package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
)

// seed runs one request that proposes a safe and a denied command, so the
// history, audit log and stats have something in them.
func seedHistory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	_, home := askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{
			ollamatest.Call("command", "ls "+dir, "purpose", "checking"),
			ollamatest.Call("command", "rm -r "+dir, "purpose", "executing"),
		}},
		ollamatest.Reply{Text: "Listed it; the delete was denied."},
	)
	if r := runAgentCLI(t, "n\n", true, "ask", "tidy up the folder"); r.code != exitOK {
		t.Fatalf("seed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return home
}

func TestHistoryCommands(t *testing.T) {
	home := seedHistory(t)
	list := runAgentCLI(t, "", false, "history")
	if list.code != exitOK || !strings.Contains(list.stdout, "tidy up the folder") || !strings.Contains(list.stdout, "WHAT IT DID") || !strings.Contains(list.stdout, "1 denied") {
		t.Fatalf("list: %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	id := strings.Fields(strings.Split(list.stdout, "\n")[1])[0]

	show := runAgentCLI(t, "", false, "history", "show", id)
	for _, want := range []string{"You: tidy up the folder", "$ ls ", "(checking)", "✓ ran", "(executing)", "✗ not run: The user denied this command.", "Hark: 1 read-only command ran, 1 command denied — nothing changed.\n\nModel: Listed it"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, show.stdout)
		}
	}
	latest := runAgentCLI(t, "", false, "history", "show", "--json", "latest")
	var c map[string]any
	if err := json.Unmarshal([]byte(latest.stdout), &c); err != nil || c["id"] != id {
		t.Errorf("show --json latest: %v\n%s", err, latest.stdout)
	}
	if r := runAgentCLI(t, "", false, "history", "show", "nope"); r.code != exitError || !strings.Contains(r.stderr, "hark history list") {
		t.Errorf("show unknown: %d %q", r.code, r.stderr)
	}
	if r := runAgentCLI(t, "", false, "history", "frob"); r.code != exitUsage {
		t.Errorf("unknown action exit %d", r.code)
	}
	clear := runAgentCLI(t, "", false, "history", "clear")
	if clear.code != exitOK || !strings.Contains(clear.stdout, "Deleted 1 conversation from") {
		t.Errorf("clear: %q", clear.stdout)
	}
	if r := runAgentCLI(t, "", false, "history", "list"); !strings.Contains(r.stdout, "No conversations yet") {
		t.Errorf("after clear: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(home, "audit.jsonl")); err != nil {
		t.Errorf("clear removed the audit log: %v", err)
	}
}

func TestHistoryWarnsAboutCorruptFile(t *testing.T) {
	home := seedHistory(t)
	if err := os.WriteFile(filepath.Join(home, "history", "broken.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runAgentCLI(t, "", false, "history", "list")
	if r.code != exitOK || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "moved it to") || !strings.Contains(r.stdout, "tidy up") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestAuditCommand(t *testing.T) {
	seedHistory(t)
	r := runAgentCLI(t, "", false, "audit")
	if r.code != exitOK {
		t.Fatal(r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "auto") || !strings.Contains(lines[2], "denied") || !strings.Contains(lines[2], "terminal") {
		t.Errorf("audit:\n%s", r.stdout)
	}
	tail := runAgentCLI(t, "", false, "audit", "--tail", "1", "--json")
	var e map[string]any
	if err := json.Unmarshal([]byte(tail.stdout), &e); err != nil || e["decision"] != "denied" || e["purpose"] != "executing" {
		t.Errorf("audit --tail 1 --json: %v %s", err, tail.stdout)
	}
	if r := runAgentCLI(t, "", false, "audit", "--tail", "-1"); r.code != exitUsage {
		t.Errorf("negative tail exit %d", r.code)
	}
}

func TestStatsCommand(t *testing.T) {
	askEnv(t)
	if r := runAgentCLI(t, "", false, "stats"); r.code != exitOK || !strings.Contains(r.stdout, "No requests yet") {
		t.Errorf("empty stats: %d %q", r.code, r.stdout)
	}
	seedHistory(t)
	r := runAgentCLI(t, "", false, "stats")
	if bad := regexp.MustCompile(`\b1 (conversations|errors|decisions|requests|commands|files|folders)\b`).FindString(r.stdout); bad != "" {
		t.Errorf("stats says %q:\n%s", bad, r.stdout)
	}
	for _, want := range []string{"Requests:       1 in 1 conversation,", "0 errors", "1 completed (100%)", "Model turns:    2", "Tool calls:     2; commands run: 1", "Confirmations:  1 asked: 0 approved, 1 denied\n", "Audit log:      2 decisions"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestStatsSaysOneErrorInTheSingular: a request that failed once reads
// "1 error", never "1 errors" (the walk's D-21).
func TestStatsSaysOneErrorInTheSingular(t *testing.T) {
	askEnv(t, ollamatest.Reply{Status: 500, Error: "model runner has unexpectedly stopped"})
	if r := runAgentCLI(t, "", true, "ask", "tidy up the folder"); r.code != exitError {
		t.Fatalf("the failing request: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := runAgentCLI(t, "", false, "stats")
	if !strings.Contains(r.stdout, "0 completed (0%), 1 error, 0 cancelled") || strings.Contains(r.stdout, "1 errors") {
		t.Errorf("stats after one failed request:\n%s", r.stdout)
	}
}

// TestStatsCountsEachApprovalOnce: a Move to Trash is an approval, so it
// is counted inside "approved", never beside it (the walk saw "10
// approved" beside "approved 7 … trashed 3").
func TestStatsCountsEachApprovalOnce(t *testing.T) {
	t.Parallel()
	var es []agent.AuditEntry
	add := func(d string, n int) {
		for range n {
			es = append(es, agent.AuditEntry{Decision: d})
		}
	}
	add(agent.DecisionAuto, 14)
	add(agent.DecisionApproved, 7)
	add(agent.DecisionTrashed, 3)
	add(agent.DecisionDenied, 7)
	add(agent.DecisionAllowed, 1)
	got := confirmationsLine(agent.Stats{}, es)
	want := "17 asked: 10 approved (3 of them moved to the Trash instead), 7 denied"
	if got != want {
		t.Errorf("confirmationsLine =\n %q\nwant\n %q", got, want)
	}
	if got := auditSummary(es); strings.Contains(got, "trashed") || strings.Contains(got, "approved") {
		t.Errorf("the audit line counts approvals again: %q", got)
	}
}

// TestStatsAddUp: the walk's numbers (B3-18): the Confirmations line and
// the Audit log line count the same approvals, and the parts of each add
// up to its whole, so "15 asked, 4 approved, 10 denied or unanswered"
// beside "5 approved" cannot happen. Without an audit log the history's
// counts add up the same way.
func TestStatsAddUp(t *testing.T) {
	t.Parallel()
	var es []agent.AuditEntry
	add := func(d string, n int) {
		for range n {
			es = append(es, agent.AuditEntry{Decision: d})
		}
	}
	add(agent.DecisionAuto, 21)
	add(agent.DecisionDenied, 6)
	add(agent.DecisionApproved, 2)
	add(agent.DecisionTrashed, 3)
	add(agent.DecisionTimeout, 4)
	add(agent.DecisionNotAsked, 1)
	// The history lost a request the audit log kept: its counts differ,
	// and the line follows the audit log.
	hist := agent.Stats{ConfirmationsAsked: 15, Approved: 4, Denied: 10, TimedOut: 4, NotAsked: 1}
	if got, want := confirmationsLine(hist, es), "15 asked: 5 approved (3 of them moved to the Trash instead), 6 denied, 4 timed out"; got != want {
		t.Errorf("from the audit log:\n %q\nwant\n %q", got, want)
	}
	if got, want := auditSummary(es), "21 ran at once (read-only), 15 asked you (see Confirmations), 1 not asked (nobody could approve them)"; got != want {
		t.Errorf("audit line:\n %q\nwant\n %q", got, want)
	}
	if got, want := confirmationsLine(hist, nil), "14 asked: 4 approved, 6 denied, 4 timed out"; got != want {
		t.Errorf("from the history:\n %q\nwant\n %q", got, want)
	}
}

// TestConversationHasOneName: a conversation is called the same on every
// surface (walk 6 A-6): hark ask's "continuing …", hark history's list,
// the head of hark history show, and the app's Recent conversations
// (agent.Summary.Label), all from Conversation.Name: the first request
// that changed something, here the second one, not the first question.
func TestConversationHasOneName(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "release_notes")
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "checking")}},
		ollamatest.Reply{Text: "Plenty."},
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "mkdir "+made, "purpose", "executing")}},
		ollamatest.Reply{Text: "Made it."},
		ollamatest.Reply{Text: "You're welcome."},
	)
	if r := runAgentCLI(t, "", false, "ask", "--new", "how much disk space is left"); r.code != exitOK {
		t.Fatalf("first: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAgentCLI(t, "y\n", true, "ask", "--continue", "make a release notes folder"); r.code != exitOK {
		t.Fatalf("second: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	const name = "make a release notes folder"
	third := runAgentCLI(t, "", false, "ask", "--continue", "thanks")
	if !strings.Contains(third.stderr, "(continuing “"+name+"”") {
		t.Errorf("hark ask continues it under another name:\n%s", third.stderr)
	}
	list := runAgentCLI(t, "", false, "history")
	if rows := strings.Split(strings.TrimSpace(list.stdout), "\n"); len(rows) != 2 || !strings.HasSuffix(rows[1], "  "+name) {
		t.Errorf("hark history lists it under another name:\n%s", list.stdout)
	}
	show := runAgentCLI(t, "", false, "history", "show", "latest")
	if first, _, _ := strings.Cut(show.stdout, "\n"); first != name {
		t.Errorf("hark history show heads it %q, want %q", first, name)
	}
	paths, _, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	sums, err := newStore(paths.History).List()
	if err != nil || len(sums) != 1 || !strings.HasPrefix(sums[0].Label(time.Now()), name+" (+2 more) · ") {
		t.Errorf("the menu's label: %v %+v", err, sums)
	}
}

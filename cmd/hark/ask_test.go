package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// The runner re-executes the running binary as `__sandbox …` to confine
// and reap commands, and the previewer as `__preview …`; in tests that
// binary is this test binary, so serve both helpers here. init runs
// before any TestMain, so it works whoever owns one. syscall.Exit skips
// the race detector's exit delay.
func init() {
	if len(os.Args) > 1 && os.Args[1] == shell.HelperCommand {
		syscall.Exit(shell.SandboxHelperMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == preview.HelperCommand {
		syscall.Exit(preview.HelperMain(os.Args[2:]))
	}
	// A busy test machine must not turn the previews these tests read into
	// "unavailable"; the product's bound is measured in the benchmarks.
	previewTimeout = time.Minute
}

// askEnv points Hark at a temporary home and a fake Ollama.
func askEnv(t *testing.T, replies ...ollamatest.Reply) (*ollamatest.Server, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	srv := ollamatest.New(t).Script(replies...)
	t.Setenv("OLLAMA_HOST", srv.URL)
	return srv, home
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func runAgentCLI(t *testing.T, stdin string, terminal bool, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, isTerminal: terminal}, args)
	return cliResult{code, out.String(), errb.String()}
}

func cliToolResults(t *testing.T, req api.ChatRequest) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range req.Messages {
		if m.Role == "tool" {
			var v map[string]any
			if err := json.Unmarshal([]byte(m.Content), &v); err != nil {
				t.Fatalf("tool message not JSON: %s", m.Content)
			}
			out = append(out, v)
		}
	}
	return out
}

func TestAskRunsReadOnlyCommandAndAnswers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, home := askEnv(t,
		ollamatest.Reply{Text: "Looking. ", Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "checking")}},
		ollamatest.Reply{Text: "Found marker.txt."},
	)
	r := runAgentCLI(t, "", false, "ask", "what", "is", "there?")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Looking.", "$ ls " + dir, "checking · safe", "✓ exit 0", "marker.txt", "Found marker.txt.\n\nHark: 1 read-only command ran — nothing changed.\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	if tr := cliToolResults(t, reqs[1]); len(tr) != 1 || !strings.Contains(tr[0]["output"].(string), "marker.txt") {
		t.Errorf("model got %v", tr)
	}
	if reqs[0].Model != agent.DefaultModel || reqs[0].Options["num_ctx"] != float64(8192) {
		t.Errorf("model %q options %v", reqs[0].Model, reqs[0].Options)
	}
	// The model was asked to load while the checks ran.
	if srv.Loads() != 1 {
		t.Errorf("%d preloads", srv.Loads())
	}
	if entries, _ := filepath.Glob(filepath.Join(home, "history", "*.json")); len(entries) != 1 {
		t.Errorf("history files %v", entries)
	}
	es, _, _ := agent.ReadAudit(filepath.Join(home, "audit.jsonl"))
	if len(es) != 1 || es[0].Decision != agent.DecisionAuto {
		t.Errorf("audit %+v", es)
	}
}

func TestAskConfirmTierCommand(t *testing.T) {
	cases := []struct {
		name     string
		stdin    string
		terminal bool
		created  bool
		decision string
		shows    string
	}{
		{"approved", "y\n", true, true, agent.DecisionApproved, "✓ exit 0"},
		{"denied", "n\n", true, false, agent.DecisionDenied, "not run: you denied it\n"},
		{"empty answer denies", "\n", true, false, agent.DecisionDenied, "not run"},
		{"no terminal", "y\n", false, false, agent.DecisionNotAsked, "not run: nobody was asked: there is no terminal here to approve it (run hark ask in a terminal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "new.txt")
			srv, home := askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "touch "+target, "purpose", "executing", "workingDirectory", dir)}},
				ollamatest.Reply{Text: "Finished."},
			)
			r := runAgentCLI(t, c.stdin, c.terminal, "ask", "--new", "create new.txt")
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			_, err := os.Stat(target)
			if created := err == nil; created != c.created {
				t.Errorf("file created = %v, want %v\nstdout:\n%s\nstderr:\n%s", created, c.created, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, c.shows) || !strings.Contains(r.stdout, "executing · confirm") {
				t.Errorf("stdout lacks %q:\n%s", c.shows, r.stdout)
			}
			if c.terminal && !strings.Contains(r.stderr, "Run this? [N]o (safe choice) / [y]es") {
				t.Errorf("no prompt on stderr: %q", r.stderr)
			}
			if !c.terminal && (strings.Contains(r.stdout+r.stderr, "denied") || !strings.Contains(r.stdout, "nothing changed")) {
				// Nobody was asked: nothing may say the user said no.
				t.Errorf("a denial nobody gave, or no summary:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
			if tr := cliToolResults(t, srv.Requests()[1]); tr[0]["executed"] != c.created {
				t.Errorf("model told %v", tr[0])
			}
			es, _, _ := agent.ReadAudit(filepath.Join(home, "audit.jsonl"))
			by := agent.ByTerminal
			if !c.terminal {
				by = agent.ByNoTerminal
			}
			if len(es) != 1 || es[0].Decision != c.decision || es[0].DecidedBy != by {
				t.Errorf("audit %+v", es)
			}
			if !c.terminal {
				h := runCLI("history")
				if strings.Contains(h.stdout, "denied") || !strings.Contains(h.stdout, "1 not asked") {
					t.Errorf("history says (exit %d):\n%s%s", h.code, h.stdout, h.stderr)
				}
			}
		})
	}
}

func TestAskRefusesForbidden(t *testing.T) {
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "sudo rm -rf /", "purpose", "executing")}},
		ollamatest.Reply{Text: "I will not do that."},
	)
	r := runAgentCLI(t, "y\n", true, "ask", "wipe everything")
	if r.code != exitOK || !strings.Contains(r.stdout, "✗ refused") || strings.Contains(r.stderr, "Run this?") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestAskErrors(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		setup func(*ollamatest.Server)
		reply ollamatest.Reply
		code  int
		want  string
	}{
		{name: "no request", args: []string{"ask"}, code: exitUsage, want: "say what to do"},
		{name: "bad flag", args: []string{"ask", "--frobnicate", "x"}, code: exitUsage, want: "flag provided but not defined"},
		{name: "ollama down", args: []string{"ask", "hi"}, setup: func(s *ollamatest.Server) { s.Close() }, code: exitError, want: "ollama serve"},
		{name: "model not pulled", args: []string{"ask", "--model", "llama3.1:8b", "hi"}, code: exitError, want: "ollama pull llama3.1:8b"},
		{name: "model without tools", args: []string{"ask", "--model", "gemma:2b", "hi"}, code: exitError, want: "cannot call tools"},
		{name: "server error", args: []string{"ask", "hi"}, reply: ollamatest.Reply{Status: 500, Error: "boom"}, code: exitError, want: "failed with 500"},
		{name: "stream cut", args: []string{"ask", "hi"}, reply: ollamatest.Reply{Text: "Half ", Drop: true}, code: exitError, want: "stopped before it was complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := askEnv(t, c.reply)
			if c.setup != nil {
				c.setup(srv)
			}
			r := runAgentCLI(t, "", false, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d (want %d), stderr %q lacks %q", r.code, c.code, r.stderr, c.want)
			}
		})
	}
}

func TestAskContinuesRecentConversation(t *testing.T) {
	srv, _ := askEnv(t,
		ollamatest.Reply{Text: "First answer."},
		ollamatest.Reply{Text: "Second answer."},
		ollamatest.Reply{Text: "Fresh answer."},
	)
	if r := runAgentCLI(t, "", false, "ask", "list my downloads"); r.code != exitOK {
		t.Fatal(r.stderr)
	}
	r := runAgentCLI(t, "", false, "ask", "and sort them by size")
	if r.code != exitOK || !strings.Contains(r.stderr, "continuing “list my downloads” from just now") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if msgs := srv.Requests()[1].Messages; len(msgs) != 4 || msgs[1].Content != "list my downloads" || msgs[3].Content != "and sort them by size" {
		t.Errorf("follow-up did not carry the conversation: %+v", msgs)
	}
	if r := runAgentCLI(t, "", false, "ask", "--new", "and the third"); r.code != exitOK || strings.Contains(r.stderr, "continuing") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if msgs := srv.Requests()[2].Messages; len(msgs) != 2 {
		t.Errorf("--new carried old messages: %+v", msgs)
	}
	list := runAgentCLI(t, "", false, "history", "list")
	if list.code != exitOK || strings.Count(list.stdout, "\n") != 3 || !strings.Contains(list.stdout, "list my downloads") || !strings.Contains(list.stdout, "and the third") {
		t.Errorf("history list:\n%s", list.stdout)
	}
}

// TestAskContinuesOnlyAFollowUp: hark ask continues the latest
// conversation by the app's rule (agent.ConversationFor) — a request
// within the window that refers back, retries the last one or answers the
// model's question — and says which it did; --new and --continue choose
// for it. The stored conversation was last updated at 16:55; askNow is
// when the request is made.
func TestAskContinuesOnlyAFollowUp(t *testing.T) {
	last := time.Date(2026, 12, 6, 16, 55, 0, 0, time.Local)
	const logs = "list the logs in my webapp project"
	cases := []struct {
		name      string
		answer    string // the stored conversation's last answer
		after     time.Duration
		args      []string
		continues bool
		note      string // on stderr
	}{
		{name: "refers back", after: 2 * time.Minute, args: []string{"and delete them too"}, continues: true,
			note: "(continuing “" + logs + "” from 2 minutes ago; --new starts a fresh one)"},
		{name: "retries", after: time.Minute, args: []string{logs}, continues: true, note: "(continuing “" + logs + "”"},
		{name: "answers the model's question", answer: "There are logs in webapp and api. Which project?", after: time.Minute,
			args: []string{"the api one"}, continues: true, note: "(continuing “" + logs + "”"},
		{name: "unrelated", after: time.Minute, args: []string{"how much disk space is left"},
			note: "(a new conversation: this does not read as a follow-up to “" + logs + "” from 1 minute ago; --continue adds it there)"},
		{name: "a follow-up past the window", after: agent.FollowUpWindow + time.Minute, args: []string{"and delete them too"}},
		{name: "--new", after: time.Minute, args: []string{"--new", "and delete them too"}},
		{name: "--continue", after: time.Hour, args: []string{"--continue", "how much disk space is left"}, continues: true,
			note: "(continuing “" + logs + "” from 60 minutes ago; --new starts a fresh one)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := askEnv(t, ollamatest.Reply{Text: "Done."})
			paths, _, err := loadSettings()
			if err != nil {
				t.Fatal(err)
			}
			answer := c.answer
			if answer == "" {
				answer = "There are 4 log files."
			}
			stored := &agent.Conversation{ID: "20261206-165400-0000aaaa", Title: logs, Created: last.Add(-time.Minute), Updated: last,
				Messages: []api.Message{{Role: "user", Content: logs}, {Role: "assistant", Content: answer}},
				Runs:     []agent.RunMetrics{{Request: logs, Outcome: agent.OutcomeCompleted, Success: true}}}
			if err := newStore(paths.History).Save(stored); err != nil {
				t.Fatal(err)
			}
			askNow = func() time.Time { return last.Add(c.after) }
			t.Cleanup(func() { askNow = time.Now })

			r := runAgentCLI(t, "", false, append([]string{"ask"}, c.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if c.note != "" && !strings.Contains(r.stderr, c.note) {
				t.Errorf("stderr lacks %q:\n%s", c.note, r.stderr)
			}
			if !c.continues && strings.Contains(r.stderr, "continuing") {
				t.Errorf("says it continues:\n%s", r.stderr)
			}
			msgs := srv.Requests()[0].Messages
			if carried := len(msgs) == 4 && msgs[1].Content == logs; carried != c.continues {
				t.Errorf("the model got %d messages (continues=%v, want %v)", len(msgs), carried, c.continues)
			}
			sums, err := newStore(paths.History).List()
			if want := map[bool]int{true: 1, false: 2}[c.continues]; err != nil || len(sums) != want {
				t.Errorf("%d conversations stored (err %v), want %d", len(sums), err, want)
			}
		})
	}
}

// --continue with nothing to continue starts afresh and says so; with
// --new it is a contradiction.
func TestAskContinueFlag(t *testing.T) {
	srv, _ := askEnv(t, ollamatest.Reply{Text: "Done."})
	r := runAgentCLI(t, "", false, "ask", "--continue", "and delete them too")
	if r.code != exitOK || !strings.Contains(r.stderr, "(no conversation to continue; this starts a new one)") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	if msgs := srv.Requests()[0].Messages; len(msgs) != 2 {
		t.Errorf("the model got %d messages, want a fresh conversation", len(msgs))
	}
	r = runAgentCLI(t, "", false, "ask", "--new", "--continue", "hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--new or --continue, not both") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestAskWithConfirmationOff(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "made")
	_, home := askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "mkdir "+target, "purpose", "executing")}},
		ollamatest.Reply{Text: "Made it."},
	)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"confirmBeforeExecute":false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runAgentCLI(t, "", false, "ask", "make a folder")
	if r.code != exitOK || !strings.Contains(r.stdout, "running without asking") || strings.Contains(r.stderr, "Run this?") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("not created: %v", err)
	}
	es, _, _ := agent.ReadAudit(filepath.Join(home, "audit.jsonl"))
	if len(es) != 1 || es[0].Decision != agent.DecisionUnconfirmedRun {
		t.Errorf("audit %+v", es)
	}
}

func TestAskRejectsBadSettings(t *testing.T) {
	_, home := askEnv(t)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"maxTurns":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runAgentCLI(t, "", false, "ask", "hi")
	if r.code != exitError || !strings.Contains(r.stderr, `"maxTurns"`) {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestContinuingNoteAndPlurals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		title string
		age   time.Duration
		want  string
	}{
		{"list my downloads", 3 * time.Minute, "(continuing “list my downloads” from 3 minutes ago; --new starts a fresh one)"},
		{"x", 50 * time.Second, "(continuing “x” from 1 minute ago; --new starts a fresh one)"},
		{"", 10 * time.Second, "(continuing the last conversation from just now; --new starts a fresh one)"},
		{"x", 3*time.Hour + 10*time.Minute, "(continuing “x” from 3 hours ago; --new starts a fresh one)"},
		{"x", 50 * time.Hour, "(continuing “x” from 2 days ago; --new starts a fresh one)"},
	}
	for _, c := range cases {
		if got := continuingNote(c.title, c.age); got != c.want {
			t.Errorf("continuingNote(%q, %v) = %q, want %q", c.title, c.age, got, c.want)
		}
	}
	if got := pluralWord(1, "more line", "more lines"); got != "1 more line" {
		t.Errorf("pluralWord(1) = %q", got)
	}
}

func TestAskColour(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cases := []struct {
		name     string
		terminal bool
		vars     map[string]string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"pipe", false, nil, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false},
		{"dumb terminal", true, map[string]string{"TERM": "dumb"}, false},
	}
	for _, c := range cases {
		if got := wantColor(c.terminal, env(c.vars)); got != c.want {
			t.Errorf("%s: wantColor = %v, want %v", c.name, got, c.want)
		}
	}
	var b strings.Builder
	p := &printer{w: &b, atLineStart: true, color: true}
	p.result(&shell.Result{Executed: true, Success: true})
	p.result(&shell.Result{Executed: false, Tier: shell.Forbidden})
	if got := b.String(); !strings.Contains(got, "\x1b[32m✓\x1b[0m") || !strings.Contains(got, "\x1b[31m✗\x1b[0m refused") {
		t.Errorf("coloured output %q lacks a green ✓ and a red ✗", got)
	}
}

// The terminal's approval shows what the command would touch, and the
// audit log keeps it.
func TestAskShowsPreview(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(victim, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, home := askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm notes.txt", "purpose", "executing", "workingDirectory", dir)}},
		ollamatest.Reply{Text: "Kept it."},
	)
	r := runAgentCLI(t, "n\n", true, "ask", "--new", "delete my notes")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	want := "    preview: Deletes 1 file, 5 B\n      notes.txt: file, 5 B\n    May change: " + realDir + "\n    Run this? [N]o (safe choice) / [y]es"
	if ok, _ := shell.SandboxStatus(); !ok {
		want = "    preview: Preview unavailable"
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	es, _, _ := agent.ReadAudit(filepath.Join(home, "audit.jsonl"))
	if len(es) != 1 || es[0].Preview == nil || !strings.Contains(r.stderr, "preview: "+es[0].Preview.Summary+"\n") {
		t.Errorf("audit %+v", es)
	}
}

// TestAskShowsTheUserNotTheModel: what hark ask prints of a tool result
// is the fact, in words for the user; the instructions the result carries
// for the model stay out of the terminal.
func TestAskShowsTheUserNotTheModel(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"denied", "The user denied this command. Do not try the same change another way; say what you would have done and stop.", "you denied it"},
		{"denied with a reason", "The user denied this command: append, do not overwrite", "you denied it: append, do not overwrite"},
		{"other", "The request was cancelled; the command did not run.", "The request was cancelled; the command did not run."},
	}
	for _, c := range cases {
		if got := notRunForUser(c.in); got != c.want {
			t.Errorf("%s: notRunForUser = %q, want %q", c.name, got, c.want)
		}
	}
	trash := "Moved 3 items to the Trash instead of deleting: a, b, c. The command itself did not run. The user can put them back with Undo last trash in Hark's menu or `hark undo`."
	if got := trashForUser(trash); got != "Moved 3 items to the Trash instead of deleting: a, b, c. (hark undo puts it back)" {
		t.Errorf("trashForUser = %q", got)
	}
}

// TestAskEndsWithHarksSummary: after a denial the model's false "done" is
// held back, and Hark's own account leads: its summary, the flagged claim,
// then the rest of the model's reply marked as the model's. The claim is
// printed once, inside the flag; a reply that is only the claim is not
// printed again.
func TestAskEndsWithHarksSummary(t *testing.T) {
	for _, c := range []struct{ name, reply, want string }{
		{"the reply is the claim", "Removed the log file.",
			"✗ not run: you denied it\n\nHark: 1 command denied — nothing changed.\n" +
				"⚠ The model says “Removed the log file”, but that command did not run (you denied it).\n"},
		{"the claim and more", "Removed the log file. The folder is tidy now.",
			"✗ not run: you denied it\n\nHark: 1 command denied — nothing changed.\n" +
				"⚠ The model says “Removed the log file”, but that command did not run (you denied it).\n\n" +
				"The model's reply: Removed the log file. The folder is tidy now.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm "+filepath.Join(dir, "a.log"), "purpose", "executing", "workingDirectory", dir)}},
				ollamatest.Reply{Text: c.reply},
			)
			r := runAgentCLI(t, "n\n", true, "ask", "--new", "remove the log")
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.HasSuffix(r.stdout, c.want) {
				t.Errorf("stdout does not end with Hark's account, then the model's:\n%s\nwant the end:\n%s", r.stdout, c.want)
			}
		})
	}
}

// TestAskStreamsAnswersNothingContradicts: a request whose commands were
// all read-only streams the model's answer as it comes, and one that ran
// its change ends with the answer, then Hark's line.
func TestAskStreamsAnswersNothingContradicts(t *testing.T) {
	var b strings.Builder
	p := &printer{w: &b, atLineStart: true}
	p.event(agent.Event{Kind: agent.EventResult, Result: &shell.Result{Tier: shell.Safe, Executed: true, Success: true}})
	p.event(agent.Event{Kind: agent.EventText, Text: "There are 3 files\n"})
	if !strings.HasSuffix(b.String(), "There are 3 files\n") {
		t.Errorf("after a read-only command the answer was held back: %q", b.String())
	}
	p.event(agent.Event{Kind: agent.EventResult, Result: &shell.Result{Tier: shell.Confirm, Executed: true, Success: true}})
	p.event(agent.Event{Kind: agent.EventText, Text: "Created the folder."})
	if strings.Contains(b.String(), "Created the folder") {
		t.Errorf("after a change the answer was streamed before Hark could judge it: %q", b.String())
	}
	p.event(agent.Event{Kind: agent.EventProposed, Call: &agent.Call{Command: "ls", Tier: shell.Safe}})
	if !strings.Contains(b.String(), "Created the folder.\n  $ ls") {
		t.Errorf("words before the next proposal were not shown before it: %q", b.String())
	}
}

// TestAskShowsHeldWordsWhenTheRequestFails: words held back after a
// change are printed when the request ends in an error, never lost.
func TestAskShowsHeldWordsWhenTheRequestFails(t *testing.T) {
	dir := t.TempDir()
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm "+filepath.Join(dir, "a.log"), "purpose", "executing", "workingDirectory", dir)}},
		ollamatest.Reply{Text: "Let me try another way", ErrorLine: "model runner has unexpectedly stopped"},
	)
	r := runAgentCLI(t, "n\n", true, "ask", "--new", "remove the log")
	if r.code != exitError || !strings.Contains(r.stdout, "Let me try another way") {
		t.Errorf("exit %d; the model's words before the failure are missing:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAskHeldWordsShowTheirControls: the model's words held back and then
// printed after Hark's account (a contradicted claim, the rest of the
// reply) show their escapes, carriage returns and bidi controls as
// ⟨U+XXXX⟩, as streamed words do.
func TestAskHeldWordsShowTheirControls(t *testing.T) {
	dir := t.TempDir()
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm "+filepath.Join(dir, "a.log"), "purpose", "executing", "workingDirectory", dir)}},
		ollamatest.Reply{Text: "Removed the \x1b[2Jlog\r file\u202e. All tidy\b now."},
	)
	r := runAgentCLI(t, "n\n", true, "ask", "--new", "remove the log")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, raw := range []string{"\x1b", "\r", "\u202e", "\b"} {
		if strings.Contains(r.stdout, raw) {
			t.Errorf("stdout holds a raw %q:\n%q", raw, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "⟨U+001B⟩") || strings.Index(r.stdout, "Hark: 1 command denied") > strings.Index(r.stdout, "⟨U+001B⟩") {
		t.Errorf("the escape is not shown, or not after Hark's account:\n%s", r.stdout)
	}
}

// TestAskWritesHomeAsTilde: the folder a command runs in is written with
// ~ for home, as the command itself and every other surface write it, not
// as an absolute path beside a command that says ~.
func TestAskWritesHomeAsTilde(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	sub := filepath.Join(home, "Downloads")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, want string }{
		{"home", home, "checking · safe · in ~\n"},
		{"below home", sub, "checking · safe · in ~/Downloads\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "ls", "purpose", "checking", "workingDirectory", c.dir)}},
				ollamatest.Reply{Text: "Done looking."},
			)
			r := runAgentCLI(t, "", false, "ask", "--new", "what is there")
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, c.want) || strings.Contains(r.stdout, "in "+home) {
				t.Errorf("stdout lacks %q:\n%s", c.want, r.stdout)
			}
		})
	}
}

// TestAskRendersMarkdown: the model's Markdown reaches the terminal as
// text, not markup (walk 6 B3-12): headings and emphasis without their
// marks, a table in padded columns, and its "*Nothing was changed.*"
// left to Hark's own line, as the notification leaves it (D-20). Words
// stream a line at a time; a table shows once its last row is in.
func TestAskRendersMarkdown(t *testing.T) {
	dir := t.TempDir()
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "checking")}},
		ollamatest.Reply{Text: "## Biggest folders in your home\n\n| Folder | Size |\n|---|---|\n| **Downloads** | 11M |\n| **Videos** | 7.7M |\n| Projects | 452K |\n\n" +
			"- `Downloads/old_builds` is most of Downloads.\n- You could run `rm -r ~/Downloads/old_builds` to free about 7 MB.\n\n*Nothing was changed.*"},
	)
	r := runAgentCLI(t, "", false, "ask", "--new", "which folders are biggest")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := "Biggest folders in your home\n\nFolder     Size\nDownloads  11M\nVideos     7.7M\nProjects   452K\n\n" +
		"• Downloads/old_builds is most of Downloads.\n• You could run rm -r ~/Downloads/old_builds to free about 7 MB.\n\n" +
		"Hark: 1 read-only command ran — nothing changed.\n"
	if !strings.HasSuffix(r.stdout, want) {
		t.Errorf("stdout does not end with the answer made plain:\n%s\nwant the end:\n%s", r.stdout, want)
	}
	if strings.Contains(r.stdout, "Nothing was changed") {
		t.Errorf("the model's \"nothing changed\" is said beside Hark's:\n%s", r.stdout)
	}

	var b strings.Builder
	p := &printer{w: &b, atLineStart: true}
	for _, part := range []string{"| A | B |\n|---|---|\n| x", " | 1 |\n", "| yyy | 22 |\n", "Done **now**", ".\n"} {
		p.event(agent.Event{Kind: agent.EventText, Text: part})
		if strings.Contains(b.String(), "x") && !strings.Contains(b.String(), "yyy") {
			t.Fatalf("a table was shown before its last row: %q", b.String())
		}
	}
	if want := "A    B\nx    1\nyyy  22\nDone now.\n"; b.String() != want {
		t.Errorf("streamed:\n%q\nwant\n%q", b.String(), want)
	}
}

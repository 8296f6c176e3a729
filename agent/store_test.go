package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func TestHistoryRecordsEveryMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{
		tools(call("command", "ls /tmp", "purpose", "checking", "workingDirectory", "/tmp")),
		text("Nothing much in /tmp."),
	}, nil)
	c := NewConversation()
	if _, err := h.agent.Run(context.Background(), c, "  what is\nin tmp?  "); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(h.store.Dir, c.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// Read the file as plain JSON, as another tool would.
	var doc struct {
		ID       string    `json:"id"`
		Title    string    `json:"title"`
		Created  time.Time `json:"created"`
		Updated  time.Time `json:"updated"`
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolName  string `json:"tool_name"`
			ToolCalls []struct {
				Function struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != c.ID || doc.Title != "what is in tmp?" || doc.Created.IsZero() || doc.Updated.Before(doc.Created) {
		t.Errorf("header %+v", doc)
	}
	if len(doc.Messages) != 4 {
		t.Fatalf("messages %+v", doc.Messages)
	}
	args := doc.Messages[1].ToolCalls[0].Function.Arguments
	if doc.Messages[1].ToolCalls[0].Function.Name != ToolName || args["purpose"] != "checking" || args["command"] != "ls /tmp" || args["workingDirectory"] != "/tmp" {
		t.Errorf("tool call %+v", doc.Messages[1])
	}
	var result map[string]any
	if err := json.Unmarshal([]byte(doc.Messages[2].Content), &result); err != nil || doc.Messages[2].Role != "tool" || result["purpose"] != "checking" || result["executed"] != true {
		t.Errorf("tool result %q: %v", doc.Messages[2].Content, err)
	}
	if doc.Messages[3].Content != "Nothing much in /tmp." {
		t.Errorf("answer %+v", doc.Messages[3])
	}
	if len(doc.Runs) != 1 || doc.Runs[0]["turns"] != 2.0 || doc.Runs[0]["toolCalls"] != 1.0 || doc.Runs[0]["success"] != true {
		t.Errorf("runs %+v", doc.Runs)
	}
	// It loads back into a conversation that can continue.
	back, err := h.store.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := back.Messages[1].ToolCalls[0].Function.Arguments.Get("purpose"); p != "checking" {
		t.Errorf("purpose after load = %v", p)
	}
}

func TestHistoryKeepsNewest(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), testFiles)
	s.Keep = 3
	base := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 5 {
		c := &Conversation{ID: fmt.Sprintf("c%d", i), Title: fmt.Sprint(i), Created: base, Updated: base}
		if err := s.Save(c); err != nil {
			t.Fatal(err)
		}
		// Modification times order the history; make them distinct.
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(s.path(c.ID), mt, mt); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if err := s.prune(); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.ID)
	}
	if strings.Join(got, ",") != "c4,c3,c2" {
		t.Errorf("kept %v", got)
	}
	if latest, err := s.Latest(); err != nil || latest.ID != "c4" {
		t.Errorf("latest %v %v", latest, err)
	}
	n, err := s.Clear()
	if err != nil || n != 3 {
		t.Errorf("clear %d %v", n, err)
	}
	if _, err := s.Latest(); !errors.Is(err, ErrNoConversation) {
		t.Errorf("after clear: %v", err)
	}
}

func TestHistoryDefaultKeepIs100(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), testFiles)
	for i := range 103 {
		if err := s.Save(&Conversation{ID: fmt.Sprintf("c%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 100 {
		t.Errorf("%d files, want 100", len(entries))
	}
}

func TestCorruptHistoryIsMovedAsideWithWarning(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), testFiles)
	var warnings []string
	s.Warn = func(m string) { warnings = append(warnings, m) }
	good := &Conversation{ID: "good", Title: "fine"}
	if err := s.Save(good); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(s.Dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"id":"bad","messages":[{"role":`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "good" {
		t.Errorf("list %+v", list)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "bad.json") || !strings.Contains(warnings[0], "moved it to") {
		t.Errorf("warnings %v", warnings)
	}
	matches, _ := filepath.Glob(bad + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("moved-aside files %v", matches)
	}
	if data, _ := os.ReadFile(matches[0]); !strings.Contains(string(data), `"id":"bad"`) {
		t.Errorf("moved-aside content lost: %q", data)
	}
}

// A failure before the rename (a crash, a full disk) must leave the previous
// version of the conversation readable.
func TestFailedWriteLeavesPreviousHistoryIntact(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir(), testFiles)
	c := &Conversation{ID: "c1", Title: "first", Messages: []api.Message{{Role: "user", Content: "one"}}}
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	s.write = func(path string, data []byte, perm os.FileMode) error {
		// What a crash leaves behind: half a temp file, no rename.
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-crash")
		if err := os.WriteFile(tmp, data[:len(data)/2], perm); err != nil {
			return err
		}
		return errors.New("injected fault before rename")
	}
	c.Messages = append(c.Messages, api.Message{Role: "assistant", Content: "two"})
	if err := s.Save(c); err == nil {
		t.Fatal("Save reported success despite the fault")
	}
	back, err := s.Load("c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Messages) != 1 || back.Messages[0].Content != "one" {
		t.Errorf("previous version damaged: %+v", back.Messages)
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("temp file listed as a conversation: %+v", list)
	}
}

// TestKilledWriterLeavesAWholeFile kills a process that keeps rewriting a
// large conversation and checks that what is on disk is always one whole
// version.
func TestKilledWriterLeavesAWholeFile(t *testing.T) {
	if dir := os.Getenv("HARK_AGENT_WRITER_DIR"); dir != "" {
		writerLoop(dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesAWholeFile$")
		cmd.Env = append(os.Environ(), "HARK_AGENT_WRITER_DIR="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the writer has finished at least one save, then kill
		// it at a varying point of a later one.
		buf := make([]byte, 1)
		if _, err := stdout.Read(buf); err != nil {
			t.Fatalf("writer did not start: %v", err)
		}
		time.Sleep(time.Duration(5+round*7) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		s := NewStore(dir, testFiles)
		c, err := s.Load("big")
		if err != nil {
			t.Fatalf("round %d: history unreadable after kill: %v", round, err)
		}
		if len(c.Messages) != 200 || c.Messages[199].Content != c.Messages[0].Content {
			t.Fatalf("round %d: mixed versions on disk", round)
		}
	}
}

// writerLoop saves versions of a ~2 MB conversation forever; each version
// repeats one marker in every message.
func writerLoop(dir string) {
	s := NewStore(dir, testFiles)
	filler := strings.Repeat("x", 10000)
	for v := 0; ; v++ {
		c := &Conversation{ID: "big", Title: "big"}
		for range 200 {
			c.Messages = append(c.Messages, api.Message{Role: "tool", Content: fmt.Sprintf("v%d %s", v, filler)})
		}
		if err := s.Save(c); err != nil {
			os.Exit(3)
		}
		if v == 0 {
			os.Stdout.Write([]byte{'.'})
		}
	}
}

func TestAuditIsAppendOnlyJSONLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "audit.jsonl")
	l := NewAuditLog(path)
	code := 0
	entries := []AuditEntry{
		{Time: time.Unix(1, 0).UTC(), ConversationID: "c", Command: "ls", WorkingDirectory: "/", Purpose: "checking", Tier: "safe", Decision: DecisionAuto, DecidedBy: ByPolicy, Executed: true, ExitCode: &code, Sandbox: "read-only"},
		{Time: time.Unix(2, 0).UTC(), ConversationID: "c", Command: "rm x", Purpose: "executing", Tier: "confirm", Decision: DecisionDenied, DecidedBy: ByTerminal},
	}
	for _, e := range entries {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	// A torn line from a crash is skipped and counted, not fatal.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"time":"2026-`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, bad, err := ReadAudit(path)
	if err != nil || bad != 1 || len(got) != 2 {
		t.Fatalf("read %d entries, %d bad, %v", len(got), bad, err)
	}
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"time", "conversationId", "command", "workingDirectory", "purpose", "tier", "reasons", "decision", "decidedBy", "exitCode", "durationMs", "sandbox"} {
		if _, ok := first[k]; !ok {
			t.Errorf("audit line lacks %q: %s", k, lines[0])
		}
	}
	if !strings.Contains(lines[1], `"exitCode":null`) {
		t.Errorf("a command that did not run has an exit code: %s", lines[1])
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v, want 0600", info.Mode().Perm())
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	convs := []*Conversation{
		{Runs: []RunMetrics{
			{Started: t0.Add(time.Hour), Turns: 3, ToolCalls: 2, Commands: 2, ConfirmationsAsked: 1, Approved: 1, ModelTimeMs: 1500, CommandTimeMs: 20, TotalTimeMs: 1600, Success: true, Outcome: OutcomeCompleted},
			{Started: t0, Turns: 1, Outcome: OutcomeError},
		}},
		{Runs: []RunMetrics{
			{Started: t0.Add(2 * time.Hour), Turns: 12, ToolCalls: 12, Commands: 10, ConfirmationsAsked: 2, Denied: 2, Refused: 1, ModelTimeMs: 500, Outcome: OutcomeTurnLimit},
			{Started: t0.Add(3 * time.Hour), Turns: 1, Outcome: OutcomeCancelled},
		}},
		{},
	}
	got := Summarize(convs)
	want := Stats{
		Conversations: 3, Requests: 4, Completed: 1, Cancelled: 1, Errors: 1, TurnLimits: 1,
		Turns: 17, ToolCalls: 14, Commands: 12, ConfirmationsAsked: 3, Approved: 1, Denied: 2, Refused: 1,
		ModelTime: 2 * time.Second, CommandTime: 20 * time.Millisecond, TotalTime: 1600 * time.Millisecond,
		First: t0, Last: t0.Add(3 * time.Hour),
	}
	if got != want {
		t.Errorf("Summarize =\n%+v\nwant\n%+v", got, want)
	}
	if r := got.SuccessRate(); r != 0.25 {
		t.Errorf("success rate %v", r)
	}
	if (Stats{}).SuccessRate() != 0 {
		t.Error("empty success rate")
	}
}

func TestUnwritableRecordsWarnButDoNotFail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{tools(cmd("ls /", "checking")), text("ok")}, nil)
	h.store.write = func(string, []byte, os.FileMode) error { return errors.New("disk full") }
	h.audit.Path = filepath.Join(h.home, "missing-dir-is-a-file", "audit.jsonl")
	if err := os.WriteFile(filepath.Join(h.home, "missing-dir-is-a-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := h.agent.Run(context.Background(), NewConversation(), "x")
	if err != nil || out.Answer != "ok" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	var warnings []string
	for _, e := range h.events.events {
		if e.Kind == EventWarning {
			warnings = append(warnings, e.Text)
		}
	}
	if len(warnings) != 3 || !strings.Contains(warnings[0], "audit") || !strings.Contains(warnings[1], "disk full") {
		t.Errorf("warnings %q", warnings)
	}
}

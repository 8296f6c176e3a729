package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell"
)

// structured is one call's structured result, checked against the
// tool's outputSchema and against its own text content.
type structured struct {
	Decision  string `json:"decision"`
	Why       string `json:"why"`
	Executed  bool   `json:"executed"`
	ExitCode  int    `json:"exitCode"`
	Sandboxed bool   `json:"sandboxed"`
	Trashed   bool   `json:"trashed"`
	Error     string `json:"error"`
	TimedOut  bool   `json:"timedOut"`
	isError   bool
	text      string
}

// outputSchemaOf lists the tools and returns the terminal tool's output
// schema, resolved for validation, after checking its annotations.
func outputSchemaOf(t *testing.T, cs *mcp.ClientSession) *jsonschema.Resolved {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	tool := tools.Tools[0]
	an := tool.Annotations
	switch {
	case an == nil:
		t.Fatal("the tool has no annotations")
	case an.ReadOnlyHint || an.IdempotentHint:
		t.Errorf("readOnlyHint %v, idempotentHint %v: a shell command is neither", an.ReadOnlyHint, an.IdempotentHint)
	case an.DestructiveHint == nil || !*an.DestructiveHint:
		t.Error("destructiveHint is not true: an approved command may delete")
	case an.OpenWorldHint == nil || !*an.OpenWorldHint:
		t.Error("openWorldHint is not true: an approved command may reach the network")
	case an.Title == "" || !strings.Contains(an.Title, "Hark"):
		t.Errorf("annotation title %q", an.Title)
	}
	raw, err := json.Marshal(tool.OutputSchema)
	if err != nil || tool.OutputSchema == nil {
		t.Fatalf("no output schema: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("the output schema is no JSON schema: %v\n%s", err, raw)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the output schema: %v", err)
	}
	return rs
}

// callStructured calls the tool and checks that its structuredContent
// conforms to the schema and that the text content is the same object.
func callStructured(t *testing.T, cs *mcp.ClientSession, rs *jsonschema.Resolved, args any) structured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
	defer cancel()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %v: %v", args, err)
	}
	if r.StructuredContent == nil {
		t.Fatalf("%v: no structuredContent", args)
	}
	raw, _ := json.Marshal(r.StructuredContent)
	var inst map[string]any
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(inst); err != nil {
		t.Errorf("%v: the structuredContent does not match the outputSchema: %v\n%s", args, err, raw)
	}
	if len(r.Content) != 1 {
		t.Fatalf("content: %d items", len(r.Content))
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", r.Content[0])
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &fromText); err != nil {
		t.Fatalf("the text content is no JSON: %v", err)
	}
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(inst)
	if string(a) != string(b) {
		t.Errorf("the text content is not the structured content:\n%s\n%s", a, b)
	}
	var out structured
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	out.isError, out.text = r.IsError, tc.Text
	return out
}

// TestMcpStructuredResults: the tool says what it is (annotations) and
// what it returns (outputSchema), and each outcome — ran, refused,
// denied, nobody to ask, unanswered, moved to the Trash, bad arguments —
// comes back as structuredContent that matches the schema and names the
// decision, and as the same object in text.
func TestMcpStructuredResults(t *testing.T) {
	paths := mcpHome(t)
	if err := os.MkdirAll(filepath.Dir(paths.Settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.Settings, []byte(`{"confirmTimeout": "5s", "commandTimeout": "1s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	dir := t.TempDir()
	notRun := func(t *testing.T, s structured, decision string) {
		t.Helper()
		if s.Decision != decision || s.Executed || s.ExitCode != -1 || !s.isError || s.Trashed || s.Why == "" ||
			!strings.Contains(s.text, `"decision":"`+decision+`"`) {
			t.Errorf("want %s and not run, isError: %+v", decision, s)
		}
	}

	// No app yet: a command that needs approval cannot be asked about.
	cs, _ := startMCP(t, "Cursor")
	rs := outputSchemaOf(t, cs)
	t.Run("nobody to ask", func(t *testing.T) {
		s := callStructured(t, cs, rs, map[string]any{"command": "touch " + filepath.Join(dir, "a")})
		notRun(t, s, "not-asked")
		if !strings.Contains(s.Why, "start Hark") {
			t.Errorf("why: %q", s.Why)
		}
	})

	a := startApp(t, paths)
	cs, _ = startMCP(t, "Cursor")
	rs = outputSchemaOf(t, cs)
	t.Run("safe ran", func(t *testing.T) {
		s := callStructured(t, cs, rs, map[string]any{"command": "echo hi", "workingDirectory": dir})
		landlock, _ := shell.SandboxStatus()
		if s.Decision != agent.DecisionAuto || !s.Executed || s.ExitCode != 0 || s.isError || s.Sandboxed != landlock || s.Trashed {
			t.Errorf("safe: %+v", s)
		}
	})
	t.Run("safe ran and failed", func(t *testing.T) {
		s := callStructured(t, cs, rs, map[string]any{"command": "ls /no/such/thing", "workingDirectory": dir})
		if s.Decision != agent.DecisionAuto || !s.Executed || s.ExitCode == 0 || !s.isError {
			t.Errorf("failed: %+v", s)
		}
	})
	t.Run("ran past the time limit", func(t *testing.T) {
		s := callStructured(t, cs, rs, map[string]any{"command": "sleep 3600", "workingDirectory": dir})
		if s.Decision != agent.DecisionAuto || !s.Executed || !s.TimedOut || !s.isError || !strings.Contains(s.text, `"timedOut":true`) {
			t.Errorf("timed out: %+v", s)
		}
	})
	t.Run("forbidden refused", func(t *testing.T) {
		notRun(t, callStructured(t, cs, rs, map[string]any{"command": "sudo rm -rf /"}), agent.DecisionRefused)
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, args := range []any{map[string]any{}, map[string]any{"command": 42}, map[string]any{"command": "ls", "workingDirectory": "rel"}} {
			s := callStructured(t, cs, rs, args)
			if s.Decision != "invalid" || s.Executed || !s.isError || !strings.Contains(s.Why, "Nothing was run") {
				t.Errorf("%v: %+v", args, s)
			}
		}
	})
	answer := func(t *testing.T, args map[string]any, prefix string) structured {
		t.Helper()
		res := make(chan structured, 1)
		go func() { res <- callStructured(t, cs, rs, args) }()
		ids, _ := a.pending(t, 1)
		if prefix != "" {
			a.click(t, prefix+ids[0])
		}
		s := <-res
		a.pending(t, 0)
		return s
	}
	t.Run("denied", func(t *testing.T) {
		notRun(t, answer(t, map[string]any{"command": "touch " + filepath.Join(dir, "d")}, app.PrefixDeny), agent.DecisionDenied)
	})
	t.Run("approval timed out", func(t *testing.T) {
		notRun(t, answer(t, map[string]any{"command": "touch " + filepath.Join(dir, "t")}, ""), agent.DecisionTimeout)
	})
	t.Run("approved", func(t *testing.T) {
		s := answer(t, map[string]any{"command": "touch " + filepath.Join(dir, "y")}, app.PrefixApprove)
		if s.Decision != agent.DecisionApproved || !s.Executed || s.ExitCode != 0 || s.isError || s.Sandboxed != sandboxOK() {
			t.Errorf("approved: %+v", s)
		}
	})
	t.Run("approved to the Trash", func(t *testing.T) {
		doomed := filepath.Join(home, "old-report.txt")
		if err := os.WriteFile(doomed, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s := answer(t, map[string]any{"command": "rm ~/old-report.txt"}, app.PrefixTrash)
		if s.Decision != agent.DecisionTrashed || s.Executed || !s.Trashed || s.isError || !strings.Contains(s.Why, "Trash") {
			t.Errorf("trashed: %+v", s)
		}
		if _, err := os.Stat(doomed); err == nil {
			t.Error("the file is still there")
		}
	})
}

func sandboxOK() bool { ok, _ := shell.SandboxStatus(); return ok }

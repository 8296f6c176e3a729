package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// reply is one scripted model turn: chunks streamed in order, then err.
// A reply with block set streams its chunks and then waits for the context.
type reply struct {
	chunks []api.ChatResponse
	err    error
	block  bool
	noDone bool // leave out the final done chunk (a stream cut short)
}

// scriptedClient replays replies and records every request it receives.
type scriptedClient struct {
	mu       sync.Mutex
	replies  []reply
	requests []*api.ChatRequest
	// next, when set, produces replies after the script runs out.
	next func(n int) reply
}

func (s *scriptedClient) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s.mu.Lock()
	n := len(s.requests)
	cp := *req
	cp.Messages = append([]api.Message(nil), req.Messages...)
	s.requests = append(s.requests, &cp)
	var r reply
	switch {
	case n < len(s.replies):
		r = s.replies[n]
	case s.next != nil:
		r = s.next(n)
	default:
		s.mu.Unlock()
		return api.StatusError{StatusCode: 500, ErrorMessage: "script ran out of replies"}
	}
	s.mu.Unlock()
	for _, c := range r.chunks {
		if err := fn(c); err != nil {
			return err
		}
	}
	if r.err != nil {
		return r.err
	}
	if r.block {
		<-ctx.Done()
		return ctx.Err()
	}
	if !r.noDone {
		return fn(api.ChatResponse{Done: true, DoneReason: "stop"})
	}
	return nil
}

func (s *scriptedClient) request(t *testing.T, i int) *api.ChatRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.requests) {
		t.Fatalf("model was called %d times, want at least %d", len(s.requests), i+1)
	}
	return s.requests[i]
}

func (s *scriptedClient) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// text is a reply of plain words, streamed in two chunks.
func text(s string) reply {
	half := len(s) / 2
	return reply{chunks: []api.ChatResponse{
		{Message: api.Message{Role: "assistant", Content: s[:half]}},
		{Message: api.Message{Role: "assistant", Content: s[half:]}},
	}}
}

// tools is a reply that makes the given tool calls.
func tools(calls ...api.ToolCall) reply {
	return reply{chunks: []api.ChatResponse{{Message: api.Message{Role: "assistant", ToolCalls: calls}}}}
}

// call builds an execute_terminal_command call; kv are argument pairs.
func call(kv ...any) api.ToolCall { return namedCall(ToolName, kv...) }

func namedCall(name string, kv ...any) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i].(string), kv[i+1])
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}}
}

func cmd(command, purpose string) api.ToolCall {
	return call("command", command, "purpose", purpose)
}

// prefixClassifier is a tiny policy for tests: by the first word.
type prefixClassifier struct{}

func (prefixClassifier) ClassifyIn(c, _ string) shell.Verdict {
	f := strings.Fields(c)
	first := ""
	if len(f) > 0 {
		first = f[0]
	}
	switch first {
	case "ls", "cat", "echo", "du", "pwd":
		return shell.Verdict{Command: c, Tier: shell.Safe, Reasons: []shell.Reason{}}
	case "sudo", "mkfs":
		return shell.Verdict{Command: c, Tier: shell.Forbidden, Reasons: []shell.Reason{{Command: c, Why: first + ": privilege escalation is never run"}}}
	default:
		return shell.Verdict{Command: c, Tier: shell.Confirm, Reasons: []shell.Reason{{Command: c, Why: first + ": changes files"}}}
	}
}

// fakeExecutor records what it runs and returns canned output.
type fakeExecutor struct {
	mu      sync.Mutex
	ran     []shell.Request
	outputs map[string]string
	// defaultOutput answers commands not in outputs.
	defaultOutput string
	block         bool // wait for ctx like a long command, then report it killed
	started       chan struct{}
}

func (f *fakeExecutor) Run(ctx context.Context, req shell.Request) shell.Result {
	f.mu.Lock()
	f.ran = append(f.ran, req)
	out, ok := f.outputs[req.Command]
	if !ok {
		out = f.defaultOutput
	}
	block, started := f.block, f.started
	f.mu.Unlock()
	res := shell.Result{
		Success: true, Command: req.Command, WorkingDirectory: req.WorkingDirectory, Purpose: req.Purpose,
		Tier: req.Verdict.Tier, Reasons: req.Verdict.Reasons, Executed: true, Output: out, Sandbox: "off",
	}
	if req.Verdict.Tier == shell.Safe {
		res.Sandbox = "read-only"
	}
	if block {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		res.Success, res.ExitCode, res.Error = false, -1, "killed: "+ctx.Err().Error()
	}
	return res
}

func (f *fakeExecutor) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.ran {
		out = append(out, r.Command)
	}
	return out
}

// scriptedConfirmer answers with decisions in order (deny once it runs out)
// and records what it was asked.
type scriptedConfirmer struct {
	mu        sync.Mutex
	decisions []Decision
	asked     []Pending
	block     bool // wait for the context instead of answering
	// before, when set, sees each Pending before it is answered (a test
	// changes the world while the user decides).
	before func(Pending)
}

func (c *scriptedConfirmer) Confirm(ctx context.Context, p Pending) (Decision, error) {
	c.mu.Lock()
	n := len(c.asked)
	c.asked = append(c.asked, p)
	block, before := c.block, c.before
	c.mu.Unlock()
	if before != nil {
		before(p)
	}
	if block {
		<-ctx.Done()
		return Decision{}, ctx.Err()
	}
	if n < len(c.decisions) {
		return c.decisions[n], nil
	}
	return Decision{Approved: false, By: ByTerminal}, nil
}

func (c *scriptedConfirmer) askedCommands() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.asked {
		out = append(out, p.Command)
	}
	return out
}

// eventLog collects events safely.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	on     func(Event) // optional hook, called outside the lock
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	hook := l.on
	l.mu.Unlock()
	if hook != nil {
		hook(e)
	}
}

func (l *eventLog) kinds() []EventKind {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []EventKind
	for _, e := range l.events {
		out = append(out, e.Kind)
	}
	return out
}

func (l *eventLog) decisions() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		if e.Kind == EventDecided {
			out = append(out, e.Call.Command+"="+e.Decision)
		}
	}
	return out
}

// harness wires an Agent to fakes with records in a temp folder.
type harness struct {
	client    *scriptedClient
	exec      *fakeExecutor
	confirmer *scriptedConfirmer
	events    *eventLog
	store     *Store
	audit     *AuditLog
	agent     *Agent
	home      string
}

func newHarness(t testing.TB, replies []reply, mod func(*Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{
		client:    &scriptedClient{replies: replies},
		exec:      &fakeExecutor{outputs: map[string]string{}},
		confirmer: &scriptedConfirmer{},
		events:    &eventLog{},
		store:     NewStore(dir+"/history", testFiles),
		audit:     NewAuditLog(dir + "/audit.jsonl"),
		home:      dir,
	}
	o := Options{
		Client: h.client, Model: "qwen3:4b", Host: "http://127.0.0.1:11434",
		Classifier: prefixClassifier{}, Executor: h.exec, Confirmer: h.confirmer,
		Home: dir, History: h.store, Audit: h.audit, OnEvent: h.events.add,
		SystemPrompt: "test system prompt",
		now:          time.Now,
	}
	if mod != nil {
		mod(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

// toolMessages returns the tool results in a request, decoded.
func toolMessages(t *testing.T, msgs []api.Message) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range msgs {
		if m.Role != "tool" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(m.Content), &v); err != nil {
			t.Fatalf("tool message is not JSON: %v\n%s", err, m.Content)
		}
		out = append(out, v)
	}
	return out
}

func (h *harness) auditEntries(t *testing.T) []AuditEntry {
	t.Helper()
	es, bad, err := ReadAudit(h.audit.Path)
	if err != nil || bad != 0 {
		t.Fatalf("ReadAudit: %v (bad lines %d)", err, bad)
	}
	return es
}

// testFiles are the atomic file operations the app injects in production.
var testFiles = Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside}

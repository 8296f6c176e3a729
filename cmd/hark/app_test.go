package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell"
)

func TestToAppEvent(t *testing.T) {
	t.Parallel()
	call := &agent.Call{Command: "rm x", Purpose: "executing", Tier: shell.Confirm, Reasons: []shell.Reason{{Command: "rm x", Why: "rm: deletes files"}}}
	cases := []struct {
		name string
		in   agent.Event
		want app.AgentEvent
		ok   bool
	}{
		{"text", agent.Event{Kind: agent.EventText, Text: "hi"}, app.AgentEvent{Kind: app.AgentText, Text: "hi"}, true},
		{"proposed carries the call", agent.Event{Kind: agent.EventProposed, Call: call},
			app.AgentEvent{Kind: app.AgentProposed, Command: "rm x", Purpose: "executing", Tier: shell.Confirm, Reasons: call.Reasons}, true},
		{"awaiting", agent.Event{Kind: agent.EventAwaiting, Call: call}, app.AgentEvent{Kind: app.AgentAwaiting, Command: "rm x", Purpose: "executing", Tier: shell.Confirm, Reasons: call.Reasons}, true},
		{"result with exit code and stderr", agent.Event{Kind: agent.EventResult, Call: call, Result: &shell.Result{ExitCode: 2, Error: "no such file"}},
			app.AgentEvent{Kind: app.AgentResult, Command: "rm x", Purpose: "executing", Tier: shell.Confirm, Reasons: call.Reasons, ExitCode: 2, Text: "no such file"}, true},
		{"final answer", agent.Event{Kind: agent.EventFinal, Text: "done"}, app.AgentEvent{Kind: app.AgentAnswer, Text: "done"}, true},
		{"error", agent.Event{Kind: agent.EventError, Text: "Ollama is not running"}, app.AgentEvent{Kind: app.AgentError, Text: "Ollama is not running"}, true},
		{"decided is not shown", agent.Event{Kind: agent.EventDecided, Call: call}, app.AgentEvent{}, false},
		// Loading and thinking are a status the first streamed word replaces.
		{"loading", agent.Event{Kind: agent.EventLoading, Text: "loading model…"}, app.AgentEvent{Kind: app.AgentStatus, Text: "loading model…"}, true},
		{"thinking", agent.Event{Kind: agent.EventThinking, Text: "thinking…"}, app.AgentEvent{Kind: app.AgentStatus, Text: "thinking…"}, true},
		{"corrective turn", agent.Event{Kind: agent.EventRetry, Text: "Your reply was empty."}, app.AgentEvent{Kind: app.AgentStatus, Text: "asking the model again…"}, true},
		{"reasoning withdrawn", agent.Event{Kind: agent.EventText, Text: "Hi", Reset: true}, app.AgentEvent{Kind: app.AgentText, Text: "Hi", Reset: true}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := toAppEvent(tc.in)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if got.Kind != tc.want.Kind || got.Text != tc.want.Text || got.Command != tc.want.Command || got.Purpose != tc.want.Purpose ||
				got.Tier != tc.want.Tier || got.ExitCode != tc.want.ExitCode || len(got.Reasons) != len(tc.want.Reasons) || got.Reset != tc.want.Reset {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStoreHistory(t *testing.T) {
	t.Parallel()
	store := newStore(t.TempDir())
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, title := range []string{"first", "second", "third"} {
		c := &agent.Conversation{ID: "c" + string(rune('1'+i)), Title: title, Created: base.Add(time.Duration(i) * time.Hour), Updated: base.Add(time.Duration(i) * time.Hour), Model: "qwen3:4b"}
		args := api.NewToolCallFunctionArguments()
		args.Set("command", "ls ~/Downloads")
		c.Messages = []api.Message{
			{Role: "user", Content: "what is in downloads"},
			{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: agent.ToolName, Arguments: args}}}},
			{Role: "tool", Content: `{"success":true}`},
			{Role: "assistant", Content: "Two files."},
		}
		if err := store.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	h := storeHistory{store}
	recent, err := h.Recent(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 2 {
		t.Fatalf("Recent(2) = %+v, want two entries", recent)
	}
	text, err := h.Transcript(recent[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	// The tray's transcript reads as a person would: Hark's facts, then
	// the model's words (transcriptText).
	for _, want := range []string{"You: what is in downloads", "$ ls ~/Downloads", "Hark: Two files."} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}
	if _, err := h.Transcript("nope"); err == nil {
		t.Error("Transcript of an unknown id succeeded")
	}
}

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
)

// The store `hark run` hands the core is its history as it is: newest
// first, and each conversation renders with the one transcript renderer.
func TestStoreIsTheAppsHistory(t *testing.T) {
	t.Parallel()
	var h app.History = newStore(t.TempDir())
	store := h.(*agent.Store)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, title := range []string{"first", "second", "third"} {
		c := &agent.Conversation{ID: "c" + string(rune('1'+i)), Title: title, Created: base.Add(time.Duration(i) * time.Hour), Updated: base.Add(time.Duration(i) * time.Hour), Model: "qwen3:4b"}
		args := api.NewToolCallFunctionArguments()
		args.Set("command", "ls ~/Downloads")
		c.Messages = []api.Message{
			{Role: "user", Content: "what is in downloads"},
			{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: agent.ToolName, Arguments: args}}}},
			{Role: "tool", Content: `{"executed":true,"exitCode":0,"output":"a.txt\nb.txt"}`},
			{Role: "assistant", Content: "Two files."},
		}
		c.Runs = []agent.RunMetrics{{Commands: 1, Outcome: agent.OutcomeCompleted}}
		if err := store.Save(c); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // distinct modification times
	}
	list, err := h.List()
	if err != nil || len(list) != 3 || list[0].Title != "third" {
		t.Fatalf("List() = %+v, %v; want three, newest first", list, err)
	}
	c, err := h.Load(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	text := agent.Transcript(c)
	for _, want := range []string{"You: what is in downloads", "$ ls ~/Downloads", "✓ ran: a.txt …", "Hark: 1 command ran.\n\nModel: Two files."} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}
	if _, err := h.Load("nope"); err == nil {
		t.Error("Load of an unknown id succeeded")
	}
}

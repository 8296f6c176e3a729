package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
)

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

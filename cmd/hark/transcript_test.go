package main

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
)

// TestTranscriptEndingsAreHonest: a transcript says what Hark knows about
// each request before the model's words, as the final notification did.
func TestTranscriptEndingsAreHonest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tool string
		run  agent.RunMetrics
		want string
	}{
		{"timed out", `{"executed":false,"exitCode":-1,"error":"The user did not answer within 2m0s, so the command was not run."}`,
			agent.RunMetrics{Denied: 1}, "Hark: approval timed out — nothing changed.\n\nDeleted it."},
		{"denied", `{"executed":false,"exitCode":-1,"error":"The user denied this command."}`,
			agent.RunMetrics{Denied: 1}, "Hark: 1 command denied — nothing changed.\n\nDeleted it."},
		{"ran", `{"executed":true,"exitCode":0}`, agent.RunMetrics{Commands: 1}, "Hark: 1 command ran.\n\nDeleted it."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conv := &agent.Conversation{Title: "delete it", Messages: []api.Message{
				{Role: "user", Content: "delete old_builds"},
				{Role: "assistant", ToolCalls: []api.ToolCall{{}}},
				{Role: "tool", Content: c.tool},
				{Role: "assistant", Content: "**Deleted it.**"},
			}, Runs: []agent.RunMetrics{c.run}}
			got := transcriptText(conv)
			if !strings.Contains(got, c.want) {
				t.Errorf("transcript:\n%s\nwant it to contain %q", got, c.want)
			}
			if strings.Contains(got, `{"executed"`) {
				t.Errorf("transcript shows raw result JSON:\n%s", got)
			}
		})
	}
}

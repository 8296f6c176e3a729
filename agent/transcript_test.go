package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// A transcript says what Hark knows about each request before the model's
// words, as the final notification did, and never shows raw result JSON.
func TestTranscriptEndingsAreHonest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tool string
		run  RunMetrics
		want []string
	}{
		{"timed out", `{"executed":false,"exitCode":-1,"error":"The user did not answer within 2m0s, so the command was not run."}`,
			RunMetrics{Denied: 1, TimedOut: 1, Outcome: OutcomeCompleted}, []string{"✗ not run: the approval timed out", "Hark: approval timed out — nothing changed.\n\nDeleted it."}},
		{"denied", `{"executed":false,"exitCode":-1,"error":"The user denied this command. Do not try the same change another way."}`,
			RunMetrics{Denied: 1, Outcome: OutcomeCompleted}, []string{"✗ not run: The user denied this command.", "Hark: 1 command denied — nothing changed.\n\nDeleted it."}},
		{"ran", `{"executed":true,"exitCode":0}`, RunMetrics{Commands: 1, Outcome: OutcomeCompleted}, []string{"✓ ran\n", "Hark: 1 command ran.\n\nDeleted it."}},
		{"failed", `{"executed":true,"exitCode":1,"output":"rm: old_builds: Permission denied"}`, RunMetrics{Commands: 1, Failed: 1, Outcome: OutcomeCompleted},
			[]string{"✗ exit status 1: rm: old_builds: Permission denied", "Hark: 1 command ran (1 failed).\n\nDeleted it."}},
		{"refused", `{"executed":false,"exitCode":-1,"error":"Refused: Hark never runs this kind of command (sudo)."}`, RunMetrics{Refused: 1, Outcome: OutcomeCompleted},
			[]string{"✗ not run: refused (Hark never runs this)", "Hark: 1 command refused (Hark never runs it) — nothing changed.\n\nDeleted it."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := api.NewToolCallFunctionArguments()
			args.Set("command", "rm -r /tmp/old_builds")
			args.Set("purpose", PurposeExecuting)
			conv := &Conversation{ID: "c1", Title: "delete it", Model: "m", Messages: []api.Message{
				{Role: "user", Content: "delete old_builds"},
				{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: ToolName, Arguments: args}}}},
				{Role: "tool", Content: c.tool},
				{Role: "assistant", Content: "**Deleted it.**"},
			}, Runs: []RunMetrics{c.run}}
			got := Transcript(conv)
			for _, w := range append(c.want, "You: delete old_builds", "$ rm -r /tmp/old_builds   (executing)") {
				if !strings.Contains(got, w) {
					t.Errorf("transcript:\n%s\nwant it to contain %q", got, w)
				}
			}
			if strings.Contains(got, `{"executed"`) || strings.Contains(got, "**") {
				t.Errorf("transcript shows raw JSON or Markdown:\n%s", got)
			}
		})
	}
}

// A request that did not complete says how it ended, after what it did.
func TestTranscriptUnfinishedRequest(t *testing.T) {
	t.Parallel()
	conv := &Conversation{ID: "c2", Title: "wait", Messages: []api.Message{
		{Role: "user", Content: "wait a while"},
		{Role: "assistant", Content: "Waiting."},
		{Role: "user", Content: "and now?"},
		{Role: "assistant", Content: "Done."},
	}, Runs: []RunMetrics{{Commands: 1, Outcome: OutcomeCancelled, Error: "cancelled by the user"}, {Outcome: OutcomeCompleted}}}
	got := Transcript(conv)
	want := "You: wait a while\n\nHark: Waiting.\n\nHark: 1 command ran; the request ended: cancelled by the user\n\nYou: and now?\n\nHark: Done.\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("transcript:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// Conversations with the same title are told apart by time and outcome.
func TestSummaryLabel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.Local)
	today := time.Date(2026, 12, 1, 14, 2, 0, 0, time.Local)
	cases := []struct {
		updated time.Time
		last    *RunMetrics
		want    string
	}{
		{today, &RunMetrics{Commands: 1, Outcome: OutcomeCompleted}, "tidy · 14:02 · 1 command ran"},
		{today, &RunMetrics{Denied: 1, Outcome: OutcomeCompleted}, "tidy · 14:02 · 1 command denied"},
		{today, &RunMetrics{Denied: 1, TimedOut: 1, Outcome: OutcomeCompleted}, "tidy · 14:02 · approval timed out"},
		{today.AddDate(0, 0, -3), &RunMetrics{Outcome: OutcomeCancelled}, "tidy · Nov 28 14:02 · cancelled"},
		{today, &RunMetrics{Outcome: OutcomeError}, "tidy · 14:02 · failed"},
		{today, nil, "tidy · 14:02"},
	}
	for _, c := range cases {
		if got := (Summary{Title: "tidy", Updated: c.updated, Last: c.last}).Label(now); got != c.want {
			t.Errorf("Label = %q, want %q", got, c.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
	"time"

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

// TestRecentLabel: conversations with the same title are told apart by
// time and outcome.
func TestRecentLabel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.Local)
	today := time.Date(2026, 12, 1, 14, 2, 0, 0, time.Local)
	cases := []struct {
		updated time.Time
		runs    []agent.RunMetrics
		want    string
	}{
		{today, []agent.RunMetrics{{Commands: 1, Outcome: agent.OutcomeCompleted}}, "tidy · 14:02 · 1 command ran"},
		{today, []agent.RunMetrics{{Denied: 1, Outcome: agent.OutcomeCompleted}}, "tidy · 14:02 · 1 command denied"},
		{today.AddDate(0, 0, -3), []agent.RunMetrics{{Outcome: agent.OutcomeCancelled}}, "tidy · Nov 28 14:02 · cancelled"},
		{today, nil, "tidy · 14:02"},
	}
	for _, c := range cases {
		if got := recentLabel("tidy", c.updated, c.runs, now); got != c.want {
			t.Errorf("recentLabel = %q, want %q", got, c.want)
		}
	}
}

// The audit table says a cancelled or timed-out run in words, not as the
// stop signal's exit status.
func TestAuditTableStops(t *testing.T) {
	t.Parallel()
	code := 143
	var b strings.Builder
	writeAuditTable(&b, []agent.AuditEntry{
		{Command: "sleep 100", Decision: agent.DecisionAuto, Executed: true, ExitCode: &code, Cancelled: true},
		{Command: "find /", Decision: agent.DecisionAuto, Executed: true, ExitCode: &code, TimedOut: true},
		{Command: "false", Decision: agent.DecisionAuto, Executed: true, ExitCode: new(int)},
	})
	out := b.String()
	for _, want := range []string{"cancelled", "timed out"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "143") {
		t.Errorf("table shows the stop signal's status:\n%s", out)
	}
}

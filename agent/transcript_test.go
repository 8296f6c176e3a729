package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// A transcript says what Hark knows about each request, as the final
// notification did: before the model's words, or after them with the claim
// flagged when the record contradicts them; it never shows raw result JSON.
func TestTranscriptEndingsAreHonest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tool string
		run  RunMetrics
		want []string
	}{
		{"timed out", `{"executed":false,"exitCode":-1,"error":"The user did not answer within 2m0s, so the command was not run."}`,
			RunMetrics{Denied: 1, TimedOut: 1, Outcome: OutcomeCompleted}, []string{"✗ not run: the approval timed out", "Hark: approval timed out — nothing changed.\n⚠ The model says “Deleted it”, but that command did not run (its approval timed out).\n"}},
		{"denied", `{"executed":false,"exitCode":-1,"error":"The user denied this command. Do not try the same change another way."}`,
			RunMetrics{Denied: 1, Outcome: OutcomeCompleted}, []string{"✗ not run: The user denied this command.", "Hark: 1 command denied — nothing changed.\n⚠ The model says “Deleted it”, but that command did not run (you denied it).\n"}},
		{"ran", `{"executed":true,"exitCode":0}`, RunMetrics{Commands: 1, Outcome: OutcomeCompleted}, []string{"✓ ran\n", "Hark: 1 command ran.\n\nModel: Deleted it."}},
		{"failed", `{"executed":true,"exitCode":1,"output":"rm: old_builds: Permission denied"}`, RunMetrics{Commands: 1, Failed: 1, Outcome: OutcomeCompleted},
			[]string{"✗ exit status 1: rm: old_builds: Permission denied", "Hark: 1 command ran (1 failed).\n⚠ The model says “Deleted it”, but that command failed.\n"}},
		{"refused", `{"executed":false,"exitCode":-1,"error":"Refused: Hark never runs this kind of command (sudo)."}`, RunMetrics{Refused: 1, Outcome: OutcomeCompleted},
			[]string{"✗ not run: refused (Hark never runs this)", "Hark: 1 command refused (Hark never runs it) — nothing changed.\n⚠ The model says “Deleted it”, but that command did not run (Hark refused it).\n"}},
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
		{Role: "assistant", Content: "It is still going."},
	}, Runs: []RunMetrics{{Commands: 1, Outcome: OutcomeCancelled, Error: "cancelled by the user"}, {Outcome: OutcomeCompleted}}}
	got := Transcript(conv)
	want := "You: wait a while\n\nModel: Waiting.\n\nHark: 1 command ran; the request ended: cancelled by the user\n\nYou: and now?\n\nModel: It is still going.\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("transcript:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// A conversation is named by what it did: its first request that changed
// something, how many requests followed, when, and what all its commands
// came to; one of questions alone says how its last request ended.
func TestSummaryLabel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.Local)
	today := time.Date(2026, 12, 1, 14, 2, 0, 0, time.Local)
	cases := []struct {
		s    Summary
		want string
	}{
		{Summary{Title: "tidy", Updated: today, Requests: 1, Total: Tally{Ran: 1}, Last: &RunMetrics{Commands: 1, Outcome: OutcomeCompleted}}, "tidy · 14:02 · 1 ran"},
		{Summary{Title: "tidy", Updated: today, Requests: 1, Total: Tally{Denied: 1}}, "tidy · 14:02 · 1 denied"},
		{Summary{Title: "tidy", Updated: today, Requests: 1, Total: Tally{TimedOut: 1}}, "tidy · 14:02 · 1 timed out"},
		{Summary{Title: "how big is it", Updated: today, Requests: 1, Total: Tally{Ran: 2, ReadOnly: 2}}, "how big is it · 14:02 · looked only, nothing changed"},
		{Summary{Title: "tidy", Updated: today.AddDate(0, 0, -3), Requests: 1, Last: &RunMetrics{Outcome: OutcomeCancelled}}, "tidy · Nov 28 14:02 · cancelled"},
		{Summary{Title: "tidy", Updated: today, Requests: 1, Last: &RunMetrics{Outcome: OutcomeError}}, "tidy · 14:02 · failed"},
		{Summary{Title: "tidy", Updated: today}, "tidy · 14:02"},
		// The walk's ten-request conversation: not "how much disk space is
		// left · cancelled", but the deletion and everything it came to.
		{Summary{Title: "how much disk space is left", Headline: "remove the build folder from Downloads", Updated: today, Requests: 10,
			Total: Tally{Ran: 9, ReadOnly: 6, Trashed: 2, Denied: 2, TimedOut: 1}, Last: &RunMetrics{Outcome: OutcomeCancelled}},
			"remove the build folder from Downloads (+9 more) · 14:02 · 2 moved to the Trash, 3 ran, 2 denied, 1 timed out"},
	}
	for _, c := range cases {
		if got := c.s.Label(now); got != c.want {
			t.Errorf("Label = %q, want %q", got, c.want)
		}
	}
}

// Deeds finds the first request that changed something and sums them all.
func TestConversationDeeds(t *testing.T) {
	t.Parallel()
	c := &Conversation{Runs: []RunMetrics{
		{Request: "how much disk space is left", Commands: 1, ReadOnly: 1},
		{Request: "remove   the build\nfolder", Approved: 1, Trashed: 1},
		{Request: "and the logs", Commands: 1, Denied: 1},
	}}
	h, total := c.Deeds()
	if h != "remove the build folder" || total != (Tally{Ran: 2, ReadOnly: 1, Trashed: 1, Denied: 1}) {
		t.Errorf("Deeds = %q, %+v", h, total)
	}
	if h, _ := (&Conversation{Runs: []RunMetrics{{Request: "what is here", Commands: 1, ReadOnly: 1}}}).Deeds(); h != "" {
		t.Errorf("a conversation of questions has the headline %q", h)
	}
}

// A Move to Trash reads as what it was, with the way back, not "not run".
func TestTranscriptSaysMovedToTheTrash(t *testing.T) {
	t.Parallel()
	cases := []struct{ json, want string }{
		{`{"executed":false,"success":true,"exitCode":0,"output":"Moved 2 items to the Trash instead of deleting: /h/a_b, /h/c. The command itself did not run. The user can put them back with Undo last trash in Hark's menu or ` + "`hark undo`" + `."}`,
			"↩ moved to the Trash (undo: Undo last trash in the menu, or `hark undo`): /h/a_b, /h/c"},
		{`{"executed":false,"success":false,"exitCode":1,"output":"Moved 1 item to the Trash instead of deleting: /h/a. The command itself did not run.","error":"Not moved to the Trash: /h/b: permission denied"}`,
			"↩ moved to the Trash (undo: Undo last trash in the menu, or `hark undo`): /h/a; not all of it: Not moved to the Trash: /h/b: permission denied"},
		{`{"executed":false,"success":true,"exitCode":0,"output":"Nothing to move: the deletion would have removed nothing."}`, "✓ not run: the deletion would have removed nothing"},
		{`{"executed":true,"success":true,"exitCode":0,"rule":"always allow rm in ~/Downloads"}`, "✓ ran — run without asking: always allow rm in ~/Downloads"},
	}
	for _, c := range cases {
		if got := resultLine(c.json); got != c.want {
			t.Errorf("resultLine =\n  %q\nwant\n  %q", got, c.want)
		}
	}
}

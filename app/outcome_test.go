package app

import (
	"testing"
	"time"
)

func TestOutcomeFacts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    Outcome
		want string
	}{
		{"nothing proposed", Outcome{}, ""},
		{"one denied", Outcome{Denied: 1}, "1 command denied — nothing changed"},
		{"timed out", Outcome{TimedOut: 1, Timeout: 2 * time.Minute}, "approval timed out after 2 min — nothing changed"},
		{"ran and denied", Outcome{Ran: 2, Denied: 1}, "2 commands ran, 1 command denied"},
		{"failed", Outcome{Ran: 1, Failed: 1}, "1 command ran (1 failed)"},
		{"refused", Outcome{Refused: 2}, "2 commands refused (Hark never runs it) — nothing changed"},
		{"odd timeout", Outcome{TimedOut: 1, Timeout: 90 * time.Second}, "approval timed out after 1 min 30 s — nothing changed"},
		{"trashed", Outcome{Trashed: 1, Denied: 1}, "1 deletion moved to the Trash instead (Undo last trash puts it back), 1 command denied"},
		{"trash incomplete", Outcome{TrashFailed: 1}, "1 Move to Trash not complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := c.o.Facts(); got != c.want {
				t.Errorf("Facts() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestEndingLeadsWithFacts(t *testing.T) {
	t.Parallel()
	got := Ending(Outcome{Denied: 1}, "**Deleted it.**")
	if want := "1 command denied — nothing changed.\n\nDeleted it."; got != want {
		t.Errorf("Ending = %q, want %q", got, want)
	}
	if got := Ending(Outcome{}, "hello"); got != "hello" {
		t.Errorf("Ending without commands = %q, want the answer alone", got)
	}
}

func TestPlainText(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"**Done.** Removed `old_builds`.", "Done. Removed old_builds."},
		{"## Summary\n- one\n- two", "Summary\n• one\n• two"},
		{"See [the docs](https://example.com).", "See the docs (https://example.com)."},
		{"```sh\nls -la\n```\nthat lists", "ls -la\nthat lists"},
		{"keep my__notes_2024.txt and OLLAMA_HOST", "keep my__notes_2024.txt and OLLAMA_HOST"},
		{"an *important* point, 2 * 3 = 6", "an important point, 2 * 3 = 6"},
		{"> quoted", "quoted"},
	}
	for _, c := range cases {
		if got := PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

package agent

import (
	"testing"
	"time"
)

func TestTallyFacts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    Tally
		want string
	}{
		{"nothing proposed", Tally{}, ""},
		{"one denied", Tally{Denied: 1}, "1 command denied — nothing changed"},
		{"timed out", Tally{TimedOut: 1, Timeout: 2 * time.Minute}, "approval timed out after 2 min — nothing changed"},
		{"ran and denied", Tally{Ran: 2, Denied: 1}, "2 commands ran, 1 command denied"},
		{"failed", Tally{Ran: 1, Failed: 1}, "1 command ran (1 failed)"},
		{"refused", Tally{Refused: 2}, "2 commands refused (Hark never runs it) — nothing changed"},
		{"odd timeout", Tally{TimedOut: 1, Timeout: 90 * time.Second}, "approval timed out after 1 min 30 s — nothing changed"},
		{"trashed", Tally{Trashed: 1, Denied: 1}, "what 1 deletion would have removed went to the Trash instead (Undo last trash puts it back), 1 command denied"},
		{"trash incomplete", Tally{TrashFailed: 1}, "1 Move to Trash not complete"},
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
	got := Ending(Tally{Denied: 1}, "**Deleted it.**")
	if want := "1 command denied — nothing changed.\n\nDeleted it."; got != want {
		t.Errorf("Ending = %q, want %q", got, want)
	}
	if got := Ending(Tally{}, "hello"); got != "hello" {
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

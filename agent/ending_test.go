package agent

import (
	"strings"
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
		{"trashed", Tally{Trashed: 1, Denied: 1}, "Moved what 1 deletion would have removed to the Trash. 1 command denied"},
		{"trash incomplete", Tally{TrashFailed: 1}, "1 Move to Trash not complete"},
		{"read-only and timed out", Tally{Ran: 2, ReadOnly: 2, TimedOut: 1, Timeout: 25 * time.Second},
			"2 read-only commands ran, approval timed out after 25 s — nothing changed"},
		{"read-only only", Tally{Ran: 1, ReadOnly: 1}, "1 read-only command ran — nothing changed"},
		{"read-only and a change", Tally{Ran: 2, ReadOnly: 1}, "2 commands ran"},
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

func TestEndingSaysNothingChangedAlone(t *testing.T) {
	t.Parallel()
	got := Ending(Tally{Denied: 1}, "**Nothing was deleted.**")
	if want := "1 command denied — nothing changed."; got != want {
		t.Errorf("Ending = %q, want %q", got, want)
	}
	if got := Ending(Tally{}, "hello"); got != "hello" {
		t.Errorf("Ending without commands = %q, want the answer alone", got)
	}
}

// TestEndingAnswerLeads: the model's answer comes first and Hark's
// account after it, on screen and in speech (walk 6, B3-13: "1 read-only
// command ran — nothing changed." came before "You have 77 GB free…");
// only a false claim puts Hark's account first (TestEndingHarkLeads).
func TestEndingAnswerLeads(t *testing.T) {
	t.Parallel()
	o := Tally{Ran: 1, ReadOnly: 1}
	want := "You have 77 GB free on /.\n\n1 read-only command ran — nothing changed."
	if got := Ending(o, "You have **77 GB** free on `/`."); got != want {
		t.Errorf("Ending =\n%q\nwant\n%q", got, want)
	}
	if got := SpokenEnding(o, "You have 77 GB free on /."); got != want {
		t.Errorf("SpokenEnding =\n%q\nwant\n%q", got, want)
	}
	trashed := Tally{Ran: 1, ReadOnly: 1, Trashed: 1, TrashedWhat: "old_builds", TrashedItems: 1, Undo: "Undo last trash in the menu"}
	if got := Ending(trashed, "The old builds are gone from Downloads."); !strings.HasPrefix(got, "The old builds are gone from Downloads.\n\nMoved old_builds to the Trash") {
		t.Errorf("Ending after a Trash = %q", got)
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

// TestEndingFlagsFalseClaims: when the model's closing words claim a change
// the record contradicts, Hark's own summary is the first line, then the
// claim quoted and flagged, then the rest of the reply marked as the
// model's; an answer that claims nothing, hedges, or
// follows a real change is left as it was.
func TestEndingFlagsFalseClaims(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		o      Tally
		answer string
		want   string // the whole ending
	}{
		{"denied", Tally{Denied: 1}, "Archived 4 log files into logs.tar.gz and removed the originals.",
			"Hark: 1 command denied — nothing changed.\n" +
				"⚠ The model says “Archived 4 log files into logs.tar.gz and removed the originals”, but that command did not run (you denied it)."},
		{"timed out after read-only", Tally{Ran: 2, ReadOnly: 2, TimedOut: 1, Timeout: 25 * time.Second},
			"I checked the folder. The old_builds folder is no longer in your Downloads.",
			"Hark: 2 read-only commands ran, approval timed out after 25 s — nothing changed.\n" +
				"⚠ The model says “The old_builds folder is no longer in your Downloads”, but that command did not run (its approval timed out).\n\n" +
				"The model's reply: I checked the folder. The old_builds folder is no longer in your Downloads."},
		{"failed", Tally{Ran: 1, Failed: 1}, "**Deleted** `old_builds`.",
			"Hark: 1 command ran (1 failed).\n⚠ The model says “Deleted old_builds”, but that command failed."},
		{"nothing run", Tally{}, "Done!",
			"Hark: no command ran — nothing changed.\n⚠ The model says “Done”, but Hark ran no command for this request."},
		{"hedged", Tally{Denied: 1}, "I did not delete it. I would have removed old_builds; say if you want that.",
			"I did not delete it. I would have removed old_builds; say if you want that.\n\n1 command denied — nothing changed."},
		{"real change", Tally{Ran: 1}, "Deleted it.", "Deleted it.\n\n1 command ran."},
		{"trashed", Tally{Trashed: 1, Denied: 1}, "Moved it to the Trash.",
			"Moved it to the Trash.\n\nMoved what 1 deletion would have removed to the Trash. 1 command denied."},
		{"a question", Tally{Ran: 1, ReadOnly: 1}, "Three files were created yesterday.",
			"Three files were created yesterday.\n\n1 read-only command ran — nothing changed."},
		{"no claim", Tally{}, "Hello there.", "Hello there."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Ending(c.o, c.answer); got != c.want {
				t.Errorf("Ending =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// Hark's account leads every ending that follows a failed or denied
// change, on the notification and in speech: the first line is Hark's,
// the model's false claim is never first and is spoken once, inside the
// warning.
func TestEndingHarkLeads(t *testing.T) {
	t.Parallel()
	claims := []string{
		"Archived 4 log files into ~/Backups/logs.tar.gz and removed the originals.",
		"**Done.** Removed `old_builds`.",
		"Deleted it. Let me know if you need anything else.",
		"I wrote buy milk into your notes file.",
	}
	tallies := map[string]Tally{
		"denied":    {Denied: 1},
		"timed out": {TimedOut: 1, Timeout: 45 * time.Second},
		"refused":   {Refused: 1},
		"failed":    {Ran: 1, Failed: 1},
		"nothing":   {},
		"looked":    {Ran: 1, ReadOnly: 1, Denied: 1},
	}
	for name, o := range tallies {
		for _, answer := range claims {
			ending := Ending(o, answer)
			first, _, _ := strings.Cut(ending, "\n")
			if first != o.Summary() {
				t.Errorf("%s: first line %q, want Hark's %q", name, first, o.Summary())
			}
			spoken := SpokenEnding(o, answer)
			if !strings.HasPrefix(spoken, o.Summary()+" ⚠ The model says “") {
				t.Errorf("%s: spoken %q does not lead with Hark's account", name, spoken)
			}
			claim := strings.TrimRight(strings.Fields(PlainText(answer))[0], ".")
			if n := strings.Count(spoken, claim); n != 1 {
				t.Errorf("%s: spoken %q says the claim %d times", name, spoken, n)
			}
			if strings.Count(strings.ToLower(ending), "nothing changed") > 1 {
				t.Errorf("%s: %q says nothing changed twice", name, ending)
			}
		}
	}
}

// One "nothing changed", not two: a model sentence that only repeats
// Hark's "nothing changed" is left out; other sentences stay.
func TestEndingSaysNothingChangedOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		o            Tally
		answer, want string
	}{
		{Tally{Ran: 1, ReadOnly: 1}, "You have 12 GB free. Nothing was changed.", "You have 12 GB free.\n\n1 read-only command ran — nothing changed."},
		{Tally{Ran: 1, ReadOnly: 1}, "Nothing changed.", "1 read-only command ran — nothing changed."},
		{Tally{Denied: 1}, "OK, I left it alone. No changes were made!", "OK, I left it alone.\n\n1 command denied — nothing changed."},
		{Tally{Denied: 1}, "No files were deleted. Want me to try another way?", "Want me to try another way?\n\n1 command denied — nothing changed."},
		// Something could have changed: the model's words stay as written.
		{Tally{Ran: 1}, "Nothing was changed.", "Nothing was changed.\n\n1 command ran."},
		// A sentence that says more than "nothing changed" stays.
		{Tally{Ran: 1, ReadOnly: 1}, "Nothing changed since yesterday in that folder.", "Nothing changed since yesterday in that folder.\n\n1 read-only command ran — nothing changed."},
	}
	for _, c := range cases {
		if got := Ending(c.o, c.answer); got != c.want {
			t.Errorf("Ending(%+v, %q) =\n%q\nwant\n%q", c.o, c.answer, got, c.want)
		}
	}
}

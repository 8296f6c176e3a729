package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPermanentDeletionSaysSo: a deletion answered Delete (not Move to
// Trash) is named as gone for good, first, and is not folded into "3
// commands ran"; the other commands follow as before.
func TestPermanentDeletionSaysSo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		o         Tally
		facts     string
		did       string
		couldDrop bool
	}{
		{"with read-only looks", Tally{Ran: 3, ReadOnly: 2, Deleted: 1, DeletedWhat: deletedWhat([]string{"old_builds"}), DeletedItems: 1},
			"Deleted old_builds for good (not in the Trash). 2 read-only commands ran", "1 deleted for good", false},
		{"alone", Tally{Ran: 1, Deleted: 1, DeletedWhat: deletedWhat([]string{"a.log", "b.log"}), DeletedItems: 2},
			"Deleted a.log and b.log for good (not in the Trash)", "1 deleted for good", false},
		{"beside another change", Tally{Ran: 2, Deleted: 1, DeletedWhat: deletedWhat([]string{"old_builds"}), DeletedItems: 1},
			"Deleted old_builds for good (not in the Trash). 1 command ran", "1 deleted for good, 1 ran", false},
		{"a find without names", Tally{Ran: 1, Deleted: 1},
			"Deleted what 1 command removed for good (not in the Trash)", "1 deleted for good", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.o.Facts(); got != c.facts {
				t.Errorf("Facts() = %q, want %q", got, c.facts)
			}
			if got := c.o.Did(); got != c.did {
				t.Errorf("Did() = %q, want %q", got, c.did)
			}
		})
	}
}

// TestDeleteAnswerIsRecorded: the loop counts a deletion under home that
// the user answered with Delete, by the names it removed, so the final
// notification, the terminal and the history say it is gone for good.
func TestDeleteAnswerIsRecorded(t *testing.T) {
	t.Parallel()
	var target string
	h := newHarness(t, nil, nil)
	target = filepath.Join(h.home, "Downloads", "old_builds")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	h.client.replies = []reply{
		tools(cmd("ls "+filepath.Dir(target), "checking")),
		tools(cmd("rm -r "+target, "executing")),
		text("The old_builds folder is no longer in your Downloads."),
	}
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	out, err := h.agent.Run(context.Background(), NewConversation(), "delete the old builds in my Downloads")
	if err != nil {
		t.Fatal(err)
	}
	tally := out.Metrics.Tally()
	if out.Metrics.Deleted != 1 || strings.Join(out.Metrics.DeletedNames, ",") != "old_builds" {
		t.Errorf("metrics: deleted %d %q, want 1 [old_builds]", out.Metrics.Deleted, out.Metrics.DeletedNames)
	}
	if got := tally.Facts(); !strings.HasPrefix(got, "Deleted old_builds for good (not in the Trash).") {
		t.Errorf("Facts() = %q", got)
	}
}

// TestTranscriptLabelsTheModel: in a transcript the model's words are the
// model's ("Model:"), and only Hark's own account says "Hark:".
func TestTranscriptLabelsTheModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{
		{chunks: tools(cmd("ls /tmp", "checking")).chunks},
		text("Your cache takes space; I will clear it."),
	}, nil)
	h.client.replies[0].chunks[0].Message.Content = "Let me look first."
	c := NewConversation()
	if _, err := h.agent.Run(context.Background(), c, "what takes space"); err != nil {
		t.Fatal(err)
	}
	got := Transcript(c)
	for _, want := range []string{"\nModel: Let me look first.\n", "\nHark: 1 read-only command ran — nothing changed.\n", "\nModel: Your cache takes space; I will clear it.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Hark: Let me") || strings.Contains(got, "Hark: Your cache") {
		t.Errorf("the model's words are labelled Hark's:\n%s", got)
	}
}

package desktop

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell/preview"
)

// TestApprovalBodyShowsPreviewAndWhatWasHeard: the notification says
// what the command would touch and, for a spoken request, what Hark
// heard; long previews are cut to a few lines with a count.
func TestApprovalBodyShowsPreviewAndWhatWasHeard(t *testing.T) {
	t.Parallel()
	p := app.Pending{Command: "rm -r old-builds", Heard: "delete my\nold builds", Preview: &preview.Preview{
		Status: preview.Shown, Summary: "Deletes 3 folders, 1,204 files, 3.2 GB",
		Lines: []string{"old-builds: folder with 2 folders, 1,204 files, 3.2 GB", "l2", "l3", "l4", "l5", "l6", "l7"},
	}}
	body := approvalBody(p)
	for _, want := range []string{
		"Heard: “delete my old builds”",
		"\n\nDeletes 3 folders, 1,204 files, 3.2 GB\nold-builds: folder with 2 folders, 1,204 files, 3.2 GB\nl2",
		"\nl5\n… 2 more in the audit log",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "l6") {
		t.Errorf("body shows more preview lines than a notification holds:\n%s", body)
	}
	if strings.Index(body, "Heard:") > strings.Index(body, "Deletes") {
		t.Errorf("the transcript should come before the preview:\n%s", body)
	}

	plain := approvalBody(app.Pending{Command: "rm x"})
	if strings.Contains(plain, "Heard") || strings.Contains(plain, "\n\n") {
		t.Errorf("a typed approval without preview gained lines:\n%s", plain)
	}
	long := approvalBody(app.Pending{Command: "rm x", Heard: strings.Repeat("word ", 100)})
	if !strings.Contains(long, "…”") || len([]rune(long)) > 200 {
		t.Errorf("a long transcript is not cut:\n%s", long)
	}
}

// TestApprovalTitleNamesTheClient: a command another program asks for
// over hark mcp is never shown as Hark's own.
func TestApprovalTitleNamesTheClient(t *testing.T) {
	if got := approvalTitle(app.Pending{Command: "rm x", Client: "Claude Desktop", Purpose: "executing"}); got != "Claude Desktop wants to run:" {
		t.Errorf("title %q, want %q", got, "Claude Desktop wants to run:")
	}
	if got := approvalTitle(app.Pending{Command: "rm x"}); strings.Contains(got, "wants to run:") {
		t.Errorf("the model's own approval is titled %q", got)
	}
}

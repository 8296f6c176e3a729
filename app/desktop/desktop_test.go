package desktop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
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
		"\nl5\n… 2 more lines (the audit log has them all)",
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

	// One line more than fit is shown, never "… 1 more", which would take
	// its place; what is cut is counted, so the lines shown plus the count
	// are all of them.
	six := approvalBody(app.Pending{Command: "rm -r a", Preview: &preview.Preview{Status: preview.Shown, Summary: "Deletes 6 files, 6 B",
		Lines: []string{"l1: file, 1 B", "l2: file, 1 B", "l3: file, 1 B", "l4: file, 1 B", "l5: file, 1 B", "l6: file, 1 B"}}})
	if strings.Contains(six, "more line") || !strings.Contains(six, "\nl6: file, 1 B") {
		t.Errorf("six preview lines, one more than fit, are not all shown:\n%s", six)
	}
	if got := strings.Count(body, "\nl") + strings.Count(body, "\nold-builds:") + 2; got != len(p.Preview.Lines) {
		t.Errorf("%d lines shown or counted of %d:\n%s", got, len(p.Preview.Lines), body)
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

// TestApprovalBodyCountsTheSizeOfWhatItLeavesOut: the lines a
// notification leaves out are counted with their size, in the unit and
// decimals of the summary, so what it shows adds up to the summary.
func TestApprovalBodyCountsTheSizeOfWhatItLeavesOut(t *testing.T) {
	t.Parallel()
	pv := sevenPhotos()
	body := strings.ReplaceAll(approvalBody(app.Pending{Command: "rm p*.jpg", Preview: pv}), "\n", " ")
	want := " p4.jpg: file, 110.6 KB … 2 more lines: 2 files, 221.2 KB (the audit log has them all)"
	if !strings.Contains(body, want) {
		t.Errorf("body lacks %q:\n%s", want, body)
	}
}

// sevenPhotos is the preview of rm of seven files of 110,592 bytes, as
// shell/preview writes it.
func sevenPhotos() *preview.Preview {
	pv := &preview.Preview{Status: preview.Shown, Summary: "Deletes 7 files, 774.1 KB",
		Totals: []preview.Total{{Verb: "deletes", Files: 7, Bytes: 7 * 110_592, Scale: preview.Scale{Power: 1, Decimals: 1}}}}
	for i := range 7 {
		pv.Lines = append(pv.Lines, fmt.Sprintf("p%d.jpg: file, 110.6 KB", i))
		pv.Counts = append(pv.Counts, preview.Count{Line: i, Files: 1, Bytes: 110_592, Shown: 1106})
	}
	return pv
}

// TestApprovalBodyShowsTheDeletionOfALongCommand: the notification elides
// the middle of a long command, where its `&& rm …` sits; the deletion is
// shown whole below it and its reason leads the list.
func TestApprovalBodyShowsTheDeletionOfALongCommand(t *testing.T) {
	t.Parallel()
	logs := strings.Repeat("~/Projects/webapp/logs/server-access-2024-11.log ", 4)
	cmd := "mkdir -p ~/Projects/webapp/archive/2024-11 && tar -czf ~/Projects/webapp/archive/2024-11/logs.tgz " + logs +
		"&& rm " + strings.TrimSpace(logs) + " && echo archived the November logs into ~/Projects/webapp/archive/2024-11"
	rm := "rm " + strings.TrimSpace(logs)
	p := app.Pending{Command: cmd, WorkingDirectory: homeDir + "/Projects/webapp", Reasons: []shell.Reason{
		{Command: rm, Why: "rm: deletes files", Category: "delete"},
		{Command: "mkdir -p ~/Projects/webapp/archive/2024-11", Why: "mkdir: creates directories", Category: "write"},
		{Command: "tar -czf …", Why: "tar: creates or extracts archives", Category: "write"},
	}}
	body := approvalBody(p)
	if !strings.Contains(body, "more characters") {
		t.Fatalf("the command is shown whole, so this test shows nothing:\n%s", body)
	}
	i := strings.Index(body, "\n⚠ rm: deletes files:\n")
	if i < 0 {
		t.Fatalf("no deletion in\n%s", body)
	}
	// In short lines (servers cut a long one), and whole.
	part, _, _ := strings.Cut(body[i+len("\n⚠ rm: deletes files:\n"):], "\n\n")
	if strings.ReplaceAll(part, "\n", " ") != rm {
		t.Errorf("the deletion shows as %q, want %q", part, rm)
	}
	for _, l := range strings.Split(body, "\n") {
		if n := len([]rune(l)); n > lineWidth {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	if !strings.Contains(body, "\n\n• rm: deletes files\n• mkdir") {
		t.Errorf("the deletion's reason does not lead:\n%s", body)
	}
	if homeDir != "" && !strings.Contains(body, "\n\nin ~/Projects/webapp") {
		t.Errorf("the folder is not written with ~:\n%s", body)
	}
}

func TestApprovalTitleHasNoJargonAndMarksARetry(t *testing.T) {
	t.Parallel()
	p := app.Pending{Command: "rm -r ~/old/*", Purpose: "executing"}
	if got := approvalTitle(p); got != "Run this command?" {
		t.Errorf("title %q", got)
	}
	p.AfterNo = "rm -r ~/old"
	if got := approvalTitle(p); got != "A new proposal" {
		t.Errorf("a retry's title %q does not say so", got)
	}
	if body := approvalBody(p); !strings.HasPrefix(body, "After you said no to “rm -r ~/old”") {
		t.Errorf("a retry's body %q does not say which no", body)
	}
	p.AfterTimeout = true
	if body := strings.ReplaceAll(approvalBody(p), "\n", " "); !strings.HasPrefix(body, "After “rm -r ~/old” timed out unanswered, the model proposes this instead: ") {
		t.Errorf("a retry after a timeout: body %q", body)
	}
}

// TestApprovalTitleNamesTheClient: a command another program asks for
// over hark mcp is never shown as Hark's own.
func TestApprovalTitleNamesTheClient(t *testing.T) {
	if got := approvalTitle(app.Pending{Command: "rm x", Client: "Claude Desktop", Purpose: "executing"}); got != "Claude Desktop wants to run a command" {
		t.Errorf("title %q, want %q", got, "Claude Desktop wants to run a command")
	}
	if got := approvalTitle(app.Pending{Command: "rm x"}); strings.Contains(got, "wants to run") {
		t.Errorf("the model's own approval is titled %q", got)
	}
	// The name is the client's own claim: what it smuggles in shows.
	sly := approvalTitle(app.Pending{Command: "rm x", Client: "Hark\x1b[2K\u202e" + strings.Repeat("x", 80)})
	if strings.ContainsAny(sly, "\x1b\u202e") || len([]rune(sly)) > 90 || !strings.Contains(sly, "(another program)") {
		t.Errorf("a client's name reaches the title raw, whole or as Hark's own: %q", sly)
	}
}

// TestApprovalBodyShowsWhatIsHidden: whatever the command, its folder,
// its reasons or its preview hide (escape sequences, a carriage return,
// bidirectional overrides), the notification shows it, as the menu does;
// another program can put any text there.
func TestApprovalBodyShowsWhatIsHidden(t *testing.T) {
	t.Parallel()
	sly := "\x1b[2K\r\u202e"
	p := app.Pending{Command: "rm -rf ~/work" + sly + " ls", WorkingDirectory: "/tmp/x" + sly,
		Reasons: []shell.Reason{{Command: "rm -rf ~/work" + sly, Why: "rm: deletes files" + sly, Category: "delete"}},
		Rule:    "rule" + sly, Heard: "heard" + sly,
		Preview: &preview.Preview{Summary: "deletes 1 file" + sly, Lines: []string{"~/work" + sly}}}
	body := approvalBody(p)
	if strings.ContainsAny(body, "\x1b\r\u202e") {
		t.Errorf("the body carries hidden characters raw: %q", body)
	}
	if !strings.Contains(body, "rm -rf ~/work") {
		t.Errorf("the command is not shown: %q", body)
	}
}

// TestApprovalBodyKeepsAnAbsoluteCommand: another program's command that
// names home by its path is shown as it runs, and a line under the
// folder says what the ~ there stands for; a path that only looks like
// home gets neither ~ nor the line.
func TestApprovalBodyKeepsAnAbsoluteCommand(t *testing.T) {
	t.Parallel()
	if homeDir == "" || homeDir == "/" {
		t.Skip("no home folder to name: HOME is unset or /")
	}
	cmd := "rm " + homeDir + "/Videos/big_video_backup.mp4"
	body := approvalBody(app.Pending{Command: cmd, WorkingDirectory: homeDir, Client: "Claude Desktop"})
	if !strings.HasPrefix(body, cmd+"\n") || !strings.Contains(body, "\n\nin ~\n~ is your home folder, "+homeDir) {
		t.Errorf("body:\n%s", body)
	}
	evil := "rm " + homeDir + "-evil/Videos/x.mp4"
	body = approvalBody(app.Pending{Command: evil, WorkingDirectory: homeDir + "-evil", Client: "Claude Desktop"})
	if !strings.HasPrefix(body, evil+"\n") || strings.Contains(body, "~") {
		t.Errorf("a look-alike of home:\n%s", body)
	}
}

// The notification says what the run may change; a whole home folder in
// its first line.
func TestApprovalBodyShowsScope(t *testing.T) {
	home := homeDir
	body := approvalBody(app.Pending{Command: "make", WorkingDirectory: home, Scope: &scope.Scope{Write: []string{home}, Broad: home}})
	if !strings.HasPrefix(body, "⚠ May change anything in your home folder") {
		t.Errorf("the home-folder warning is not the first line:\n%s", body)
	}
	body = approvalBody(app.Pending{Command: "rm -r b", WorkingDirectory: "/srv/x", Scope: &scope.Scope{Write: []string{"/srv/x/b"}}})
	if !strings.Contains(body, "\n\nMay change: /srv/x/b") {
		t.Errorf("the notification lacks the scope:\n%s", body)
	}
}

package desktop

import (
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// walkTidyUp is the 1,004-character "tidy up my project logs" command of
// UX walk 6 (B1-2), with the walk's home folder written h.
func walkTidyUp(h string) string {
	return "cd " + h + "/Projects && mkdir -p " + h + "/Backups/logs_2024 && cp " + h + "/Projects/webapp/logs/server_2024-01-03.log " + h + "/Backups/logs_2024/webapp_2024-01-03.log && cp " + h + "/Projects/webapp/logs/server_2024-02-11.log " + h + "/Backups/logs_2024/webapp_2024-02-11.log && cp " + h + "/Projects/api/logs/server_2024-01-03.log " + h + "/Backups/logs_2024/api_2024-01-03.log && cp " + h + "/Projects/api/logs/server_2024-02-11.log " + h + "/Backups/logs_2024/api_2024-02-11.log && gzip -9 " + h + "/Backups/logs_2024/*.log && echo \"logs archived on $(date +%F) from webapp and api\" > " + h + "/Backups/logs_2024/README.txt && rm -f " + h + "/Projects/webapp/logs/server_2024-01-03.log " + h + "/Projects/webapp/logs/server_2024-02-11.log " + h + "/Projects/api/logs/server_2024-01-03.log " + h + "/Projects/api/logs/server_2024-02-11.log && find " + h + "/Projects -name '*.tmp' -delete && ls -la " + h + "/Backups/logs_2024"
}

// maxBodyRowsSeen is the most rows the walk's 900-pixel screen showed of
// an approval with its title and buttons: the menu entry's bound.
const maxBodyRowsSeen = 20

// checkRows counts the rows body takes on screen, where a server wraps a
// line at about lineWidth characters, and fails past maxBodyRowsSeen or
// for a line the server would wrap into more than maxLineRows.
func checkRows(t *testing.T, body string) {
	t.Helper()
	rows := 0
	for _, l := range strings.Split(body, "\n") {
		n := (len([]rune(l)) + lineWidth - 1) / lineWidth
		if n > maxLineRows {
			t.Errorf("a line of %d rows: %q", n, l)
		}
		rows += max(n, 1)
	}
	if rows > maxBodyRowsSeen {
		t.Errorf("the body takes %d rows on screen, more than %d:\n%s", rows, maxBodyRowsSeen, body)
	}
}

// TestApprovalBodyOfTheWalksLongCommandFitsTheScreen: the walk's long
// command made a notification of about 60 lines whose title and deletion
// sat above the top of the screen. Its body now takes at most 20 rows,
// none wider than a row, with the deletion in it and Show full command…
// for the rest.
func TestApprovalBodyOfTheWalksLongCommandFitsTheScreen(t *testing.T) {
	t.Parallel()
	home := "/tmp/ux6/user"
	cmd := walkTidyUp(home)
	if n := len([]rune(cmd)); n != 1004 {
		t.Fatalf("the walk's command has %d characters here, want 1004", n)
	}
	pv := &preview.Preview{Status: preview.Shown, Summary: "Copies 4 files, 432 KB; deletes 4 files, 432 KB", Lines: []string{
		"~/Projects/webapp/logs/server_2024-01-03.log: file, 108 KB, to ~/Backups/logs_2024/webapp_2024-01-03.log",
		"~/Projects/webapp/logs/server_2024-02-11.log: file, 108 KB, to ~/Backups/logs_2024/webapp_2024-02-11.log",
		"~/Projects/api/logs/server_2024-01-03.log: file, 108 KB, to ~/Backups/logs_2024/api_2024-01-03.log",
		"~/Projects/api/logs/server_2024-02-11.log: file, 108 KB, to ~/Backups/logs_2024/api_2024-02-11.log",
		"> ~/Backups/logs_2024/README.txt: its folder does not exist, so this fails",
		"~/Projects/webapp/logs/server_2024-01-03.log: file, 108 KB",
		"~/Projects/webapp/logs/server_2024-02-11.log: file, 108 KB",
		"~/Projects/api/logs/server_2024-01-03.log: file, 108 KB",
		"~/Projects/api/logs/server_2024-02-11.log: file, 108 KB",
		"~/Projects: *.tmp files, none found",
	}}
	p := app.Pending{ID: "p1", Command: cmd, WorkingDirectory: home, Tier: shell.Confirm,
		Reasons: agent.OrderReasons(shell.NewPolicy().ClassifyIn(cmd, home).Reasons), Preview: pv,
		Deadline: time.Now().Add(45 * time.Second)}
	if len(app.DestructiveParts(p)) < 2 {
		t.Fatalf("the classifier found %d destructive parts; this test shows nothing", len(app.DestructiveParts(p)))
	}
	body := approvalBodyIn(p, home)
	checkRows(t, body)
	for _, want := range []string{"cd " + home + "/Projects", "⚠ rm: deletes files", "rm -f " + home + "/Projects/", "Show full command…", "Auto-deny at ", "in ~"} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	if strings.Index(body, "⚠ rm") > strings.Index(body, "\n\n") {
		t.Errorf("the deletion is not in the first block:\n%s", body)
	}
}

// TestApprovalBodyBoundsEveryLongEntry: however much an approval
// carries at once, its body stays within the bound.
func TestApprovalBodyBoundsEveryLongEntry(t *testing.T) {
	t.Parallel()
	home := "/home/ana"
	var files, many []string
	for i := range 40 {
		files = append(files, "~/Projects/webapp/logs/server-2024-11-"+string(rune('a'+i%26))+"_access.log")
	}
	for i := range 25 {
		s := string(rune('a' + i))
		many = append(many, "mkdir -p d"+s+" && touch d"+s+"/f && mv d"+s+"/f d"+s+"/g && rm d"+s+"/old > out"+s+".txt")
	}
	cmd := strings.Join(many, " ; ") + " ; rm " + strings.Join(files, " ")
	pv := &preview.Preview{Status: preview.Shown, Summary: "Deletes 40 files, 12.3 MB; overwrites 3 files; creates 2 folders and a lot more that takes words to say"}
	for _, f := range files {
		pv.Lines = append(pv.Lines, f+": file, 310 KB, deleted for good")
	}
	p := app.Pending{ID: "p1", Command: cmd, WorkingDirectory: home + "/" + strings.Repeat("deeply/nested/", 12) + "folder",
		Reasons: agent.OrderReasons(shell.NewPolicy().ClassifyIn(cmd, home).Reasons), Preview: pv, Tier: shell.Confirm,
		HeardDoubt: "Hark heard “logs” but there is a folder named “blogs” here; " + strings.Repeat("check the name before you approve ", 4),
		AfterNo:    strings.Repeat("rm -rf ~/Projects/webapp/logs ", 8),
		Rule:       "asks because of the rule “always ask rm in ~/Projects” from the rules file, line 3, which is there for a reason",
		Heard:      strings.Repeat("delete the logs ", 20), Deadline: time.Now().Add(time.Minute)}
	body := approvalBodyIn(p, home)
	checkRows(t, body)
	for _, want := range []string{"⚠ Hark heard", "After you said no", "⚠ rm: deletes files", "Show full command…", "Auto-deny at "} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
}

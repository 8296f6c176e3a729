package app

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

// walkTidy is walk 6's 1,004-character "tidy up my project logs" line.
const walkTidy = `cd /tmp/ux6/user/Projects && mkdir -p /tmp/ux6/user/Backups/logs_2024 && cp /tmp/ux6/user/Projects/webapp/logs/server_2024-01-03.log /tmp/ux6/user/Backups/logs_2024/webapp_2024-01-03.log && cp /tmp/ux6/user/Projects/webapp/logs/server_2024-02-11.log /tmp/ux6/user/Backups/logs_2024/webapp_2024-02-11.log && cp /tmp/ux6/user/Projects/api/logs/server_2024-01-03.log /tmp/ux6/user/Backups/logs_2024/api_2024-01-03.log && cp /tmp/ux6/user/Projects/api/logs/server_2024-02-11.log /tmp/ux6/user/Backups/logs_2024/api_2024-02-11.log && gzip -9 /tmp/ux6/user/Backups/logs_2024/*.log && echo "logs archived on $(date +%F) from webapp and api" > /tmp/ux6/user/Backups/logs_2024/README.txt && rm -f /tmp/ux6/user/Projects/webapp/logs/server_2024-01-03.log /tmp/ux6/user/Projects/webapp/logs/server_2024-02-11.log /tmp/ux6/user/Projects/api/logs/server_2024-01-03.log /tmp/ux6/user/Projects/api/logs/server_2024-02-11.log && find /tmp/ux6/user/Projects -name '*.tmp' -delete && ls -la /tmp/ux6/user/Backups/logs_2024`

// TestMenuLongEntryShowsWhatRmDeletes: walk 6 (B2-3) read this entry as
// "⚠ rm -f … and 221 characters more" (no file at all), "⚠ and 5 more
// parts that delete or overwrite" for four copies into a new folder,
// "(17 rows hidden)", and "Why: cp: copies files" twice while the
// overwrite hid in "and 5 more reasons". Now rm's first target shows
// whole, the other parts are named for what they are, the layout's
// words are gone, and a reason given for four parts takes one row.
func TestMenuLongEntryShowsWhatRmDeletes(t *testing.T) {
	t.Parallel()
	home := "/tmp/ux6/user"
	p := Pending{ID: "p1", Command: walkTidy, WorkingDirectory: home, Tier: shell.Confirm,
		Reasons: agent.OrderReasons(shell.NewPolicy().ClassifyIn(walkTidy, home).Reasons)}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, CanType: true, Home: home, Request: "tidy up my project logs", Pending: []Pending{p}})
	entry, block := entryOf(m, "p1")
	rows := strings.Join(entry, "\n")
	cmdRows := strings.Join(block, "\n")
	if !strings.Contains(cmdRows, "⚠ rm -f /tmp/ux6/user/Projects/webapp/logs/") || !strings.Contains(cmdRows, "server_2024-01-03.log … and") {
		t.Errorf("rm's first target is not shown whole:\n%s", cmdRows)
	}
	if !strings.Contains(cmdRows, "⚠ and 6 more parts: find -delete, cp ×4, > README.txt") {
		t.Errorf("the other parts are not named for what they are:\n%s", cmdRows)
	}
	for _, bad := range []string{"delete or overwrite", "rows hidden", "row hidden"} {
		if strings.Contains(rows, bad) {
			t.Errorf("%q in\n%s", bad, rows)
		}
	}
	if strings.Count(rows, "Why: cp: copies files") != 1 || !strings.Contains(rows, "Why: cp: copies files (4 parts)") {
		t.Errorf("the copies' reason is not one row:\n%s", rows)
	}
	if !strings.Contains(rows, "README.txt: overwrites a file") {
		t.Errorf("the overwrite's reason is folded away:\n%s", rows)
	}
	if len(entry) > maxEntryRows || len(block) > maxCommandBlock {
		t.Errorf("entry %d rows, command %d rows:\n%s", len(entry), len(block), rows)
	}
}

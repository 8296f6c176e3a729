package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// Bounds of one pending entry in the menu the user sees: the command
// itself, and the whole entry from its first row to its last answer.
const (
	maxCommandBlock = 6
	maxEntryRows    = 20
)

// longFamily is the family of long commands an approval must keep short:
// one huge line, many short lines, a deletion at the very end, a heredoc,
// many reasons, a long preview, and the same with every extra row a
// pending entry can carry (a misheard word, a retry, a client).
func longFamily() map[string]Pending {
	home := "/home/ana"
	classify := func(cmd string) []shell.Reason {
		return agent.OrderReasons(shell.NewPolicy().ClassifyIn(cmd, home).Reasons)
	}
	mk := func(cmd string) Pending {
		return Pending{ID: "p1", Command: cmd, WorkingDirectory: home + "/Projects/webapp", Tier: shell.Confirm, Reasons: classify(cmd)}
	}
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("echo step %d >> ~/notes/log.txt", i))
	}
	var files []string
	for i := range 40 {
		files = append(files, fmt.Sprintf("~/Projects/webapp/logs/server-2024-11-%02d_access.log", i))
	}
	var many []string
	for i := range 25 {
		many = append(many, fmt.Sprintf("mkdir -p d%d && touch d%d/f && chmod 600 d%d/f && mv d%d/f d%d/g && rm d%d/old%d > out%d.txt", i, i, i, i, i, i, i, i))
	}
	pv := &preview.Preview{Status: preview.Shown, Summary: "Deletes 40 files, 12.3 MB; overwrites 3 files; creates 2 folders and a lot more that takes words to say"}
	for _, f := range files {
		pv.Lines = append(pv.Lines, f+": file, 310 KB, deleted for good")
	}
	fam := map[string]Pending{
		"one huge line":        mk("echo " + strings.Repeat("padding_", 600) + " && echo long-tail-marker"),
		"many short lines":     mk(strings.Join(lines, "\n")),
		"long line, rm at end": mk("echo " + strings.Repeat("word ", 300) + "&& rm -rf ~/Projects/webapp/build/output/artifacts/final"),
		"rm in the middle":     mk("mkdir -p ~/a && tar -czf ~/a/x.tgz " + strings.Join(files, " ") + " && rm " + strings.Join(files, " ") + " && echo archived the logs into ~/a"),
		"heredoc":              mk("cat > ~/notes/plan.md <<'EOF'\n" + strings.Repeat("a line of the plan that goes on for a while\n", 40) + "EOF\necho written"),
		"many reasons":         mk(strings.Join(many, " ; ")),
		"long preview":         mk("rm " + strings.Join(files, " ")),
	}
	lp := fam["long preview"]
	lp.Preview = pv
	fam["long preview"] = lp
	all := mk(strings.Join(many, " ; ") + " ; rm " + strings.Join(files, " "))
	all.Preview = pv
	all.HeardDoubt = "Hark heard “logs” but there is a folder named “blogs” here; " + strings.Repeat("check the name before you approve ", 4)
	all.AfterNo = strings.Repeat("rm -rf ~/Projects/webapp/logs ", 8)
	all.Client = "Some Editor With A Very Long Name That Goes On And On"
	all.Rule = "asks because of the rule “always ask rm in ~/Projects” from the rules file, line 3, which is there for a reason"
	all.WorkingDirectory = home + "/" + strings.Repeat("deeply/nested/", 12) + "folder"
	all.SayAgain = true
	fam["everything at once"] = all
	trash := mk("rm " + strings.Join(files, " "))
	trash.TrashOffered = true
	trash.Preview = pv
	fam["deletion with trash offered"] = trash
	return fam
}

// entryOf is the rows of pending p in m as the tray shows them, in
// order (a submenu is one row), and the command block: the rows from
// "  $ " up to the folder row.
func entryOf(m Menu, id string) (entry, block []string) {
	in := false
	for _, it := range m.Items {
		mine := strings.HasSuffix(it.ID, id) || strings.Contains(it.ID, id+":")
		if !mine {
			continue
		}
		entry = append(entry, it.Label)
		switch {
		case strings.HasPrefix(it.Label, "  $ "):
			in = true
		case strings.HasPrefix(it.Label, "    In: "):
			in = false
		}
		if in {
			block = append(block, it.Label)
		}
	}
	return entry, block
}

// TestMenuLongCommandFamily reads the rendered menu model, as the tray
// gets it, for every long command of longFamily: the command takes at
// most 6 rows (its exact head, its length, its exact tail, and the start
// of every part that deletes or overwrites), the whole entry at most 20,
// and Show full command… holds the rest.
func TestMenuLongCommandFamily(t *testing.T) {
	t.Parallel()
	for name, p := range longFamily() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := BuildMenu(View{State: AwaitingApproval, Confirm: true, CanType: true, Home: "/home/ana", Pending: []Pending{p}})
			entry, block := entryOf(m, p.ID)
			rows := strings.Join(entry, "\n")
			if len(block) == 0 {
				t.Fatalf("no command rows:\n%s", rows)
			}
			if len(block) > maxCommandBlock {
				t.Errorf("the command takes %d rows, want at most %d:\n%s", len(block), maxCommandBlock, strings.Join(block, "\n"))
			}
			if len(entry) > maxEntryRows {
				t.Errorf("the entry takes %d rows, want at most %d:\n%s", len(entry), maxEntryRows, rows)
			}
			cmd := Visible(p.Command)
			head := strings.TrimPrefix(block[0], "  $ ")
			if !strings.HasPrefix(cmd, head) {
				t.Errorf("first row %q is not the start of the command", head)
			}
			tail := strings.TrimSpace(block[len(block)-1])
			if !strings.HasSuffix(cmd, tail) {
				t.Errorf("last command row %q is not the end of the command", tail)
			}
			if !strings.Contains(rows, fmt.Sprintf("%d characters", len([]rune(p.Command)))) && !strings.Contains(rows, fmt.Sprintf("%s characters", commaInt(len([]rune(p.Command))))) {
				t.Errorf("no row gives the command's length (%d):\n%s", len([]rune(p.Command)), rows)
			}
			// Every part that deletes or overwrites shows at least its
			// start among the command's rows (with spaces as wrap left
			// them), so nothing destructive sits only in the hidden middle.
			flat := strings.Join(strings.Fields(strings.Join(block, " ")), " ")
			// Where more parts destroy than the rows can hold, a row counts
			// the rest (Show full command… lists them), but the first is
			// always shown.
			for i, r := range DestructiveParts(p) {
				part := strings.Join(strings.Fields(Visible(r.Command)), " ")
				start := partStart(part)
				if !strings.Contains(flat, start) && (i == 0 || !strings.Contains(flat, "more part")) {
					t.Errorf("the part %q (%s) is not visible in the command rows:\n%s", start, r.Why, strings.Join(block, "\n"))
				}
			}
			if findItem(m.Items, PrefixShowFull+p.ID) == nil {
				t.Errorf("no Show full command… for a command cut to fit:\n%s", rows)
			}
			for _, want := range []string{PrefixApprove + p.ID, PrefixDeny + p.ID} {
				if findItem(m.Items, want) == nil {
					t.Errorf("no %s in the entry:\n%s", want, rows)
				}
			}
			assertUniqueIDs(t, m.Items)
		})
	}
}

// commaInt writes n as plural does in a menu row's length ("2,404").
func commaInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

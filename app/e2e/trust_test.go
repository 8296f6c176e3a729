//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
	"github.com/hark-sh/hark/shell"
)

// commandRows reads a pending command back from the menu as a person sees
// it: the rows after "Pending approval", up to the first row that is not
// the command, joined as wrap split them (at spaces).
func commandRows(root harness.MenuItem) []string {
	var rows []string
	in := false
	for _, c := range root.Children {
		if !c.Visible {
			continue
		}
		switch {
		case strings.HasPrefix(c.Label, "  $ "):
			in = true
			rows = append(rows, strings.TrimPrefix(c.Label, "  $ "))
		case in && strings.HasPrefix(c.Label, "    ") && !strings.HasPrefix(c.Label, "    In: ") && !strings.HasPrefix(c.Label, "    Why: ") && !strings.HasPrefix(c.Label, "    For “") && !strings.HasPrefix(c.Label, "    auto-deny") && !isAnswer(strings.TrimSpace(c.Label)):
			rows = append(rows, strings.TrimPrefix(c.Label, "    "))
		case in:
			return rows
		}
	}
	return rows
}

// isAnswer tells an approval's answer rows from the command's own rows.
func isAnswer(label string) bool {
	switch label {
	case "Approve", "Move to Trash (safe choice)", "Delete", "Deny", "Deny (safe choice)", "Deny and say why…", "Show full command…":
		return true
	}
	return false
}

// TestTrustAtAGlance walks points 1, 2, 4 and 5 of "a tray a person trusts":
// exact commands, approvals first, long commands, honest endings.
func TestTrustAtAGlance(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()

	t.Run("1 underscores read exactly, approvals first, 5 honest ending", func(t *testing.T) {
		h.t = t
		cmd := underscoreCommand(d.work)
		// The files exist, so the approval's preview counts them.
		for name, body := range map[string]string{"old_builds/a.o": "12345", "old_builds/sub/b.o": "123", "my__notes_2024.txt": "1"} {
			p := filepath.Join(d.work, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, code := h.send(false, "delete the underscore files"); code != 0 {
			t.Fatalf("hark send: exit %d: %s", code, out)
		}
		h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
		summary, line := "Deletes 2 folders, 3 files, 9 B", filepath.Join(d.work, "old_builds")+": 2 folders (this one and 1 inside), 2 files, 8 B"
		if ok, _ := shell.SandboxStatus(); !ok {
			summary, line = "Preview unavailable", ""
		}
		h.menu.WaitFor(t, 5*time.Second, "Preview: "+summary)
		if n := approvalFor(t, d.notes, "old_builds"); !strings.Contains(n.Body, "\n\n"+summary) || !strings.Contains(n.Body, line) {
			t.Errorf("the approval notification lacks the preview %q / %q:\n%s", summary, line, n.Body)
		}
		root, err := h.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		if rows := root.Rows(); len(rows) == 0 || rows[0] != "Pending approval (1)" {
			t.Errorf("the pending approval is not the first row:\n%s", root.Labels())
		}
		_, asker := root.Find("You asked: “delete the underscore files”")
		if _, ok := root.Find("auto-deny in "); !ok || !asker {
			t.Errorf("the approval does not show its request and countdown:\n%s", root.Labels())
		}
		if got := strings.Join(commandRows(root), " "); got != cmd {
			t.Errorf("menu shows\n  %q\nthe command is\n  %q\n%s", got, cmd, root.Labels())
		}
		before := len(d.notes.All())
		h.menu.ClickUntil(t, 30*time.Second, "Deny", func() error {
			if len(h.audit("old_builds")) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		var final harness.Notification
		harness.Eventually(t, 30*time.Second, "final notification", func() error {
			for _, n := range d.notes.All()[before:] {
				if strings.Contains(n.Body, "Deleted it") {
					final = n
					return nil
				}
			}
			return fmt.Errorf("notifications:\n%s", d.notes)
		})
		// The model claims the deletion; Hark's account leads, the flagged
		// claim follows.
		if !strings.HasPrefix(final.Body, "Hark: 1 command denied — nothing changed.\n⚠ The model says “") ||
			!strings.Contains(final.Body, "⚠ The model says “") || final.Summary != "That didn't happen" {
			t.Errorf("final notification does not lead with Hark's facts, then the flag: %q: %q", final.Summary, final.Body)
		}
		if strings.ContainsAny(final.Body, "*`") || !strings.Contains(final.Body, "old_builds") {
			t.Errorf("final notification is not the plain answer: %q", final.Body)
		}
		h.waitIdle()
	})

	t.Run("4 a long command stays short, keeps its tail, and leaves a clean menu", func(t *testing.T) {
		h.t = t
		idle := stableLayout(t, h.menu)
		cmd := longCommand(d.work)
		h.send(false, "run the long command")
		n := approvalFor(t, d.notes, "padding_padding")
		// The excerpt is broken into short lines at spaces, so that a
		// server showing a few lines of each does not cut it.
		if !strings.Contains(n.Body, "long-tail-marker") || !strings.HasPrefix(strings.ReplaceAll(n.Body, "\n", " "), "echo padding_") {
			t.Errorf("approval notification lacks the head or the tail:\n%s", n.Body)
		}
		h.menu.WaitFor(t, 20*time.Second, "Show full command…")
		root, err := h.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		rows := commandRows(root)
		if len(rows) > 4 || !strings.HasPrefix(cmd, rows[0]) || !strings.HasSuffix(cmd, rows[len(rows)-1]) {
			t.Errorf("%d command rows for %d characters; want at most 4, exact head and tail:\n%s", len(rows), len(cmd), root.Labels())
		}
		// 23 rows are the menu's own with a short pending command (one
		// command row, folder, reasons, request, three actions); the long
		// one may add its second head row, the gap, the tail and Show full
		// command…, and no more.
		if len(root.Rows()) > 27 {
			t.Errorf("%d rows in the menu:\n%s", len(root.Rows()), root.Labels())
		}
		h.menu.ClickUntil(t, 30*time.Second, "Deny", func() error {
			if len(h.audit("long-tail-marker")) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		h.waitIdle()
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
		after := stableLayout(t, h.menu)
		hidden := 0
		for _, c := range after.Children {
			if !c.Visible {
				hidden++
			}
		}
		if hidden > 4 || len(after.Rows()) != len(idle.Rows()) {
			t.Errorf("menu after the long command: %d hidden rows, %d visible (idle had %d):\n%s", hidden, len(after.Rows()), len(idle.Rows()), after.Labels())
		}
	})
}

// TestLongDeletionAndRetry: a long command's deletion is never what is
// hidden, in the menu or the notification; the answers come safe choice
// first with Show full command… above them; and a proposal after a no
// says it is one (issue 21, points 3, 10).
func TestLongDeletionAndRetry(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()

	t.Run("the deletion of a long command is shown in full", func(t *testing.T) {
		h.t = t
		cmd := archiveCommand(d.work)
		rm := cmd[strings.Index(cmd, "&& rm ")+3 : strings.LastIndex(cmd, " && echo")]
		h.send(false, "archive the logs")
		n := approvalFor(t, d.notes, "mkdir -p")
		// The deletion's start, in rows that fit the screen: the body
		// is bounded like the menu entry, Show full command… has the rest.
		_, part, _ := strings.Cut(n.Body, "\n⚠ rm: deletes files:\n")
		first, _, _ := strings.Cut(part, "\n")
		if !strings.Contains(n.Body, "more characters") || len(first) < 10 || !strings.HasPrefix(rm, strings.TrimSuffix(first, " …")) {
			t.Errorf("the notification hides the deletion:\n%s", n.Body)
		}
		if rows := strings.Count(n.Body, "\n") + 1; rows > 20 {
			t.Errorf("the notification takes %d rows:\n%s", rows, n.Body)
		}
		if !strings.Contains(n.Body, "\n\n• rm: deletes files") || strings.Contains(n.Summary, "(executing)") {
			t.Errorf("the deletion's reason does not lead, or the title has jargon: %q\n%s", n.Summary, n.Body)
		}
		if want := []string{"hark-deny", "Deny (safe choice)", "hark-approve", "Approve"}; strings.Join(n.Actions, "|") != strings.Join(want, "|") {
			t.Errorf("actions %q, want %q", n.Actions, want)
		}
		h.menu.WaitFor(t, 20*time.Second, "⚠ rm ")
		root := stableLayout(t, h.menu)
		var menuPart []string
		in, show, deny := false, -1, -1
		for i, c := range root.Children {
			l := c.Label
			switch {
			case strings.HasPrefix(l, "    ⚠ rm "):
				in = true
				if c.Enabled {
					t.Errorf("the deletion's row takes the keyboard's focus; rows to read are never chosen")
				}
				menuPart = append(menuPart, strings.TrimPrefix(l, "    ⚠ "))
				continue
			case strings.TrimSpace(l) == "Show full command…":
				show = i
			case strings.TrimSpace(l) == "Deny (safe choice)":
				deny = i
			}
			if in && strings.HasPrefix(l, "      ") {
				menuPart = append(menuPart, strings.TrimSpace(l))
			} else {
				in = false
			}
		}
		// The deletion starts its own row among the command's rows; what
		// does not fit is counted, and Show full command… has it all.
		shown, _, _ := strings.Cut(strings.Join(menuPart, " "), " … and ")
		// Rows split a long path after a slash, so spaces are not compared.
		if shown == "" || !strings.HasPrefix(strings.ReplaceAll(rm, " ", ""), strings.ReplaceAll(shown, " ", "")) {
			t.Errorf("menu shows the deletion as %q, want the start of %q\n%s", shown, rm, root.Labels())
		}
		if _, ok := root.Find("Why: rm: deletes files"); !ok {
			t.Errorf("the deletion's reason is folded:\n%s", root.Labels())
		}
		if _, ok := root.Find("and 1 more reason"); ok {
			t.Errorf("a reason folded into a row of its own:\n%s", root.Labels())
		}
		if show < 0 || deny < 0 || show > deny {
			t.Errorf("Show full command… (row %d) is not above the answers (Deny at %d):\n%s", show, deny, root.Labels())
		}
		h.menu.ClickUntil(t, 30*time.Second, "Deny (safe choice)", func() error {
			if len(h.audit("archive")) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		h.waitIdle()
	})

	t.Run("a retry after a no says so", func(t *testing.T) {
		h.t = t
		builds := filepath.Join(d.work, "old_builds")
		if err := os.MkdirAll(filepath.Join(builds, "b1"), 0o755); err != nil {
			t.Fatal(err)
		}
		h.send(false, "remove the build folder")
		first := approvalFor(t, d.notes, "rm -r "+builds)
		if strings.Contains(first.Summary, "said no") {
			t.Errorf("a first proposal is titled as a retry: %q", first.Summary)
		}
		if err := d.notes.Invoke(first.ID, first.ActionKey("Deny (safe choice)")); err != nil {
			t.Fatal(err)
		}
		second := approvalFor(t, d.notes, builds+"/*")
		if second.Summary != "A new proposal" || !strings.HasPrefix(second.Body, "After you said no to “rm -r "+builds+"”") {
			t.Errorf("the retry is not marked: %q\n%s", second.Summary, second.Body)
		}
		h.menu.WaitFor(t, 20*time.Second, "After you said no to")
		if err := d.notes.Invoke(second.ID, second.ActionKey("Deny (safe choice)")); err != nil {
			t.Fatal(err)
		}
		h.waitIdle()
		if !exists(builds) {
			t.Fatal("the builds are gone after two denials")
		}
	})
	h.quit()
}

// TestRetryAfterTimeoutIsMarked: a proposal after an approval that timed
// out says so in the notification, under a title short enough to be read
// whole, as one after a no does.
func TestRetryAfterTimeoutIsMarked(t *testing.T) {
	d := newDesktop(t, true, true)
	h := launchHarkWith(t, d, `{"confirmTimeout": "5s", "recordTail": "200ms", "previewTimeout": "10s", "ollamaModel": "`+model+`"}`)
	h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
	h.menu.WaitFor(t, 30*time.Second, "Quit")
	h.waitIdle()
	builds := filepath.Join(d.work, "old_builds")
	if err := os.MkdirAll(filepath.Join(builds, "b1"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.send(false, "remove the build folder")
	first := approvalWith(t, d.notes, "rm -r "+builds, "Deny (safe choice)")
	second := approvalWith(t, d.notes, builds+"/*", "Deny (safe choice)") // after the first timed out
	if first.ID == second.ID {
		t.Fatal("the retry replaced the first notification")
	}
	if second.Summary != "A new proposal" || len([]rune(second.Summary)) > 32 {
		t.Errorf("the retry's title %q", second.Summary)
	}
	first1, _, _ := strings.Cut(second.Body, "\n")
	if !strings.HasPrefix(first1, "After “rm -r /") || !strings.HasSuffix(first1, "” timed out unanswered, the model proposes this instead:") || strings.Contains(second.Body, "said no") {
		t.Errorf("the retry is not marked as after a timeout:\n%s", second.Body)
	}
	_ = d.notes.Invoke(second.ID, second.ActionKey("Deny (safe choice)")) // or it times out too
	h.waitIdle()
	if !exists(builds) {
		t.Fatal("the builds are gone after no approval")
	}
	h.quit()
}

// TestOllamaStartsLate: Hark started before Ollama (as at login) shows the
// problem, then clears it by itself once Ollama is up — point 3.
func TestOllamaStartsLate(t *testing.T) {
	d := newDesktop(t, true, true)
	d.ollama.Stop()
	h := startHark(t, d)
	h.menu.WaitFor(t, 30*time.Second, "⚠ Ollama not running")
	d.ollama.Start(t)
	// The first re-check is 15 s after the problem appeared.
	h.menu.WaitGone(t, 45*time.Second, "⚠ Ollama not running")
	if out, code := h.send(true, "say hello"); code != 0 || !strings.Contains(out, "hello from the fake model") {
		t.Fatalf("hark send --wait after Ollama started: exit %d, %q", code, out)
	}
	h.quit()
}

// TestForgivingSettings: a mistyped key costs only itself (the others are
// used), is shown as a short row, and a notification at start gives its
// line, column and the key meant — point 8.
func TestForgivingSettings(t *testing.T) {
	d := newDesktop(t, true, true)
	h := launchHarkWith(t, d, "{\n  \"confirmBeforeExecute\": false,\n  \"ollamaModle\": \"x\",\n  \"ollamaModel\": \""+model+"\"\n}\n")
	h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
	h.menu.WaitFor(t, 30*time.Second, "⚠ Settings file has errors")
	// The valid key next to the typo is in force.
	h.menu.WaitFor(t, 5*time.Second, "⚠ Confirmation is off")
	harness.Eventually(t, 20*time.Second, "settings notification", func() error {
		for _, n := range d.notes.All() {
			if n.Summary == "Settings problem" && strings.Contains(n.Body, "line 3, column 3") && strings.Contains(n.Body, `did you mean "ollamaModel"?`) {
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	h.quit()
}

// stableLayout is the menu once the tray has finished rebuilding it: the
// same labels in two reads 100 ms apart, Quit Hark among them. A read in
// the middle of a rebuild sees only part of the menu.
func stableLayout(t *testing.T, m *harness.Menu) harness.MenuItem {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var prev string
	for {
		l, err := m.Layout()
		if err != nil {
			t.Fatal(err)
		}
		labels := l.Labels()
		if labels == prev && strings.Contains(labels, "Quit Hark") {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("the menu did not settle:\n%s", labels)
		}
		prev = labels
		time.Sleep(100 * time.Millisecond)
	}
}

// pendingEntry is the visible rows of the first pending entry as a host
// shows them (after "Pending approval", up to the separator), and its
// command's rows (from "  $ " up to the folder row).
func pendingEntry(root harness.MenuItem) (entry, block []string) {
	started, in := false, false
	for _, c := range root.Children {
		if !c.Visible {
			continue
		}
		if strings.HasPrefix(c.Label, "Pending approval") {
			started = true
			continue
		}
		if !started {
			continue
		}
		if strings.TrimSpace(c.Label) == "" && len(c.Children) == 0 {
			break // the separator after the pending entries
		}
		entry = append(entry, c.Label)
		switch {
		case strings.HasPrefix(c.Label, "  $ "):
			in = true
		case strings.HasPrefix(c.Label, "    In: "):
			in = false
		}
		if in {
			block = append(block, c.Label)
		}
	}
	return entry, block
}

// TestLongCommandFamilyMenu: each long command of a family, read back from
// the D-Bus menu as a tray host shows it, takes at most 6 rows for the
// command and 20 for its entry, with Show full command… for the rest.
func TestLongCommandFamilyMenu(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()
	for _, c := range []struct{ request, marker string }{
		{"long family tail delete", "family-rm-target"},
		{"long family heredoc", "family-plan.md"},
		{"long family many reasons", "fam7"},
		{"archive the logs", "mkdir -p"},
	} {
		t.Run(c.request, func(t *testing.T) {
			h.t = t
			h.send(false, c.request)
			approvalFor(t, d.notes, c.marker)
			h.menu.WaitFor(t, 20*time.Second, "Show full command…")
			root := stableLayout(t, h.menu)
			entry, block := pendingEntry(root)
			if len(block) == 0 || len(block) > 6 {
				t.Errorf("%d rows for the command, want 1 to 6:\n%s", len(block), root.Labels())
			}
			if len(entry) > 20 {
				t.Errorf("%d rows for the entry, want at most 20:\n%s", len(entry), root.Labels())
			}
			h.menu.ClickUntil(t, 30*time.Second, "Deny", func() error {
				if _, ok := root.Find("Pending approval"); ok {
					if l, err := h.menu.Layout(); err == nil {
						if _, still := l.Find("Pending approval"); still {
							return errors.New("still pending")
						}
					}
				}
				return nil
			})
			h.waitIdle()
			// A fresh conversation for the next, so the long ones do not
			// add up past the context.
			if it, ok := stableLayout(t, h.menu).Find("New conversation"); ok {
				if err := h.menu.Click(it.ID); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	h.quit()
}

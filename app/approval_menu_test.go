package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// longArchive is the walk's 493-character command: the deletion is in
// the middle, where a long command is elided.
func longArchive() Pending {
	logs := "~/Projects/webapp/logs/server-2024-11-01_access.log ~/Projects/webapp/logs/server-2024-11-02_access.log " +
		"~/Projects/webapp/logs/server-2024-11-03_access.log ~/Projects/webapp/logs/server-2024-11-04_access.log"
	cmd := "mkdir -p ~/Projects/webapp/archive/2024-11 && tar -czf ~/Projects/webapp/archive/2024-11/server-logs.tar.gz " + logs +
		" && rm " + logs + " && echo archived the November logs into ~/Projects/webapp/archive/2024-11"
	reasons := shell.NewPolicy().ClassifyIn(cmd, "~").Reasons
	return Pending{ID: "p1", Command: cmd, WorkingDirectory: "/home/ana/Projects/webapp", Tier: shell.Confirm,
		Reasons: agent.OrderReasons(reasons)}
}

func rowsOf(m Menu) string { return strings.Join(outline(m.Items, ""), "\n") }

func TestMenuLongCommandShowsTheDeletion(t *testing.T) {
	t.Parallel()
	p := longArchive()
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, CanType: true, Home: "/home/ana", Pending: []Pending{p}})
	rows := rowsOf(m)
	if !strings.Contains(rows, "Show full command… has the rest …") {
		t.Fatalf("the command was not elided, so this test shows nothing:\n%s", rows)
	}
	// The rm part starts a row of its own, marked, among the command's
	// rows; what does not fit is counted, and no file name is cut.
	var part []string
	in := false
	for _, it := range m.Items {
		switch {
		case strings.HasPrefix(it.Label, "    ⚠ "):
			in = true
			part = append(part, strings.TrimPrefix(it.Label, "    ⚠ "))
		case in && strings.HasPrefix(it.Label, "      "):
			part = append(part, strings.TrimPrefix(it.Label, "      "))
		default:
			in = false
		}
	}
	wantPart := p.Reasons[0].Command
	got := strings.Join(part, " ")
	shown, more, cut := strings.Cut(got, " … and ")
	shown = strings.Join(strings.Fields(shown), " ")
	if !strings.HasPrefix(wantPart, "rm ") || !strings.HasPrefix(wantPart, shown) {
		t.Fatalf("the deletion shows as\n%s\nwant the start of %q in\n%s", got, wantPart, rows)
	}
	if cut && more != fmt.Sprintf("%d characters more", len(wantPart)-len(shown)-1) {
		t.Errorf("the rest of the deletion is counted as %q, want %d characters", more, len(wantPart)-len(shown)-1)
	}
	for _, name := range strings.Fields(shown)[1:] {
		if !strings.Contains(wantPart, name+" ") && !strings.HasSuffix(wantPart, name) {
			t.Errorf("file name %s is cut:\n%s", name, got)
		}
	}
	if !strings.Contains(rows, "|    Why: rm: deletes files|") || strings.Contains(rows, "more reason") {
		t.Errorf("the deletion's reason is folded away:\n%s", rows)
	}
	if !strings.Contains(rows, "|    In: ~/Projects/webapp|") {
		t.Errorf("the folder is not written with ~:\n%s", rows)
	}
	// Show full command… comes before the answers.
	show, first := -1, -1
	for i, it := range m.Items {
		if it.ID == PrefixShowFull+"p1" {
			show = i
		}
		if first < 0 && (it.ID == PrefixDeny+"p1" || it.ID == PrefixApprove+"p1") {
			first = i
		}
	}
	if show < 0 || first < 0 || show > first {
		t.Errorf("Show full command… at %d, first answer at %d:\n%s", show, first, rows)
	}
}

func TestMenuNeverFoldsADestructiveReason(t *testing.T) {
	t.Parallel()
	rs := []shell.Reason{
		{Why: "mkdir: creates directories", Category: "write"},
		{Why: "tar: creates or extracts archives", Category: "write"},
		{Why: "touch: creates files", Category: "write"},
		{Why: "chmod: changes permissions", Category: "write"},
		{Command: "rm a", Why: "rm: deletes files", Category: "delete"},
		{Command: "> b", Why: "> b: overwrites a file", Category: "write"},
	}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "x", Reasons: rs}}})
	rows := rowsOf(m)
	for _, want := range []string{"Why: rm: deletes files", "Why: > b: overwrites a file", "Why: mkdir: creates directories",
		"Why: tar: creates or extracts archives", "and 2 more reasons"} {
		if !strings.Contains(rows, want) {
			t.Errorf("no %q in\n%s", want, rows)
		}
	}
	// One hidden reason would take the row it needs: it is shown instead.
	m = BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "x", Reasons: rs[:3]}}})
	if rows = rowsOf(m); strings.Contains(rows, "more reason") || !strings.Contains(rows, "Why: touch: creates files") {
		t.Errorf("a single reason was folded:\n%s", rows)
	}
}

func TestMenuApprovalDetailsAreReadableText(t *testing.T) {
	t.Parallel()
	p := longArchive()
	p.Preview = &preview.Preview{Status: preview.Shown, Summary: "Deletes 4 files, 432 KB"}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{p}})
	n := 0
	for _, it := range m.Items {
		if strings.HasPrefix(it.ID, PrefixPending+"p1:") {
			n++
			if it.Kind != ItemText || it.Disabled {
				t.Errorf("row %q is %v disabled=%v; the details must be text rows", it.Label, it.Kind, it.Disabled)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d detail rows", n)
	}
}

func TestMenuPreviewLinesWrapInsteadOfBeingCut(t *testing.T) {
	t.Parallel()
	line := "~/Documents/archive/2024/projects/client-reports/draft_v2_final_reviewed.txt: file already there, 2.1 KB, replaced"
	pv := &preview.Preview{Status: preview.Shown, Summary: "Moves 1 file, replaces 1 file", Lines: []string{line, "a", "b", "c", "d"}}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "mv x y", Preview: pv}}})
	var text []string
	for _, it := range m.Items {
		if strings.HasPrefix(it.ID, PrefixPending+"p1:") {
			text = append(text, strings.TrimSpace(it.Label))
		}
	}
	all := strings.Join(text, " ")
	if !strings.Contains(strings.Join(text, ""), "draft_v2_final_reviewed.txt: file already there, 2.1 KB, replaced") ||
		!strings.Contains(all, "draft_v2_final_reviewed.txt:") || !strings.Contains(strings.ReplaceAll(all, "/ ", "/"), line) {
		t.Errorf("the preview line was cut; rows:\n%s", strings.Join(text, "\n"))
	}
	// Five lines where four fit: the fifth is shown, not "… 1 more line".
	if strings.Contains(all, "1 more line") || !strings.Contains(all, " d ") && !strings.HasSuffix(all, " d") {
		t.Errorf("one line folded into a row of its own:\n%s", strings.Join(text, "\n"))
	}
}

func TestMenuRetryAfterNoIsMarked(t *testing.T) {
	t.Parallel()
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "rm -r ~/Downloads/old_builds/*", AfterNo: "rm -r ~/Downloads/old_builds"}}})
	first, second := findItem(m.Items, PrefixPending+"p1:0"), findItem(m.Items, PrefixPending+"p1:1")
	if first == nil || second == nil || !strings.Contains(first.Label+" "+strings.TrimSpace(second.Label), "After you said no to “rm -r ~/Downloads/old_builds”, the model proposes this instead:") {
		t.Fatalf("first rows %+v %+v", first, second)
	}
	m = BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "rm x"}}})
	if strings.Contains(rowsOf(m), "said no") {
		t.Fatal("a first proposal is marked as a retry")
	}
}

func TestAnswersHaveOneOrder(t *testing.T) {
	t.Parallel()
	labels := func(as []Answer) string {
		var out []string
		for _, a := range as {
			l := a.Label
			if a.Safe {
				l = "*" + l
			}
			out = append(out, l)
		}
		return strings.Join(out, " · ")
	}
	for _, c := range []struct {
		p       Pending
		why     bool
		want    string
		comment string
	}{
		{Pending{TrashOffered: true}, true, "*Move to Trash (safe choice) · Deny · Deny and say why… · Delete", "Delete is far from the default"},
		{Pending{TrashOffered: true}, false, "*Move to Trash (safe choice) · Deny · Delete", "Delete is not next to the default"},
		{Pending{}, true, "*Deny (safe choice) · Deny and say why… · Approve", "no Trash: Deny is the safe choice"},
		{Pending{}, false, "*Deny (safe choice) · Approve", ""},
	} {
		if got := labels(Answers(c.p, c.why)); got != c.want {
			t.Errorf("%s: %s, want %s", c.comment, got, c.want)
		}
	}
}

type fakeViewer struct {
	err   error
	shown chan string
}

func (f *fakeViewer) ShowText(_ context.Context, title, path string) error {
	f.shown <- path
	return f.err
}

type failingOpener struct{}

func (failingOpener) Open(string) error { return errors.New("no xdg-open") }

// TestShowFullCommandIsWrappedAndReadable: the full command opens in the
// text viewer, wrapped, with every reason and the part it is about; when
// no viewer works, the notification leads with the deletion.
func TestShowFullCommandIsWrappedAndReadable(t *testing.T) {
	t.Parallel()
	p := longArchive()
	viewer := &fakeViewer{shown: make(chan string, 1)}
	decided := make(chan Decision, 1)
	h := start(t, pendingAgent(p, decided), func(o *Options) { o.Viewer = viewer; o.Home = "/home/ana" })
	h.app.Post(SendRequest{Text: "archive the logs", Reply: make(chan SendReply, 1)})
	got := recv(t, "approval", h.approver.asked)
	h.app.Post(MenuClick{ID: PrefixShowFull + got.ID})
	path := recv(t, "shown", viewer.shown)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		if n := utf8.RuneCountInString(l); n > fullWidth {
			t.Errorf("line of %d characters in the wrapped view: %q", n, l)
		}
	}
	if lines[len(lines)-1] != p.Command {
		t.Errorf("the view does not end with the exact command:\n%s", text)
	}
	rm := strings.Index(text, "⚠ rm: deletes files")
	mkdir := strings.Index(text, "• mkdir: creates directories")
	if rm < 0 || mkdir < 0 || rm > mkdir || !strings.Contains(text, "In: ~/Projects/webapp") {
		t.Errorf("reasons or folder missing or out of order:\n%s", text)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + got.ID})
	recv(t, "decision", decided)
}

func TestShowFullCommandFallsBackToANoteThatLeadsWithTheDeletion(t *testing.T) {
	t.Parallel()
	p := longArchive()
	viewer := &fakeViewer{err: errors.New("no zenity"), shown: make(chan string, 1)}
	decided := make(chan Decision, 1)
	h := start(t, pendingAgent(p, decided), func(o *Options) { o.Viewer = viewer; o.Opener = failingOpener{} })
	h.app.Post(SendRequest{Text: "archive the logs", Reply: make(chan SendReply, 1)})
	got := recv(t, "approval", h.approver.asked)
	h.app.Post(MenuClick{ID: PrefixShowFull + got.ID})
	recv(t, "viewer tried", viewer.shown)
	n := recv(t, "notification", h.notifier.got)
	if !strings.HasPrefix(n.body, "⚠ rm: deletes files: rm ~/Projects/webapp/logs/") {
		t.Errorf("fallback note %q does not lead with the deletion", n.body)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + got.ID})
	recv(t, "decision", decided)
}

// pendingAgent asks about p once and reports the answer.
func pendingAgent(p Pending, out chan<- Decision) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventAwaiting, Call: &agent.Call{Command: p.Command}})
		d, err := c.Confirm(ctx, p)
		out <- d
		return "done", err
	})
}

// TestAnswersHaveAccessKeys: every answer but deleting for good can be
// chosen with one letter while the menu is open (walk 6: no mnemonics),
// each letter in the answer's own label.
func TestAnswersHaveAccessKeys(t *testing.T) {
	t.Parallel()
	for _, p := range []Pending{{ID: "p1", Command: "mkdir x"}, {ID: "p1", Command: "rm -r ~/old", TrashOffered: true}} {
		m := BuildMenu(View{State: AwaitingApproval, Confirm: true, CanType: true, Pending: []Pending{p}})
		for _, id := range []string{PrefixTrash, PrefixDeny, PrefixDenyWhy, PrefixApprove} {
			it := findItem(m.Items, id+"p1")
			if it == nil {
				continue
			}
			deletes := id == PrefixApprove && p.TrashOffered
			if deletes != (it.AccessKey == 0) || it.AccessKey != 0 && !strings.ContainsRune(it.Label, it.AccessKey) {
				t.Errorf("%q: access key %q", it.Label, it.AccessKey)
			}
		}
	}
}

package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
)

// withTrash gives the harness a real Trash in its home folder, with the
// freedesktop layout on every OS so the paths are the same everywhere.
func withTrash(t *testing.T, bin **trash.Bin) func(*Options) {
	return func(o *Options) {
		b, err := trash.New(trash.Options{GOOS: "linux", Home: o.Home, State: filepath.Join(o.Home, "state", "last-trash.json")})
		if err != nil {
			t.Fatal(err)
		}
		o.Trash, *bin = b, b
	}
}

func writeFile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(filepath.Base(p)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func present(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestMoveToTrashInsteadOfDeleting(t *testing.T) {
	t.Parallel()
	var bin *trash.Bin
	h := newHarness(t, []reply{
		tools(cmd("rm -r ~/Downloads/old ~/Downloads/a.txt", "executing")),
		text("Moved them to the Trash."),
	}, withTrash(t, &bin))
	old, a := filepath.Join(h.home, "Downloads", "old"), filepath.Join(h.home, "Downloads", "a.txt")
	writeFile(t, filepath.Join(old, "x.o"))
	writeFile(t, a)
	h.confirmer.decisions = []Decision{{Trash: true, By: ByMenu}}

	out, err := h.agent.Run(context.Background(), NewConversation(), "delete the old downloads")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.confirmer.asked) != 1 || !h.confirmer.asked[0].TrashOffered {
		t.Fatalf("asked %+v, want Move to Trash offered", h.confirmer.asked)
	}
	if len(h.exec.ran) != 0 {
		t.Fatalf("the deletion ran after Move to Trash: %v", h.exec.commands())
	}
	if present(old) || present(a) || !present(filepath.Join(h.home, ".local", "share", "Trash", "files", "old", "x.o")) {
		t.Fatal("the targets are not in the Trash")
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	if len(tm) != 1 || tm[0]["success"] != true || tm[0]["executed"] != false ||
		!strings.HasPrefix(tm[0]["output"].(string), "Moved 2 items to the Trash instead of deleting: "+old+", "+a+".") ||
		!strings.Contains(tm[0]["output"].(string), "hark undo") {
		t.Fatalf("model was told %v", tm)
	}
	if got := h.events.decisions(); !slices.Equal(got, []string{"rm -r ~/Downloads/old ~/Downloads/a.txt=trashed"}) {
		t.Errorf("decisions %v", got)
	}
	if out.Metrics.Approved != 1 || out.Metrics.Commands != 0 {
		t.Errorf("metrics %+v", out.Metrics)
	}
	if facts := out.Metrics.Tally().Facts(); facts != "Moved old and a.txt to the Trash" {
		t.Errorf("the summary %q does not name what went to the Trash", facts)
	}
	es := h.auditEntries(t)
	if len(es) != 1 || es[0].Decision != DecisionTrashed || es[0].DecidedBy != ByMenu || es[0].Executed || es[0].ExitCode != nil ||
		!slices.Equal(es[0].Trashed, []string{old, a}) {
		t.Fatalf("audit %+v", es)
	}
	rec, err := bin.UndoLast()
	if err != nil || len(rec.Items) != 2 || !present(filepath.Join(old, "x.o")) || !present(a) {
		t.Fatalf("undo after the agent's trash: %+v, %v", rec, err)
	}
}

func TestTrashOnlyOfferedForPlainDeletionsUnderHome(t *testing.T) {
	t.Parallel()
	cmds := []string{"rm /tmp/elsewhere", "rm ~/a; ls", "rm ~/$NAME", "mv ~/a ~/b", "rm ~/a"}
	// One request each: three denials in a row would end a request.
	var replies []reply
	for _, c := range cmds {
		replies = append(replies, tools(cmd(c, "executing")), text("done"))
	}
	var bin *trash.Bin
	h := newHarness(t, replies, withTrash(t, &bin))
	writeFile(t, filepath.Join(h.home, "a"))
	// Move to Trash on a command that did not offer it is a denial.
	for range cmds {
		h.confirmer.decisions = append(h.confirmer.decisions, Decision{Trash: true, By: ByNotification})
	}
	for range cmds {
		if _, err := h.agent.Run(context.Background(), NewConversation(), "clean up"); err != nil {
			t.Fatal(err)
		}
	}
	var offered []bool
	for _, p := range h.confirmer.asked {
		offered = append(offered, p.TrashOffered)
	}
	if !slices.Equal(offered, []bool{false, false, false, false, true}) {
		t.Fatalf("TrashOffered for %q: %v", cmds, offered)
	}
	want := []string{"rm /tmp/elsewhere=denied", "rm ~/a; ls=denied", "rm ~/$NAME=denied", "mv ~/a ~/b=denied", "rm ~/a=trashed"}
	if got := h.events.decisions(); !slices.Equal(got, want) {
		t.Fatalf("decisions %v", got)
	}
	if len(h.exec.ran) != 0 || present(filepath.Join(h.home, "a")) {
		t.Fatalf("ran %v; ~/a present %v", h.exec.commands(), present(filepath.Join(h.home, "a")))
	}
}

func TestWithoutTrashNothingIsOffered(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []reply{tools(cmd("rm ~/a", "executing")), text("ok")}, nil)
	writeFile(t, filepath.Join(h.home, "a"))
	h.confirmer.decisions = []Decision{{Trash: true, By: ByMenu}}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "delete a"); err != nil {
		t.Fatal(err)
	}
	if h.confirmer.asked[0].TrashOffered || !present(filepath.Join(h.home, "a")) {
		t.Fatal("Move to Trash offered or done without a Trash")
	}
	if got := h.events.decisions(); !slices.Equal(got, []string{"rm ~/a=denied"}) {
		t.Fatalf("decisions %v", got)
	}
}

func TestTrashFindListsInTheSandbox(t *testing.T) {
	t.Parallel()
	var bin *trash.Bin
	h := newHarness(t, []reply{tools(cmd("find ~/logs -name '*.log' -delete", "executing")), text("ok")}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		withTrash(t, &bin)(o)
	})
	logs := filepath.Join(h.home, "logs")
	a, b, keep := filepath.Join(logs, "a.log"), filepath.Join(logs, "sub", "b.log"), filepath.Join(logs, "keep.txt")
	for _, p := range []string{a, b, keep} {
		writeFile(t, p)
	}
	listing := "find " + logs + " -depth -name '*.log' -print"
	h.exec.outputs[listing] = b + "\n" + a + "\n"
	h.confirmer.decisions = []Decision{{Trash: true, By: ByTerminal}}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "delete the logs"); err != nil {
		t.Fatal(err)
	}
	if len(h.exec.ran) != 1 || h.exec.ran[0].Command != listing || h.exec.ran[0].Sandbox != shell.SandboxReadOnly || h.exec.ran[0].Verdict.Tier != shell.Safe {
		t.Fatalf("ran %+v, want only the read-only listing %q", h.exec.ran, listing)
	}
	if present(a) || present(b) || !present(keep) {
		t.Fatal("the trash did not follow find's listing")
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	if !strings.HasPrefix(tm[0]["output"].(string), "Moved 2 items to the Trash") || tm[0]["sandbox"] != "read-only" {
		t.Fatalf("model was told %v", tm[0])
	}
}

func TestTrashReportsWhatDidNotMove(t *testing.T) {
	t.Parallel()
	var bin *trash.Bin
	h := newHarness(t, []reply{tools(cmd("rm ~/a ~/missing ~/folder", "executing")), text("ok")}, withTrash(t, &bin))
	writeFile(t, filepath.Join(h.home, "a"))
	writeFile(t, filepath.Join(h.home, "folder", "x"))
	h.confirmer.decisions = []Decision{{Trash: true, By: ByMenu}}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "delete"); err != nil {
		t.Fatal(err)
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)[0]
	errText, _ := tm["error"].(string)
	if tm["success"] != false || !strings.HasPrefix(tm["output"].(string), "Moved 1 item to the Trash") ||
		!strings.Contains(errText, "missing: no such file") || !strings.Contains(errText, "rm without -r would not remove it") {
		t.Fatalf("model was told %v", tm)
	}
	if present(filepath.Join(h.home, "a")) || !present(filepath.Join(h.home, "folder", "x")) {
		t.Fatal("moved the wrong things")
	}
}

// On macOS, when Finder does not take an item and Hark moves it into
// ~/.Trash itself, the result says plainly that Put Back will not work for
// it, and why, so the model can tell the user.
func TestMoveToTrashSaysWhenPutBackIsLost(t *testing.T) {
	t.Parallel()
	var bin *trash.Bin
	h := newHarness(t, []reply{
		tools(cmd("rm ~/Downloads/a.txt", "executing")),
		text("Moved it to the Trash."),
	}, func(o *Options) {
		b, err := trash.New(trash.Options{GOOS: "darwin", Home: o.Home, State: filepath.Join(o.Home, "state", "last-trash.json"),
			Finder: func(context.Context, string) (string, error) {
				return "", errors.New("Not authorized to send Apple events to Finder. (-1743)")
			}})
		if err != nil {
			t.Fatal(err)
		}
		o.Trash, bin = b, b
	})
	a := filepath.Join(h.home, "Downloads", "a.txt")
	writeFile(t, a)
	h.confirmer.decisions = []Decision{{Trash: true, By: ByMenu}}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "delete a.txt"); err != nil {
		t.Fatal(err)
	}
	if bin == nil || present(a) || !present(filepath.Join(h.home, ".Trash", "a.txt")) {
		t.Fatal("a.txt is not in ~/.Trash")
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	out, _ := tm[0]["output"].(string)
	for _, w := range []string{"not through Finder", "-1743", "Put Back", "hark undo", a} {
		if !strings.Contains(out, w) {
			t.Errorf("the result lacks %q: %s", w, out)
		}
	}
}

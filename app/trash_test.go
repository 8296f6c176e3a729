package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
)

func TestMenuOffersTheTrash(t *testing.T) {
	t.Parallel()
	v := View{State: AwaitingApproval, Confirm: true, UndoTrash: "3 items", Pending: []Pending{
		{ID: "p1", Command: "rm -r ~/Downloads/old", Purpose: "executing", Tier: shell.Confirm, TrashOffered: true},
	}}
	got := strings.Join(outline(BuildMenu(v).Items, ""), "\n")
	// The safe choice first and marked, and Delete never next to it.
	want := "pending:p1:0|text|  $ rm -r ~/Downloads/old|\n" +
		"trash:p1|action|    Move to Trash (safe choice)|\n" +
		"deny:p1|action|    Deny|\n" +
		"approve:p1|action|    Delete|\n"
	if !strings.Contains(got, want) {
		t.Fatalf("menu:\n%s\n\nwant the answers:\n%s", got, want)
	}
	if !strings.Contains(got, "undo-trash|action|Undo last trash (3 items)|D") {
		t.Fatalf("busy menu lacks a disabled Undo last trash:\n%s", got)
	}
	idle := strings.Join(outline(BuildMenu(View{Confirm: true, UndoTrash: "notes.txt"}).Items, ""), "\n")
	if !strings.Contains(idle, "undo-trash|action|Undo last trash (notes.txt)|\n") {
		t.Fatalf("idle menu:\n%s", idle)
	}
	if none := strings.Join(outline(BuildMenu(View{Confirm: true}).Items, ""), "\n"); strings.Contains(none, "undo-trash") {
		t.Fatalf("Undo last trash shown with nothing to undo:\n%s", none)
	}
}

// trashingAgent asks about a deletion with Move to Trash offered and, when
// the answer is Trash, moves the file with a real Trash as the agent would.
func trashingAgent(bin *trash.Bin, target string, decided chan<- Decision) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		cmd := "rm " + target
		on(agent.Event{Kind: agent.EventAwaiting, Call: &agent.Call{Command: cmd}})
		d, err := c.Confirm(ctx, Pending{Command: cmd, Purpose: "executing", Tier: shell.Confirm, TrashOffered: true})
		decided <- d
		if err != nil || !d.Trash {
			return "did not trash", err
		}
		_, err = bin.Trash(ctx, cmd, []string{target})
		code := 0
		if err != nil {
			code = 1
		}
		on(agent.Event{Kind: agent.EventResult, Call: &agent.Call{Command: cmd}, Result: &shell.Result{Command: cmd, ExitCode: code, Success: code == 0}})
		return "moved it to the Trash", err
	})
}

func TestMoveToTrashFromTheMenuThenUndo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bin, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: filepath.Join(home, "state", "last-trash.json")})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(target, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	decided := make(chan Decision, 1)
	h := start(t, trashingAgent(bin, target, decided), func(o *Options) { o.Trash = bin })

	m := h.views.mark()
	h.app.Post(SendRequest{Text: "delete my notes", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending with the Trash offered", func(v View) bool { return len(v.Pending) == 1 && v.Pending[0].TrashOffered })
	h.app.Post(MenuClick{ID: PrefixTrash + v.Pending[0].ID})
	if d := recv(t, "decision", decided); !d.Trash || d.Approved || d.By != ByMenu {
		t.Fatalf("decision %+v, want Move to Trash by menu", d)
	}
	h.views.waitFrom(t, m, "Undo last trash offered after the turn", func(v View) bool { return !v.State.Busy() && v.UndoTrash == "notes.txt" })
	for n := recv(t, "final notification", h.notifier.got); ; n = recv(t, "final notification", h.notifier.got) {
		if n.title == "Answer" {
			if !strings.HasPrefix(n.body, "moved it to the Trash\n\nMoved what 1 deletion would have removed to the Trash (Undo last trash in the menu puts it back)") || strings.Contains(n.body, "nothing changed") {
				t.Fatalf("final notification %q does not say the file went to the Trash", n.body)
			}
			break
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file is still in place")
	}

	m = h.views.mark()
	h.app.Post(MenuClick{ID: IDUndoTrash})
	h.views.waitFrom(t, m, "Undo last trash gone after undo", func(v View) bool { return v.UndoTrash == "" })
	if b, err := os.ReadFile(target); err != nil || string(b) != "notes" {
		t.Fatalf("after undo: %q, %v", b, err)
	}
	for n := recv(t, "notification", h.notifier.got); ; n = recv(t, "notification", h.notifier.got) {
		if strings.HasPrefix(n.title, "Put back") {
			if n.title != "Put back" || !strings.Contains(n.body, target) || !strings.HasPrefix(n.body, "Back where it was:") {
				t.Fatalf("undo notification %+v", n)
			}
			break
		}
	}
}

func TestUndoTrashRefusalIsSaid(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bin, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: filepath.Join(home, "state", "last-trash.json")})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(home, "notes.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	if _, err := bin.Trash(context.Background(), "rm notes.txt", []string{target}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(target, []byte("new"), 0o644)
	h := start(t, answerAgent("ok"), func(o *Options) { o.Trash = bin })
	h.views.waitFrom(t, 0, "Undo last trash offered at start", func(v View) bool { return v.UndoTrash == "notes.txt" })
	h.app.Post(MenuClick{ID: IDUndoTrash})
	n := recv(t, "notification", h.notifier.got)
	if n.title != "Nothing put back" || !strings.Contains(n.body, target+" exists") {
		t.Fatalf("notification %+v", n)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("the new file was overwritten: %q", b)
	}
}

// TestProblemReportDoesNotRepeatItsTitle: the report is shown under the
// title "Hark — problems" (a notification's or a file's name), so its text
// does not start with those words again.
func TestProblemReportDoesNotRepeatItsTitle(t *testing.T) {
	t.Parallel()
	a := &App{problems: map[string]ProblemInfo{"ollama": {Title: "Ollama not running", Detail: "start it with ollama serve"}}}
	r := a.problemReport()
	if strings.Contains(r, "Hark — problems") || !strings.HasPrefix(r, "⚠ Ollama not running\nstart it with ollama serve") {
		t.Errorf("report:\n%s", r)
	}
}

// undoNotifier is a keyedNotifier whose notifications can carry an Undo
// button, as desktop.DBus does where the server shows buttons.
type undoNotifier struct {
	*keyedNotifier
	undos chan func()
}

func (u *undoNotifier) NotifyKeyUndo(key, title, body string, undo func()) error {
	u.undos <- undo
	return u.NotifyKey(key, title, body)
}

// TestTrashResultHasUndoAndGoesAway: the notification that says what went
// to the Trash has an Undo button where the notifier shows buttons (walk
// 6, B3-20: Undo was only in the menu); Undo puts it back, withdraws that
// notification, which would now say something untrue (B3-11), and says
// where the file is back with ~ for home (B3-15).
func TestTrashResultHasUndoAndGoesAway(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bin, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: filepath.Join(home, "state", "last-trash.json")})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(home, "Downloads", "old_builds")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	decided := make(chan Decision, 1)
	n := &undoNotifier{keyedNotifier: &keyedNotifier{fakeNotifier: newFakeNotifier(), open: map[string]string{}, closed: make(chan string, 8)}, undos: make(chan func(), 4)}
	h := start(t, trashingAgent(bin, target, decided), func(o *Options) {
		o.Trash = bin
		o.Notifier = n
		o.Home = home
	})
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "delete the old builds", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending with the Trash offered", func(v View) bool { return len(v.Pending) == 1 && v.Pending[0].TrashOffered })
	h.app.Post(MenuClick{ID: PrefixTrash + v.Pending[0].ID})
	recv(t, "decision", decided)
	undo := recv(t, "the Trash result with Undo", n.undos)
	n.mu.Lock()
	var key string
	for k, title := range n.open {
		if !strings.Contains(title, "Put back") {
			key = k
		}
	}
	n.mu.Unlock()
	if key == "" {
		t.Fatal("the Trash result was not posted under a key")
	}
	undo()
	if got := recv(t, "the Trash result withdrawn", n.closed); got != key {
		t.Errorf("withdrew %q, want the Trash result's %q", got, key)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("Undo did not put it back: %v", err)
	}
	for got := recv(t, "notification", n.got); ; got = recv(t, "notification", n.got) {
		if got.title == "Put back" {
			if got.body != "Back where it was:\n~/Downloads/old_builds" {
				t.Errorf("Put back says %q", got.body)
			}
			break
		}
	}
}

// TestUndoElsewhereWithdrawsTheTrashResult: a set put back by `hark undo`
// in a terminal withdraws the app's "Moved … to the Trash" notification
// as the menu's Undo does (walk 6, B3-11).
func TestUndoElsewhereWithdrawsTheTrashResult(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	state := filepath.Join(home, "state", "last-trash.json")
	bin, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: state})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(target, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	decided := make(chan Decision, 1)
	n := &undoNotifier{keyedNotifier: &keyedNotifier{fakeNotifier: newFakeNotifier(), open: map[string]string{}, closed: make(chan string, 8)}, undos: make(chan func(), 4)}
	h := start(t, trashingAgent(bin, target, decided), func(o *Options) {
		o.Trash = bin
		o.Notifier = n
		watchFast(o)
	})
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "delete my notes", Reply: make(chan SendReply, 1)})
	v := h.views.waitFrom(t, m, "pending with the Trash offered", func(v View) bool { return len(v.Pending) == 1 && v.Pending[0].TrashOffered })
	h.app.Post(MenuClick{ID: PrefixTrash + v.Pending[0].ID})
	recv(t, "decision", decided)
	recv(t, "the Trash result", n.undos)
	h.views.wait(t, "Undo last trash offered", func(v View) bool { return !v.State.Busy() && v.UndoTrash == "notes.txt" })
	// Let the watcher look at the record once (every 5 ms here): a set
	// made and put back between two looks is no change to it.
	time.Sleep(100 * time.Millisecond)

	terminal, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: state})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := terminal.UndoLast(); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, "the Trash result withdrawn", n.closed); got != trashedKey {
		t.Errorf("withdrew %q, want %q", got, trashedKey)
	}
}

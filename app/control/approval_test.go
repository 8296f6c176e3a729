package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
)

// menuWatch keeps the last menu the app drew and lets a test wait for one.
type menuWatch struct {
	mu   sync.Mutex
	last app.Menu
	ch   chan struct{}
}

func (m *menuWatch) Render(menu app.Menu) {
	m.mu.Lock()
	m.last = menu
	m.mu.Unlock()
	select {
	case m.ch <- struct{}{}:
	default:
	}
}

// wait returns the first menu that ok accepts.
func (m *menuWatch) wait(t *testing.T, what string, ok func(app.Menu) bool) app.Menu {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		m.mu.Lock()
		cur := m.last
		m.mu.Unlock()
		if ok(cur) {
			return cur
		}
		select {
		case <-m.ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the menu never showed %s; last: %+v", what, cur.Items)
		}
	}
}

// pendingIDs are the pending approvals a menu offers, by the ID of their
// Approve row, with the label rows that describe them (inside the rows
// that open entries folded beside others too).
func pendingIDs(m app.Menu) (ids []string, labels string) {
	var b strings.Builder
	var walk func([]app.MenuItem)
	walk = func(items []app.MenuItem) {
		for _, it := range items {
			if id, ok := strings.CutPrefix(it.ID, app.PrefixApprove); ok {
				ids = append(ids, id)
			}
			b.WriteString(it.Label + "\n")
			if strings.HasPrefix(it.ID, app.PrefixEntry) {
				walk(it.Children)
			}
		}
	}
	walk(m.Items)
	return ids, b.String()
}

// TestAskQueuesApprovalsInTheMenu: approvals asked over the socket wait in
// the menu side by side with the client's name, the menu answers one, and
// a client that goes away withdraws the other.
func TestAskQueuesApprovalsInTheMenu(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	menu := &menuWatch{ch: make(chan struct{}, 1)}
	core := app.New(app.Options{Settings: settings.Defaults(), Agent: fileAgent{calls: make(chan string, 1)}, Menu: menu,
		Paths:  settings.Paths{Settings: filepath.Join(home, "settings.json"), Runtime: filepath.Join(home, "run")},
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	go core.Run(ctx)
	t.Cleanup(func() { cancel(); <-core.Done() })
	dir := shortDir(t)
	serve(t, dir, core.Post)

	type answer struct {
		d   app.Decision
		err error
	}
	first, second := make(chan answer, 1), make(chan answer, 1)
	go func() {
		d, err := Ask(ctx, dir, app.Pending{Command: "rm notes.txt", Client: "Claude Desktop"})
		first <- answer{d, err}
	}()
	m := menu.wait(t, "the first approval", func(m app.Menu) bool { ids, _ := pendingIDs(m); return len(ids) == 1 })
	askCtx, withdraw := context.WithCancel(ctx)
	defer withdraw()
	go func() {
		d, err := Ask(askCtx, dir, app.Pending{Command: "touch new.txt", Client: "Cursor"})
		second <- answer{d, err}
	}()
	m = menu.wait(t, "both approvals", func(m app.Menu) bool { ids, _ := pendingIDs(m); return len(ids) == 2 })
	ids, labels := pendingIDs(m)
	for _, want := range []string{"Pending approval (2)", "$ rm notes.txt", "Claude Desktop asks:", "$ touch new.txt", "Cursor asks:"} {
		if !strings.Contains(labels, want) {
			t.Errorf("the menu lacks %q:\n%s", want, labels)
		}
	}
	if !core.Post(app.MenuClick{ID: app.PrefixApprove + ids[0]}) {
		t.Fatal("the app stopped")
	}
	select {
	case a := <-first:
		if a.err != nil || !a.d.Approved || a.d.By != app.ByMenu {
			t.Errorf("the approved one: %+v, %v; want approved from the menu", a.d, a.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the first approval got no answer")
	}
	withdraw()
	select {
	case a := <-second:
		if !errors.Is(a.err, context.Canceled) {
			t.Errorf("the withdrawn one: %+v, %v; want context.Canceled", a.d, a.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the withdrawn approval did not return")
	}
	menu.wait(t, "no approval left", func(m app.Menu) bool { ids, _ := pendingIDs(m); return len(ids) == 0 && len(m.Items) > 0 })
}

// TestAskWhenNotRunning: with no app, Ask says so and asks nobody.
func TestAskWhenNotRunning(t *testing.T) {
	t.Parallel()
	_, err := Ask(context.Background(), shortDir(t), app.Pending{Command: "rm x"})
	if !errors.Is(err, ErrNotRunning) {
		t.Errorf("Ask with no app: %v, want ErrNotRunning", err)
	}
}

// TestAskFromOutsideNeverPassesForHark: whatever a program sends over the
// socket, its approval names it (unnamed: "another program"), shows what
// it smuggles into the name or the command as visible escapes, and claims
// nothing the user said; and no program can bury the menu: past
// MaxApprovals waiting, a request is refused without asking.
func TestAskFromOutsideNeverPassesForHark(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	menu := &menuWatch{ch: make(chan struct{}, 1)}
	core := app.New(app.Options{Settings: settings.Defaults(), Agent: fileAgent{calls: make(chan string, 1)}, Menu: menu,
		Paths:  settings.Paths{Settings: filepath.Join(home, "settings.json"), Runtime: filepath.Join(home, "run")},
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	go core.Run(ctx)
	t.Cleanup(func() { cancel(); <-core.Done() })
	dir := shortDir(t)
	serve(t, dir, core.Post)

	askCtx, withdraw := context.WithCancel(ctx)
	defer withdraw()
	errs := make(chan error, MaxApprovals+1)
	sly := []app.Pending{
		{Command: "rm -r ~/work", Heard: "delete my old work folder", AfterNo: "rm -rf ~", HeardDoubt: "Hark was not sure it heard “work”"},
		{Command: "rm notes.txt\x1b[2K\r$ ls", Client: "Hark\u202e"},
	}
	for i := range MaxApprovals {
		p := app.Pending{Command: fmt.Sprintf("touch f%d", i), Client: "Flood"}
		if i < len(sly) {
			p = sly[i]
		}
		go func() { _, err := Ask(askCtx, dir, p); errs <- err }()
	}
	m := menu.wait(t, "every approval", func(m app.Menu) bool { ids, _ := pendingIDs(m); return len(ids) == MaxApprovals })
	_, labels := pendingIDs(m)
	for _, bad := range []string{"Heard", "delete my old work", "said no", "not sure", "\x1b", "\u202e", "\r$ ls"} {
		if strings.Contains(labels, bad) {
			t.Errorf("the menu shows %q from another program:\n%s", bad, labels)
		}
	}
	if !strings.Contains(labels, "Another program asks:") {
		t.Errorf("an unnamed program's approval does not say it comes from outside:\n%s", labels)
	}
	_, err := Ask(askCtx, dir, app.Pending{Command: "touch one-too-many", Client: "Flood"})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Why, "already wait") {
		t.Errorf("past the limit: %v, want a refusal that says why", err)
	}
	if _, labels := pendingIDs(menu.wait(t, "the same menu", func(app.Menu) bool { return true })); strings.Contains(labels, "one-too-many") {
		t.Error("the refused request reached the menu")
	}
	withdraw()
	for range MaxApprovals {
		<-errs
	}
	menu.wait(t, "no approval left", func(m app.Menu) bool { ids, _ := pendingIDs(m); return len(ids) == 0 && len(m.Items) > 0 })
}

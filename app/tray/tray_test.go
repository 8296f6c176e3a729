package tray

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
)

// fakeBackend records what the renderer asked systray to do.
type fakeBackend struct {
	mu      sync.Mutex
	ops     []string
	items   map[string]*fakeItem // by label at creation
	resets  int
	icon    string
	tooltip string
}

type fakeItem struct {
	label   string
	checked bool
	hidden  bool
	ch      chan struct{}
}

func (f *fakeItem) Clicked() <-chan struct{} { return f.ch }

func newFake() *fakeBackend { return &fakeBackend{items: map[string]*fakeItem{}} }

func (f *fakeBackend) log(format string, args ...any) {
	f.ops = append(f.ops, fmt.Sprintf(format, args...))
}

func (f *fakeBackend) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
	for _, it := range f.items {
		close(it.ch)
	}
	f.items = map[string]*fakeItem{}
	f.log("reset")
}

func (f *fakeBackend) add(parent handle, it app.MenuItem) handle {
	f.mu.Lock()
	defer f.mu.Unlock()
	fi := &fakeItem{label: it.Label, checked: it.Checked, ch: make(chan struct{})}
	f.items[it.ID] = fi
	p := "top"
	if parent != nil {
		p = parent.(*fakeItem).label
	}
	f.log("add %s/%s", p, it.Label)
	return fi
}

func (f *fakeBackend) separator(parent handle) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("sep")
}

func (f *fakeBackend) update(h handle, it app.MenuItem) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fi := h.(*fakeItem)
	fi.label, fi.checked = it.Label, it.Checked
	f.log("update %s checked=%v", it.Label, it.Checked)
}

func (f *fakeBackend) hide(h handle) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.(*fakeItem).hidden = true
	f.log("hide %s", h.(*fakeItem).label)
}

func (f *fakeBackend) show(h handle) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.(*fakeItem).hidden = false
	f.log("show %s", h.(*fakeItem).label)
}

func (f *fakeBackend) setIcon(name string, regular, template []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.icon = name
}

func (f *fakeBackend) setTooltip(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tooltip = s
}

func (f *fakeBackend) setTitle(string) {}

func (f *fakeBackend) snapshot() (ops []string, resets int, icon string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ops...), f.resets, f.icon
}

func (f *fakeBackend) click(t *testing.T, id string) {
	t.Helper()
	f.mu.Lock()
	it := f.items[id]
	f.mu.Unlock()
	if it == nil {
		t.Fatalf("no item %q", id)
	}
	select {
	case it.ch <- struct{}{}:
	case <-time.After(5 * time.Second):
		t.Fatalf("nobody received the click on %q (systray would have dropped it)", id)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func menu(status string, confirm bool, pending ...string) app.Menu {
	m := app.Menu{Icon: "idle", Tooltip: status}
	m.Items = append(m.Items, app.MenuItem{ID: app.IDStatus, Kind: app.ItemLabel, Label: status})
	if len(pending) > 0 {
		icon := "approval"
		m.Icon = icon
		var kids []app.MenuItem
		for _, p := range pending {
			kids = append(kids,
				app.MenuItem{ID: app.PrefixPending + p + ":0", Kind: app.ItemLabel, Label: "rm -rf " + p},
				app.MenuItem{ID: app.PrefixApprove + p, Kind: app.ItemAction, Label: "Approve"},
				app.MenuItem{ID: app.PrefixDeny + p, Kind: app.ItemAction, Label: "Deny"})
		}
		m.Items = append(m.Items, app.MenuItem{ID: app.IDPendingHeader, Kind: app.ItemSubmenu, Label: fmt.Sprintf("Pending approval (%d)", len(pending)), Children: kids})
	}
	m.Items = append(m.Items,
		app.MenuItem{ID: app.PrefixSeparator + "a", Kind: app.ItemSeparator},
		app.MenuItem{ID: app.IDConfirm, Kind: app.ItemCheckbox, Label: "Confirm before executing", Checked: confirm},
		app.MenuItem{ID: app.IDQuit, Kind: app.ItemAction, Label: "Quit"})
	return m
}

func TestRenderUpdatesInPlaceAndRebuildsOnNewRows(t *testing.T) {
	t.Parallel()
	f := newFake()
	tr := newTray(f, Options{Post: func(app.Event) bool { return true }})
	defer tr.Close()

	tr.Render(menu("Ready", true))
	waitFor(t, "first build", func() bool { _, ok := f.hiddenState(app.IDQuit); _, r, _ := f.snapshot(); return r == 1 && ok })

	// Status text and checkbox change: same rows, so no rebuild.
	tr.Render(menu("Listening…", false))
	waitFor(t, "in-place update", func() bool {
		ops, _, _ := f.snapshot()
		return strings.Contains(strings.Join(ops, "|"), "update Confirm before executing checked=false")
	})
	ops, resets, icon := f.snapshot()
	if resets != 1 {
		t.Errorf("resets = %d after a label change, want 1 (in place)", resets)
	}
	if !contains(ops, "update Listening…") {
		t.Errorf("status label not updated in place: %v", ops)
	}
	if icon != "idle" {
		t.Errorf("icon = %q, want idle", icon)
	}

	// A pending command adds rows in the middle: rebuild, submenu children
	// under their parent, approval icon.
	tr.Render(menu("Waiting for approval", false, "p1"))
	waitFor(t, "rebuild finished", func() bool {
		ops, r, i := f.snapshot()
		return r == 2 && i == "approval" && strings.Count(strings.Join(ops, "|"), "add top/Quit") == 2
	})
	ops, _, _ = f.snapshot()
	joined := strings.Join(ops, "|")
	for _, want := range []string{"add top/Pending approval (1)", "add Pending approval (1)/rm -rf p1", "add Pending approval (1)/Approve"} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in %v", want, ops)
		}
	}
	if i, j := strings.Index(joined, "add top/Pending"), strings.LastIndex(joined, "add top/Confirm"); i > j {
		t.Errorf("pending submenu added after the checkbox: %v", ops)
	}
}

func contains(ops []string, prefix string) bool {
	for _, o := range ops {
		if strings.HasPrefix(o, "update "+strings.TrimPrefix(prefix, "update ")) {
			return true
		}
	}
	return false
}

func TestClicksAreNeverLostWhileTheCoreIsBusy(t *testing.T) {
	t.Parallel()
	f := newFake()
	release := make(chan struct{})
	var mu sync.Mutex
	var got []string
	post := func(e app.Event) bool {
		<-release // the core is busy until released
		mu.Lock()
		got = append(got, e.(app.MenuClick).ID)
		mu.Unlock()
		return true
	}
	tr := newTray(f, Options{Post: post})
	defer tr.Close()
	tr.Render(menu("Waiting", true, "p1", "p2"))
	waitFor(t, "build", func() bool { _, ok := f.hiddenState(app.IDQuit); _, r, _ := f.snapshot(); return r == 1 && ok })

	want := []string{app.PrefixApprove + "p1", app.IDConfirm, app.PrefixDeny + "p2", app.IDConfirm, app.IDQuit}
	for _, id := range want {
		f.click(t, id) // each must be received even though post blocks
	}
	close(release)
	waitFor(t, "all clicks posted", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == len(want) })
	mu.Lock()
	defer mu.Unlock()
	// Clicks on different items race through their own forwarders, so only
	// the multiset is guaranteed (a person never clicks two items within
	// microseconds).
	sortedGot, sortedWant := append([]string(nil), got...), append([]string(nil), want...)
	sort.Strings(sortedGot)
	sort.Strings(sortedWant)
	if strings.Join(sortedGot, ",") != strings.Join(sortedWant, ",") {
		t.Errorf("posted %v, want %v", got, want)
	}
}

func TestLabelsAreNotClickable(t *testing.T) {
	t.Parallel()
	f := newFake()
	posted := make(chan app.Event, 4)
	tr := newTray(f, Options{Post: func(e app.Event) bool { posted <- e; return true }})
	defer tr.Close()
	tr.Render(menu("Ready", true))
	waitFor(t, "build", func() bool { _, ok := f.hiddenState(app.IDQuit); _, r, _ := f.snapshot(); return r == 1 && ok })
	f.click(t, app.IDStatus)
	f.click(t, app.IDQuit)
	select {
	case e := <-posted:
		if e.(app.MenuClick).ID != app.IDQuit {
			t.Errorf("first posted click = %v, want quit (the status label is not an action)", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("quit click never posted")
	}
}

func TestMissingIconKeepsThePreviousOne(t *testing.T) {
	t.Parallel()
	f := newFake()
	tr := newTray(f, Options{})
	defer tr.Close()
	tr.Render(menu("Ready", true))
	waitFor(t, "idle icon", func() bool { _, _, i := f.snapshot(); return i == "idle" })
	m := menu("Odd", true)
	m.Icon = "no-such-state"
	tr.Render(m)
	waitFor(t, "render", func() bool { ops, _, _ := f.snapshot(); return contains(ops, "update Odd") })
	if _, _, i := f.snapshot(); i != "idle" {
		t.Errorf("icon = %q after a missing icon, want idle kept", i)
	}
}

// busyMenu is menu() with a Cancel row while busy.
func busyMenu(status string, busy bool) app.Menu {
	m := menu(status, true)
	if !busy {
		return m
	}
	var items []app.MenuItem
	for _, it := range m.Items {
		items = append(items, it)
		if it.ID == app.IDConfirm {
			items = append(items, app.MenuItem{ID: app.IDCancel, Kind: app.ItemAction, Label: "Cancel"})
		}
	}
	m.Items = items
	return m
}

func (f *fakeBackend) hiddenState(id string) (hidden, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	it, ok := f.items[id]
	if !ok {
		return false, false
	}
	return it.hidden, true
}

func TestRowsThatComeAndGoAreHiddenNotRebuilt(t *testing.T) {
	t.Parallel()
	f := newFake()
	tr := newTray(f, Options{})
	defer tr.Close()
	steps := []struct {
		name       string
		m          app.Menu
		wantResets int
		cancel     string // "absent", "shown" or "hidden"
	}{
		{"idle", busyMenu("Ready", false), 1, "absent"},
		{"busy: Cancel is new, so one rebuild", busyMenu("Thinking…", true), 2, "shown"},
		{"idle again: Cancel hidden in place", busyMenu("Ready", false), 2, "hidden"},
		{"busy again: Cancel shown in place", busyMenu("Listening…", true), 2, "shown"},
		{"a separator that must go forces a rebuild", app.Menu{Icon: "idle", Items: []app.MenuItem{{ID: app.IDQuit, Kind: app.ItemAction, Label: "Quit"}}}, 3, "absent"},
	}
	for _, s := range steps {
		tr.Render(s.m)
		waitFor(t, s.name, func() bool {
			_, r, _ := f.snapshot()
			if r != s.wantResets {
				return false
			}
			hidden, ok := f.hiddenState(app.IDCancel)
			switch s.cancel {
			case "absent":
				return !ok
			case "shown":
				return ok && !hidden
			default:
				return ok && hidden
			}
		})
		// Settle: no further rebuild happens for this step.
		time.Sleep(20 * time.Millisecond)
		if _, r, _ := f.snapshot(); r != s.wantResets {
			t.Fatalf("%s: resets = %d, want %d", s.name, r, s.wantResets)
		}
	}
	ops, _, _ := f.snapshot()
	if !contains(ops, "update Listening…") {
		t.Errorf("status not updated in place after showing Cancel again: %v", ops)
	}
}

func TestLabelEscapesTheAccessKeyMarker(t *testing.T) {
	t.Parallel()
	cases := []struct{ goos, in, want string }{
		{"linux", "rm -r /tmp/ux/old_builds /tmp/ux/my__notes_2024.txt", "rm -r /tmp/ux/old__builds /tmp/ux/my____notes__2024.txt"},
		{"linux", "OLLAMA_HOST", "OLLAMA__HOST"},
		{"linux", "no underscore", "no underscore"},
		{"freebsd", "a_b", "a__b"},
		{"darwin", "a_b", "a_b"},
	}
	for _, c := range cases {
		if got := Label(c.goos, c.in); got != c.want {
			t.Errorf("Label(%s, %q) = %q, want %q", c.goos, c.in, got, c.want)
		}
	}
}

// TestManyRowsGoneRebuilds: when a long block of rows goes away the menu is
// rebuilt rather than left with hidden rows a host still makes room for.
func TestManyRowsGoneRebuilds(t *testing.T) {
	t.Parallel()
	f := newFake()
	tr := newTray(f, Options{})
	defer tr.Close()
	base := busyMenu("Ready", false)
	long := base
	long.Items = nil
	for i := 0; i < 8; i++ {
		long.Items = append(long.Items, app.MenuItem{ID: fmt.Sprintf("%sp1:%d", app.PrefixPending, i), Kind: app.ItemLabel, Label: "row"})
	}
	long.Items = append(long.Items, base.Items...)
	tr.Render(base)
	waitFor(t, "first build", func() bool { _, r, _ := f.snapshot(); return r == 1 })
	tr.Render(long)
	waitFor(t, "rows added", func() bool { _, r, _ := f.snapshot(); return r == 2 })
	tr.Render(base)
	waitFor(t, "rebuilt after the rows went", func() bool { _, r, _ := f.snapshot(); return r == 3 })
	if _, ok := f.hiddenState(app.PrefixPending + "p1:0"); ok {
		t.Error("the gone rows are still held, hidden")
	}
}

// TestNothingReachesTheBackendAfterClose: once Close returns, no Render
// reaches systray, whose D-Bus connection Quit is about to close (each
// late change printed a "systray error" line on every quit).
func TestNothingReachesTheBackendAfterClose(t *testing.T) {
	t.Parallel()
	f := newFake()
	tr := newTray(f, Options{Post: func(app.Event) bool { return true }})
	tr.Render(menu("Ready", true))
	waitFor(t, "first build", func() bool { _, r, _ := f.snapshot(); return r == 1 })
	tr.Close()
	before, _, _ := f.snapshot()
	for i := range 50 {
		tr.Render(menu(fmt.Sprintf("Quitting %d", i), i%2 == 0))
	}
	tr.Close() // a second Close is harmless and, like the first, waits for the loop
	after, _, _ := f.snapshot()
	if len(after) != len(before) {
		t.Errorf("backend changed after Close: %q", after[len(before):])
	}
}

// TestReadOnlyRowsNeverTakeFocus: walk 6 found the keyboard's first Down
// on an approval's command row and five presses to reach Deny, and Enter
// there closing the menu with nothing done. Only rows that do something
// can be chosen; the rest reach the platform disabled.
func TestReadOnlyRowsNeverTakeFocus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		it   app.MenuItem
		want bool
	}{
		{app.MenuItem{Kind: app.ItemText, Label: "  $ mkdir notes"}, false},
		{app.MenuItem{Kind: app.ItemText, Label: "    Why: mkdir: creates directories"}, false},
		{app.MenuItem{Kind: app.ItemLabel, Label: "Pending approval (1)"}, false},
		{app.MenuItem{Kind: app.ItemAction, Label: "    Deny (safe choice)"}, true},
		{app.MenuItem{Kind: app.ItemAction, Label: "Cancelling…", Disabled: true}, false},
		{app.MenuItem{Kind: app.ItemCheckbox, Label: "Sound cues"}, true},
		{app.MenuItem{Kind: app.ItemSubmenu, Label: "    Always allow…"}, true},
	} {
		if got := Enabled(c.it); got != c.want {
			t.Errorf("%v %q: enabled %v, want %v", c.it.Kind, c.it.Label, got, c.want)
		}
	}
}

// TestAccessKeysAreMarkedForDbusmenu: an answer's access key reaches a
// Linux tray host as dbusmenu's `_` mark before its letter, underscores
// in the text stay literal, a row without a key or that cannot be chosen
// gets no mark, and macOS, which has no mnemonics, gets the text as is.
func TestAccessKeysAreMarkedForDbusmenu(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		goos string
		it   app.MenuItem
		want string
	}{
		{"linux", app.MenuItem{Kind: app.ItemAction, Label: "    Deny (safe choice)", AccessKey: 'D'}, "    _Deny (safe choice)"},
		{"linux", app.MenuItem{Kind: app.ItemAction, Label: "    Move to Trash (safe choice)", AccessKey: 'T'}, "    Move to _Trash (safe choice)"},
		{"linux", app.MenuItem{Kind: app.ItemAction, Label: "    Deny and say why…", AccessKey: 'w'}, "    Deny and say _why…"},
		{"linux", app.MenuItem{Kind: app.ItemAction, Label: "old_builds: Approve", AccessKey: 'A'}, "old__builds: _Approve"},
		{"linux", app.MenuItem{Kind: app.ItemAction, Label: "    Delete"}, "    Delete"},
		{"linux", app.MenuItem{Kind: app.ItemText, Label: "  $ Deny", AccessKey: 'D'}, "  $ Deny"},
		{"darwin", app.MenuItem{Kind: app.ItemAction, Label: "    Approve", AccessKey: 'A'}, "    Approve"},
	} {
		if got := Text(c.goos, c.it); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.goos, c.it.Label, got, c.want)
		}
	}
}

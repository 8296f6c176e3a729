// Package tray renders the core's Menu in the system tray with
// fyne.io/systray: a StatusNotifierItem with a com.canonical.dbusmenu menu
// over D-Bus on Linux (pure Go), an NSStatusItem on macOS (cgo). Rendering
// happens on the tray's own goroutine so the core's event loop never waits
// on the desktop, and every click is forwarded to the core through a queue
// so none is dropped while the core is busy.
package tray

import (
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/assets"
)

// handle is one item the backend created; clicks arrive on its channel.
type handle interface {
	Clicked() <-chan struct{}
}

// backend is the part of systray the renderer uses. The real one wraps
// fyne.io/systray; tests use a recording fake.
type backend interface {
	// reset removes every item (their click channels close).
	reset()
	// add appends it under parent (nil: the top level) and returns its handle.
	add(parent handle, it app.MenuItem) handle
	separator(parent handle)
	update(h handle, it app.MenuItem)
	hide(h handle)
	show(h handle)
	setIcon(name string, regular, template []byte)
	setTooltip(s string)
	setTitle(s string)
}

// Tray renders menus and forwards clicks. Create it with New; it satisfies
// app.MenuRenderer.
type Tray struct {
	b    backend
	post func(app.Event) bool
	log  *slog.Logger

	mu      sync.Mutex
	latest  *app.Menu
	wake    chan struct{}
	clicks  []string
	clickCh chan struct{}
	done    chan struct{}
	stopped chan struct{} // closed when the render goroutine has returned
	once    sync.Once

	// Owned by the render goroutine.
	shown  *app.Menu
	nodes  []*node // the items systray holds, in its order, hidden ones included
	icon   string
	warned map[string]bool
}

// node is one item systray holds: the model row it shows (as last applied;
// its Children live in kids), its handle (nil for a separator), and
// whether it is hidden.
type node struct {
	item   app.MenuItem
	h      handle
	hidden bool
	kids   []*node
}

// Options configure New.
type Options struct {
	// Post hands a click to the core (app.App.Post). It may block until the
	// core takes the event; clicks queue meanwhile.
	Post   func(app.Event) bool
	Logger *slog.Logger
}

func newTray(b backend, o Options) *Tray {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	t := &Tray{
		b: b, post: o.Post, log: o.Logger,
		wake:    make(chan struct{}, 1),
		clickCh: make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		warned:  map[string]bool{},
	}
	go t.renderLoop()
	go t.clickLoop()
	return t
}

// Render records m as the menu to show and returns at once; the tray's
// goroutine applies the newest menu, skipping ones already superseded.
func (t *Tray) Render(m app.Menu) {
	t.mu.Lock()
	t.latest = &m
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Close stops rendering and click forwarding, and returns once no menu
// change is in flight. Call it before Quit: a change that reached systray
// after its D-Bus connection closed printed one "systray error" line each,
// dozens on every quit.
func (t *Tray) Close() {
	t.once.Do(func() { close(t.done) })
	<-t.stopped
}

func (t *Tray) renderLoop() {
	defer close(t.stopped)
	for {
		select {
		case <-t.wake:
		case <-t.done:
			return
		}
		select {
		case <-t.done: // Close and a Render came together: Close wins
			return
		default:
		}
		t.mu.Lock()
		m := t.latest
		t.mu.Unlock()
		if m != nil {
			t.apply(*m)
		}
	}
}

// apply brings the backend from what it shows to m. Rows that only
// changed text, check or enabled state are updated in place; rows that
// went away are hidden and come back by being shown, so the items (and the
// ids a tray host clicks) stay put. Only a row that systray never held in
// that place forces a rebuild (systray can only append), as does a
// separator that must go (separators cannot be hidden).
func (t *Tray) apply(m app.Menu) {
	t.applyIcon(m.Icon)
	if t.shown == nil || t.shown.Tooltip != m.Tooltip {
		t.b.setTooltip(m.Tooltip)
	}
	if t.shown == nil || t.shown.Title != m.Title {
		t.b.setTitle(m.Title)
	}
	if t.shown != nil && fits(t.nodes, m.Items) && len(t.nodes)-len(m.Items) <= maxHidden {
		t.sync(t.nodes, m.Items)
	} else {
		t.b.reset()
		t.nodes = t.build(nil, m.Items)
	}
	t.shown = &m
}

// maxHidden is how many hidden top-level rows a menu may carry before it
// is rebuilt. Hiding keeps the ids a host clicks stable (Cancel coming and
// going), but tray hosts keep the height of hidden rows: a long pending
// command that went away left the menu reopening blank or scrolled. So
// more than a few rows gone means a fresh menu.
const maxHidden = 4

// Label is what the backend must hand the platform for the row text s so
// the user reads s exactly. dbusmenu (every Linux tray host) takes `_` as
// the mark of an access key and swallows it, so `old_builds` would read
// `oldbuilds`; a doubled `__` is its literal underscore. macOS menus have
// no such marker.
func Label(goos, s string) string {
	if goos == "darwin" {
		return s
	}
	return strings.ReplaceAll(s, "_", "__")
}

// Text is the platform label of it: Label, with it's access key marked
// where the platform has mnemonics. dbusmenu marks the key with a `_`
// before it (the first one not doubled), and GTK and Qt hosts underline
// it and choose the item when it is typed in the open menu. macOS menus
// have no mnemonics; typing there selects by the label's start anyway.
func Text(goos string, it app.MenuItem) string {
	s := Label(goos, it.Label)
	if goos == "darwin" || it.AccessKey == 0 || !Enabled(it) {
		return s
	}
	i := strings.IndexRune(s, it.AccessKey)
	if i < 0 {
		return s
	}
	return s[:i] + "_" + s[i:]
}

// Enabled reports whether the platform may let the user choose it. Only
// actions, checkboxes and submenus can be chosen: a row that is only there
// to be read (a status, an approval's command and reasons) never takes
// the keyboard's focus, so the arrow keys go from answer to answer and
// Enter never closes the menu on a row that does nothing.
func Enabled(it app.MenuItem) bool {
	if it.Disabled {
		return false
	}
	switch it.Kind {
	case app.ItemAction, app.ItemCheckbox, app.ItemSubmenu:
		return true
	}
	return false
}

// matches reports whether node n can show item it.
func matches(n *node, it app.MenuItem) bool {
	return n.item.ID == it.ID && n.item.Kind == it.Kind && (it.Kind != app.ItemSubmenu || fits(n.kids, it.Children))
}

// fits reports whether items can be shown by the existing nodes alone:
// they must appear among the nodes in the same order (IDs are unique), and
// every node left over must be hideable.
func fits(nodes []*node, items []app.MenuItem) bool {
	j := 0
	for _, n := range nodes {
		if j < len(items) && matches(n, items[j]) {
			j++
			continue
		}
		if n.h == nil {
			return false // a separator that would have to disappear
		}
	}
	return j == len(items)
}

// sync updates matched nodes in place and hides the others; fits has
// checked that this is possible.
func (t *Tray) sync(nodes []*node, items []app.MenuItem) {
	j := 0
	for _, n := range nodes {
		if j < len(items) && matches(n, items[j]) {
			it := items[j]
			j++
			if n.h == nil {
				continue
			}
			o := n.item
			if o.Label != it.Label || o.Tooltip != it.Tooltip || o.Checked != it.Checked || o.Disabled != it.Disabled || o.AccessKey != it.AccessKey {
				t.b.update(n.h, it)
			}
			if n.hidden {
				t.b.show(n.h)
				n.hidden = false
			}
			n.item = it
			n.item.Children = nil
			if it.Kind == app.ItemSubmenu {
				t.sync(n.kids, it.Children)
			}
			continue
		}
		if !n.hidden && n.h != nil {
			t.b.hide(n.h)
			n.hidden = true
		}
	}
}

func (t *Tray) applyIcon(name string) {
	if name == "" {
		name = "idle"
	}
	if name == t.icon {
		return
	}
	regular, err := assets.Icon(name + ".png")
	if err != nil {
		if !t.warned[name] {
			t.warned[name] = true
			t.log.Warn("tray icon missing; keeping the previous one", "icon", name, "err", err)
		}
		return
	}
	template, err := assets.Icon(name + "-template@2x.png")
	if err != nil {
		template = nil // the backend falls back to the coloured icon
	}
	t.b.setIcon(name, regular, template)
	t.icon = name
}

func (t *Tray) build(parent handle, items []app.MenuItem) []*node {
	var nodes []*node
	for _, it := range items {
		n := &node{item: it}
		n.item.Children = nil
		nodes = append(nodes, n)
		if it.Kind == app.ItemSeparator {
			t.b.separator(parent)
			continue
		}
		n.h = t.b.add(parent, it)
		if it.Kind == app.ItemAction || it.Kind == app.ItemCheckbox {
			go t.forward(it.ID, n.h.Clicked())
		} else {
			go drain(n.h.Clicked())
		}
		if it.Kind == app.ItemSubmenu {
			n.kids = t.build(n.h, it.Children)
		}
	}
	return nodes
}

// forward moves clicks from one item's channel into the queue. It is always
// receiving (systray drops a click nobody receives) and never blocks on the
// core; the channel closes when the item is removed.
func (t *Tray) forward(id string, ch <-chan struct{}) {
	for range ch {
		t.mu.Lock()
		t.clicks = append(t.clicks, id)
		t.mu.Unlock()
		select {
		case t.clickCh <- struct{}{}:
		default:
		}
	}
}

func drain(ch <-chan struct{}) {
	for range ch {
	}
}

func (t *Tray) clickLoop() {
	for {
		t.mu.Lock()
		var id string
		have := len(t.clicks) > 0
		if have {
			id = t.clicks[0]
			t.clicks = t.clicks[1:]
		}
		t.mu.Unlock()
		if !have {
			select {
			case <-t.clickCh:
				continue
			case <-t.done:
				return
			}
		}
		if t.post != nil && !t.post(app.MenuClick{ID: id}) {
			return // the core has stopped
		}
	}
}

// ErrUnavailable wraps the reasons a tray cannot be shown.
var ErrUnavailable = fmt.Errorf("system tray unavailable on %s", runtime.GOOS)

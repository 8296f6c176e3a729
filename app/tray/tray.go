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
	once    sync.Once

	// Owned by the render goroutine.
	shown   *app.Menu
	handles map[string]handle
	icon    string
	warned  map[string]bool
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
		handles: map[string]handle{},
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

// Close stops rendering and click forwarding.
func (t *Tray) Close() {
	t.once.Do(func() { close(t.done) })
}

func (t *Tray) renderLoop() {
	for {
		select {
		case <-t.wake:
		case <-t.done:
			return
		}
		t.mu.Lock()
		m := t.latest
		t.mu.Unlock()
		if m != nil {
			t.apply(*m)
		}
	}
}

// apply brings the backend from the shown menu to m: in place when only
// labels, checks, tooltips or enabled states changed, else by rebuilding
// (systray can only append items, so a new row in the middle needs one).
func (t *Tray) apply(m app.Menu) {
	t.applyIcon(m.Icon)
	if t.shown == nil || t.shown.Tooltip != m.Tooltip {
		t.b.setTooltip(m.Tooltip)
	}
	if t.shown == nil || t.shown.Title != m.Title {
		t.b.setTitle(m.Title)
	}
	if t.shown != nil && sameShape(t.shown.Items, m.Items) {
		t.updateItems(t.shown.Items, m.Items)
	} else {
		t.b.reset()
		t.handles = map[string]handle{}
		t.build(nil, m.Items)
	}
	t.shown = &m
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

func (t *Tray) build(parent handle, items []app.MenuItem) {
	for _, it := range items {
		if it.Kind == app.ItemSeparator {
			t.b.separator(parent)
			continue
		}
		h := t.b.add(parent, it)
		t.handles[it.ID] = h
		if it.Kind == app.ItemAction || it.Kind == app.ItemCheckbox {
			go t.forward(it.ID, h.Clicked())
		} else {
			go drain(h.Clicked())
		}
		if it.Kind == app.ItemSubmenu {
			t.build(h, it.Children)
		}
	}
}

func (t *Tray) updateItems(old, cur []app.MenuItem) {
	for i := range cur {
		o, n := old[i], cur[i]
		if n.Kind != app.ItemSeparator && (o.Label != n.Label || o.Tooltip != n.Tooltip || o.Checked != n.Checked || o.Disabled != n.Disabled) {
			if h, ok := t.handles[n.ID]; ok {
				t.b.update(h, n)
			}
		}
		if n.Kind == app.ItemSubmenu {
			t.updateItems(o.Children, n.Children)
		}
	}
}

// sameShape reports whether two item lists have the same IDs and kinds in
// the same places, so one can be updated into the other in place.
func sameShape(a, b []app.MenuItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Kind != b[i].Kind || !sameShape(a[i].Children, b[i].Children) {
			return false
		}
	}
	return true
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

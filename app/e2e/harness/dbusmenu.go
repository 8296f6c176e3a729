package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// MenuItem is one node of a com.canonical.dbusmenu layout.
type MenuItem struct {
	ID int32
	// Label is the text a person reads, after the host's handling of
	// access-key markers (see Unmnemonic); Raw is the property as sent.
	Label    string
	Raw      string
	Enabled  bool
	Visible  bool
	Toggle   string // "checkmark" for checkboxes
	Checked  bool
	Children []MenuItem
}

// Menu reads and clicks the menu a StatusNotifierItem exports, as a tray
// host does.
type Menu struct {
	conn *dbus.Conn
	obj  dbus.BusObject
}

// MenuOf connects to the bus at address and addresses the dbusmenu object
// of the StatusNotifierItem that process pid registers (systray names it
// org.kde.StatusNotifierItem-PID-1).
func MenuOf(t testing.TB, address string, pid int) *Menu {
	t.Helper()
	conn, err := dbus.Dial(address)
	if err == nil {
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
	}
	if err != nil {
		t.Fatalf("menu client: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	return &Menu{conn: conn, obj: conn.Object(name, "/StatusNotifierItem/menu")}
}

type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// Layout fetches the whole menu tree. Hidden items are included with
// Visible false.
func (m *Menu) Layout() (MenuItem, error) {
	var rev uint32
	var root layout
	call := m.obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil {
		return MenuItem{}, call.Err
	}
	if err := call.Store(&rev, &root); err != nil {
		return MenuItem{}, err
	}
	return convert(root), nil
}

func convert(l layout) MenuItem {
	it := MenuItem{ID: l.ID, Enabled: true, Visible: true}
	if v, ok := l.Props["label"]; ok {
		it.Raw, _ = v.Value().(string)
		it.Label = Unmnemonic(it.Raw)
	}
	if v, ok := l.Props["enabled"]; ok {
		it.Enabled, _ = v.Value().(bool)
	}
	if v, ok := l.Props["visible"]; ok {
		it.Visible, _ = v.Value().(bool)
	}
	if v, ok := l.Props["toggle-type"]; ok {
		it.Toggle, _ = v.Value().(string)
	}
	if v, ok := l.Props["toggle-state"]; ok {
		n, _ := v.Value().(int32)
		it.Checked = n == 1
	}
	for _, c := range l.Children {
		var child layout
		if err := dbus.Store([]any{c.Value()}, &child); err == nil {
			it.Children = append(it.Children, convert(child))
		}
	}
	return it
}

// Unmnemonic is what a dbusmenu host shows for a label: "__" is a literal
// underscore, and a single "_" marks the next character as the access key
// and is itself not shown (GTK and Qt hosts both do this).
func Unmnemonic(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '_' {
			b.WriteByte(raw[i])
			continue
		}
		if i+1 < len(raw) && raw[i+1] == '_' {
			b.WriteByte('_')
			i++
		}
	}
	return b.String()
}

// Tooltip reads the item's tooltip title, as a host shows on hover.
func (m *Menu) Tooltip() (string, error) {
	var tip struct {
		Icon   string
		Pixmap []struct {
			W, H int32
			Data []byte
		}
		Title, Text string
	}
	item := m.conn.Object(m.obj.Destination(), "/StatusNotifierItem")
	v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		return "", err
	}
	if err := dbus.Store([]any{v.Value()}, &tip); err != nil {
		return "", err
	}
	if tip.Text != "" {
		return tip.Title + " " + tip.Text, nil
	}
	return tip.Title, nil
}

// Rows lists the visible top-level labels in order.
func (it MenuItem) Rows() []string {
	var out []string
	for _, c := range it.Children {
		if c.Visible {
			out = append(out, c.Label)
		}
	}
	return out
}

// Find returns the first visible item whose label, without its indent,
// starts with prefix,
// searching depth first.
func (it MenuItem) Find(prefix string) (MenuItem, bool) {
	for _, c := range it.Children {
		if !c.Visible {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(c.Label), prefix) {
			return c, true
		}
		if f, ok := c.Find(prefix); ok {
			return f, true
		}
	}
	return MenuItem{}, false
}

// Labels lists every visible label, indented by depth, for messages.
func (it MenuItem) Labels() string {
	var b strings.Builder
	var walk func(MenuItem, int)
	walk = func(n MenuItem, depth int) {
		for _, c := range n.Children {
			if !c.Visible {
				continue
			}
			fmt.Fprintf(&b, "%s%q (id %d, enabled %v, checked %v)\n", strings.Repeat("  ", depth), c.Label, c.ID, c.Enabled, c.Checked)
			walk(c, depth+1)
		}
	}
	walk(it, 0)
	return b.String()
}

// WaitFor polls the layout until an item with the label prefix appears
// (submenus fill in after a LayoutUpdated, so one read may be partial).
func (m *Menu) WaitFor(t testing.TB, within time.Duration, prefix string) MenuItem {
	t.Helper()
	var found MenuItem
	var last MenuItem
	Eventually(t, within, "menu item "+prefix, func() error {
		root, err := m.Layout()
		if err != nil {
			return err
		}
		last = root
		f, ok := root.Find(prefix)
		if !ok {
			return fmt.Errorf("not in menu:\n%s", root.Labels())
		}
		found = f
		return nil
	})
	_ = last
	return found
}

// WaitGone polls until no visible item has the label prefix.
func (m *Menu) WaitGone(t testing.TB, within time.Duration, prefix string) {
	t.Helper()
	Eventually(t, within, "menu item gone "+prefix, func() error {
		root, err := m.Layout()
		if err != nil {
			return err
		}
		if _, ok := root.Find(prefix); ok {
			return fmt.Errorf("still in menu:\n%s", root.Labels())
		}
		return nil
	})
}

// Click sends the "clicked" event a tray host sends when an item is chosen.
func (m *Menu) Click(id int32) error {
	return m.obj.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err
}

// Watcher is a fake org.kde.StatusNotifierWatcher: it records the items
// that register, as a tray host would before showing them.
type Watcher struct {
	conn  *dbus.Conn
	items chan string
}

// FakeWatcher owns org.kde.StatusNotifierWatcher on the bus at address.
func FakeWatcher(t testing.TB, address string) *Watcher {
	t.Helper()
	conn, err := dbus.Dial(address)
	if err == nil {
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
	}
	if err != nil {
		t.Fatalf("fake watcher: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &Watcher{conn: conn, items: make(chan string, 16)}
	table := map[string]any{
		"RegisterStatusNotifierItem": func(sender dbus.Sender, service string) *dbus.Error {
			w.items <- string(sender) + service
			return nil
		},
		"RegisterStatusNotifierHost": func(service string) *dbus.Error { return nil },
	}
	if err := conn.ExportMethodTable(table, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fake watcher: cannot own the name (%v)", err)
	}
	return w
}

// Registered returns the next registration (sender bus name + object
// path), or fails after the timeout.
func (w *Watcher) Registered(t testing.TB, within time.Duration) string {
	t.Helper()
	select {
	case s := <-w.items:
		return s
	case <-time.After(within):
		t.Fatalf("no StatusNotifierItem registered within %v", within)
	}
	return ""
}

// ClickUntil clicks the item with the label prefix until done reports
// success. A tray host can click an item the app has just replaced (the
// menu is rebuilt when rows come and go); systray then drops the click, as
// a person would see nothing happen and click again. done must therefore
// check the effect, and the action must be safe to repeat until it shows.
func (m *Menu) ClickUntil(t testing.TB, within time.Duration, prefix string, done func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	var err error
	for time.Now().Before(deadline) {
		it := m.WaitFor(t, time.Until(deadline), prefix)
		if cerr := m.Click(it.ID); cerr != nil {
			err = cerr
			continue
		}
		settle := time.Now().Add(3 * time.Second)
		for time.Now().Before(settle) {
			if err = done(); err == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Fatalf("clicking %q had no effect within %v: %v", prefix, within, err)
}

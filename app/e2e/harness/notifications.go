package harness

import (
	"fmt"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// Notification is one Notify call the fake server received.
type Notification struct {
	ID      uint32
	AppName string
	AppIcon string
	Summary string
	Body    string
	Actions []string // key, label, key, label…
	Hints   map[string]dbus.Variant
	Timeout int32
	Closed  bool // CloseNotification was called, or the test dismissed it
}

// HasAction reports whether the notification offers the action key.
func (n Notification) HasAction(key string) bool {
	for i := 0; i+1 < len(n.Actions); i += 2 {
		if n.Actions[i] == key {
			return true
		}
	}
	return false
}

// ActionKey returns the key of the action with that label ("Approve").
func (n Notification) ActionKey(label string) string {
	for i := 0; i+1 < len(n.Actions); i += 2 {
		if n.Actions[i+1] == label {
			return n.Actions[i]
		}
	}
	return ""
}

// Notifications is a fake org.freedesktop.Notifications server: it records
// every call, lists the capabilities it was given, and emits ActionInvoked
// and NotificationClosed when the test says so.
type Notifications struct {
	conn *dbus.Conn
	caps []string

	mu   sync.Mutex
	list []*Notification
	next uint32
}

// FakeNotifications starts the fake server on the bus at address and owns
// the well-known name until the test ends.
func FakeNotifications(t testing.TB, address string, caps ...string) *Notifications {
	t.Helper()
	conn, err := dbus.Dial(address)
	if err == nil {
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
	}
	if err != nil {
		t.Fatalf("fake notification server: connecting to %s: %v", address, err)
	}
	t.Cleanup(func() { conn.Close() })
	f := &Notifications{conn: conn, caps: caps, next: 100}
	table := map[string]any{
		"Notify":               f.notify,
		"GetCapabilities":      func() ([]string, *dbus.Error) { return f.caps, nil },
		"CloseNotification":    f.close,
		"GetServerInformation": func() (string, string, string, string, *dbus.Error) { return "hark-fake", "hark", "1", "1.2", nil },
	}
	if err := conn.ExportMethodTable(table, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fake notification server: cannot own the name (%v, reply %d)", err, reply)
	}
	return f
}

func (f *Notifications) notify(appName string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.list = append(f.list, &Notification{ID: f.next, AppName: appName, AppIcon: icon, Summary: summary, Body: body, Actions: actions, Hints: hints, Timeout: timeout})
	return f.next, nil
}

func (f *Notifications) close(id uint32) *dbus.Error {
	f.mu.Lock()
	var found *Notification
	for _, n := range f.list {
		if n.ID == id && !n.Closed {
			n.Closed = true
			found = n
		}
	}
	f.mu.Unlock()
	if found != nil {
		// Reason 3: closed by a call to CloseNotification.
		f.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.NotificationClosed", id, uint32(3))
	}
	return nil
}

// All returns a copy of every notification received so far.
func (f *Notifications) All() []Notification {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Notification, len(f.list))
	for i, n := range f.list {
		out[i] = *n
	}
	return out
}

// Invoke emits ActionInvoked(id, key), as when the user clicks a button.
func (f *Notifications) Invoke(id uint32, key string) error {
	return f.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", id, key)
}

// Dismiss marks the notification closed and emits NotificationClosed with
// reason 2 (dismissed by the user).
func (f *Notifications) Dismiss(id uint32) error {
	f.mu.Lock()
	for _, n := range f.list {
		if n.ID == id {
			n.Closed = true
		}
	}
	f.mu.Unlock()
	return f.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.NotificationClosed", id, uint32(2))
}

// String lists the notifications, for failure messages.
func (f *Notifications) String() string {
	s := ""
	for _, n := range f.All() {
		s += fmt.Sprintf("#%d %q %q actions=%v closed=%v\n", n.ID, n.Summary, n.Body, n.Actions, n.Closed)
	}
	return s
}

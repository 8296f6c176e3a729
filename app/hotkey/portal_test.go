//go:build linux || freebsd || netbsd || openbsd

package hotkey

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hark-sh/hark/app/e2e/harness"
)

func portalBus(t *testing.T) (*harness.Portal, *dbus.Conn) {
	t.Helper()
	addr := harness.SessionBus(t)
	p := harness.FakePortal(t, addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return p, conn
}

func portalNext(t *testing.T, l *PortalListener) Event {
	t.Helper()
	select {
	case e := <-l.Events():
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event from the portal listener")
	}
	return Event{}
}

// The portal's Request/Response dance binds listen (with the configured
// hotkey as the preferred trigger) and cancel; Activated and Deactivated
// become Down and Up whose spacing is the desktop's own timestamps, the
// cancel shortcut becomes Cancel, and the trigger the desktop assigned is
// what the listener reports, also after ShortcutsChanged.
func TestPortalShortcuts(t *testing.T) {
	p, conn := portalBus(t)
	p.Assign(PortalListen, "Ctrl+Alt+Space (assigned)")
	combo, _ := Parse("ctrl+alt+space")
	// Signals arrive by a clock the test moves: each arrives 50 ms after
	// the desktop stamped it.
	var mu sync.Mutex
	arrival := time.Now()
	l, err := RegisterPortal(combo, PortalOptions{Conn: conn, RepeatWindow: time.Millisecond, now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return arrival
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := p.Preferred(PortalListen); got != "CTRL+ALT+space" {
		t.Errorf("preferred trigger %q, want CTRL+ALT+space", got)
	}
	if got := l.Trigger(PortalListen); got != "Ctrl+Alt+Space (assigned)" {
		t.Errorf("trigger %q, want the one the desktop assigned", got)
	}
	if calls := p.Calls(); len(calls) < 2 || calls[0] != "CreateSession" || calls[1] != "BindShortcuts" {
		t.Errorf("calls %v, want CreateSession then BindShortcuts", calls)
	}

	// A hold of 1.5 s by the desktop's clock, whatever the delivery does.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	arrive := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		arrival = arrival.Add(d)
	}
	const now = uint64(7_000_000) // the desktop's base is its own
	must(p.Activate(PortalListen, now))
	down := portalNext(t, l)
	arrive(1520 * time.Millisecond)
	must(p.Deactivate(PortalListen, now+1500))
	up := portalNext(t, l)
	if down.Kind != Down || up.Kind != Up {
		t.Fatalf("events %v, %v; want down, up", down.Kind, up.Kind)
	}
	if held := up.At.Sub(down.At); held != 1500*time.Millisecond {
		t.Errorf("held %v by the events, want the desktop's 1.5 s", held)
	}
	// Repeated Activated while held (a desktop that repeats) is one press.
	arrive(time.Second)
	must(p.Activate(PortalListen, now+2500))
	must(p.Activate(PortalListen, now+2530))
	arrive(100 * time.Millisecond)
	must(p.Deactivate(PortalListen, now+2560))
	if e := portalNext(t, l); e.Kind != Down {
		t.Errorf("got %v, want down", e.Kind)
	}
	if e := portalNext(t, l); e.Kind != Up {
		t.Errorf("got %v, want up after a repeated activation", e.Kind)
	}
	must(p.Activate(PortalCancel, now+2600))
	if e := portalNext(t, l); e.Kind != Cancel {
		t.Errorf("cancel shortcut gave %v, want cancel", e.Kind)
	}
	must(p.Reassign(PortalListen, "Super+H"))
	select {
	case <-l.Changed():
	case <-time.After(10 * time.Second):
		t.Fatal("no change after ShortcutsChanged")
	}
	if got := l.Trigger(PortalListen); got != "Super+H" {
		t.Errorf("trigger after ShortcutsChanged %q, want Super+H", got)
	}
	l.Close()
	harness.Eventually(t, 5*time.Second, "session closed", func() error {
		if n := p.Open(); n != 0 {
			return harness.Errorf("%d sessions open", n)
		}
		return nil
	})
}

// KDE Plasma 5.27 behind xdg-desktop-portal 1.16 binds at CreateSession and
// opens System Settings on every BindShortcuts: Hark binds there and calls
// BindShortcuts only when the listen shortcut came back without a key,
// where the settings page is what the user needs.
func TestPortalBindOnCreate(t *testing.T) {
	combo, _ := Parse("ctrl+alt+space")
	t.Run("bound at CreateSession", func(t *testing.T) {
		p, conn := portalBus(t)
		p.BindOnCreate()
		p.Assign(PortalListen, "Ctrl+Alt+Space")
		l, err := RegisterPortal(combo, PortalOptions{Conn: conn})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if got := l.Trigger(PortalListen); got != "Ctrl+Alt+Space" {
			t.Errorf("trigger %q, want the one bound at CreateSession", got)
		}
		if got := p.Preferred(PortalListen); got != "CTRL+ALT+space" {
			t.Errorf("preferred trigger %q at CreateSession, want CTRL+ALT+space", got)
		}
		if calls := p.Calls(); len(calls) != 1 || calls[0] != "CreateSession" {
			t.Errorf("calls %v, want CreateSession alone", calls)
		}
	})
	t.Run("no key at CreateSession", func(t *testing.T) {
		p, conn := portalBus(t)
		p.BindOnCreate()
		p.Assign(PortalListen, "")
		l, err := RegisterPortal(combo, PortalOptions{Conn: conn})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if calls := p.Calls(); len(calls) < 2 || calls[1] != "BindShortcuts" {
			t.Errorf("calls %v, want BindShortcuts after CreateSession", calls)
		}
		if got := l.Trigger(PortalListen); got != "" {
			t.Errorf("trigger %q, want none", got)
		}
	})
}

// kglobalaccel on X11 (KDE Plasma 5.27's, Debian 12's) stamps a release
// with the press's own time: the hold is then measured by arrival, so a
// 700 ms hold stays a hold instead of reading as a 0 ms tap.
func TestPortalReleaseStampedAsPress(t *testing.T) {
	p, conn := portalBus(t)
	combo, _ := Parse("ctrl+alt+space")
	var mu sync.Mutex
	arrival := time.Now()
	l, err := RegisterPortal(combo, PortalOptions{Conn: conn, RepeatWindow: time.Millisecond, now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return arrival
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const stamp = uint64(508011)
	if err := p.Activate(PortalListen, stamp); err != nil {
		t.Fatal(err)
	}
	down := portalNext(t, l)
	mu.Lock()
	arrival = arrival.Add(700 * time.Millisecond)
	mu.Unlock()
	if err := p.Deactivate(PortalListen, stamp); err != nil {
		t.Fatal(err)
	}
	up := portalNext(t, l)
	if down.Kind != Down || up.Kind != Up {
		t.Fatalf("events %v, %v; want down, up", down.Kind, up.Kind)
	}
	if held := up.At.Sub(down.At); held != 700*time.Millisecond {
		t.Errorf("held %v, want the 700 ms between arrivals", held)
	}
}

// Closing the desktop's dialog is ErrDeclined; a bus without the portal
// is ErrNoPortal.
func TestPortalRefusals(t *testing.T) {
	p, conn := portalBus(t)
	p.Decline()
	combo, _ := Parse("ctrl+alt+space")
	if _, err := RegisterPortal(combo, PortalOptions{Conn: conn}); !errors.Is(err, ErrDeclined) {
		t.Errorf("declined bind: %v, want ErrDeclined", err)
	}
	bare, err := dbus.Connect(harness.SessionBus(t))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if _, err := RegisterPortal(combo, PortalOptions{Conn: bare}); !errors.Is(err, ErrNoPortal) {
		t.Errorf("no portal: %v, want ErrNoPortal", err)
	}
}

func TestTriggerSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"ctrl+alt+space":  "CTRL+ALT+space",
		"super+shift+f12": "SHIFT+LOGO+F12",
		"ctrl+return":     "CTRL+Return",
		"alt+backspace":   "ALT+BackSpace",
		"ctrl+alt+h":      "CTRL+ALT+h",
	} {
		c, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Trigger(c); got != want {
			t.Errorf("Trigger(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestWaylandSession(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"XDG_SESSION_TYPE": "wayland"}, true},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{map[string]string{"XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"}, false},
		{nil, false},
	} {
		if got := WaylandSession(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %v, want %v", c.env, got, c.want)
		}
	}
}

// Another program on the session bus can emit the portal's signals with
// Hark's session handle (it is predictable); only the portal's own are
// obeyed, so nobody else starts or ends listening.
func TestPortalIgnoresOtherSenders(t *testing.T) {
	addr := harness.SessionBus(t)
	p := harness.FakePortal(t, addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	combo, _ := Parse("ctrl+alt+space")
	l, err := RegisterPortal(combo, PortalOptions{Conn: conn, RepeatWindow: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.mu.Lock()
	session := l.session
	l.mu.Unlock()
	spoofer, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer spoofer.Close()
	if err := spoofer.Emit(portalPath, shortcutsIface+".Activated", session, PortalListen, uint64(1), map[string]dbus.Variant{}); err != nil {
		t.Fatal(err)
	}
	// The bus handles one connection's messages in order: once this call
	// returns, the spoofed signals have been routed ahead of the portal's.
	if err := spoofer.BusObject().Call("org.freedesktop.DBus.GetId", 0).Err; err != nil {
		t.Fatal(err)
	}
	if err := p.Activate(PortalCancel, 2); err != nil {
		t.Fatal(err)
	}
	if e := portalNext(t, l); e.Kind != Cancel {
		t.Errorf("first event %v, want the portal's Cancel: another program's Activated was obeyed", e.Kind)
	}
}

//go:build linux || freebsd || netbsd || openbsd

package hotkey

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The XDG GlobalShortcuts portal is how a Wayland desktop (KDE Plasma 5.27+,
// GNOME 48+, Hyprland) lends an application a global key: the application
// names actions and a preferred trigger, the desktop asks the user once and
// then signals Activated and Deactivated as the key goes down and up. Every
// call follows the portal's Request pattern: the reply is a Request object
// path, and the answer arrives later as that object's Response signal, so
// the listener subscribes to the path it expects before it calls.
const (
	portalDest     = "org.freedesktop.portal.Desktop"
	portalPath     = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	shortcutsIface = "org.freedesktop.portal.GlobalShortcuts"
	requestIface   = "org.freedesktop.portal.Request"
	sessionIface   = "org.freedesktop.portal.Session"
)

// PortalOptions configure RegisterPortal.
type PortalOptions struct {
	// Conn is the session bus; nil connects to it.
	Conn *dbus.Conn
	// Cancel is the preferred trigger of the cancel shortcut ("" leaves it
	// to the user, as Escape cannot be lent for a moment).
	Cancel Combo
	// Answer bounds how long the desktop may take to answer one request;
	// the bind waits for the user, so zero means two minutes.
	Answer time.Duration
	// RepeatWindow as in Options.
	RepeatWindow time.Duration

	now func() time.Time // the arrival clock; tests move it
}

// PortalListener delivers Down and Up for the listen shortcut and Cancel
// for the cancel one, through the same debouncing as the X11 grab, so the
// app's key machine cannot tell them apart.
type PortalListener struct {
	conn    *dbus.Conn
	own     bool
	session dbus.ObjectPath
	pump    *pump
	signals chan *dbus.Signal
	answer  time.Duration
	now     func() time.Time

	mu       sync.Mutex
	waiting  map[dbus.ObjectPath]chan *dbus.Signal
	triggers map[string]string // shortcut ID → the trigger the desktop assigned
	changed  chan struct{}
	clock    clockMap
	pressTS  uint64 // the desktop's stamp on listen's last Activated
	// owner is the portal's unique name on the bus. Any program there
	// can emit a signal with the portal's path and Hark's session handle
	// (both predictable); only the bus sets a signal's sender truthfully.
	owner string

	closeOnce sync.Once
	done      chan struct{}
}

// Events delivers Down, Up and Cancel events until Close.
func (l *PortalListener) Events() <-chan Event { return l.pump.out }

// Trigger is how the desktop says the shortcut id is triggered ("" when it
// left it unassigned).
func (l *PortalListener) Trigger(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.triggers[id]
}

// Changed is signalled (without blocking, at most one pending) whenever the
// desktop reassigns a trigger.
func (l *PortalListener) Changed() <-chan struct{} { return l.changed }

// RegisterPortal binds the listen and cancel shortcuts through the
// GlobalShortcuts portal, with listen's preferred trigger the configured
// combination. It waits for the desktop's answer, which may be a dialog.
func RegisterPortal(c Combo, o PortalOptions) (*PortalListener, error) {
	conn, own := o.Conn, false
	if conn == nil {
		var err error
		if conn, err = dbus.ConnectSessionBus(); err != nil {
			return nil, fmt.Errorf("%w: no session bus (%v)", ErrNoPortal, err)
		}
		own = true
	}
	l := &PortalListener{
		conn: conn, own: own, answer: o.Answer, now: o.now,
		signals:  make(chan *dbus.Signal, 64),
		waiting:  map[dbus.ObjectPath]chan *dbus.Signal{},
		triggers: map[string]string{},
		changed:  make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if l.answer <= 0 {
		l.answer = 2 * time.Minute
	}
	if l.now == nil {
		l.now = time.Now
	}
	fail := func(err error) (*PortalListener, error) {
		l.shutdown()
		return nil, err
	}
	if err := l.probe(); err != nil {
		return fail(err)
	}
	conn.Signal(l.signals)
	for _, m := range []string{"Activated", "Deactivated", "ShortcutsChanged"} {
		if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(portalPath), dbus.WithMatchInterface(shortcutsIface), dbus.WithMatchMember(m)); err != nil {
			return fail(fmt.Errorf("%w: cannot watch the portal (%v)", ErrNoPortal, err))
		}
	}
	l.pump = newPump(Options{RepeatWindow: o.RepeatWindow})
	go l.dispatch()

	shortcuts := []shortcut{{PortalListen, map[string]dbus.Variant{
		"description":       dbus.MakeVariant("Talk to Hark (hold, or tap to start and tap to send)"),
		"preferred_trigger": dbus.MakeVariant(Trigger(c)),
	}}}
	cancel := map[string]dbus.Variant{"description": dbus.MakeVariant("Cancel what Hark is doing")}
	if o.Cancel.Key != "" {
		cancel["preferred_trigger"] = dbus.MakeVariant(Trigger(o.Cancel))
	}
	shortcuts = append(shortcuts, shortcut{PortalCancel, cancel})
	res, err := l.request("CreateSession", func(opts map[string]dbus.Variant) []any {
		opts["session_handle_token"] = dbus.MakeVariant(sessionToken)
		// KDE Plasma 5.27 and 6.0 bind the shortcuts named here and
		// ignore BindShortcuts' list; portals from 1.18 on drop the
		// option before the desktop sees it.
		opts["shortcuts"] = dbus.MakeVariant(shortcuts)
		return []any{opts}
	})
	if err != nil {
		return fail(err)
	}
	var sh string
	if v, ok := res["session_handle"]; ok {
		switch x := v.Value().(type) {
		case string:
			sh = x
		case dbus.ObjectPath:
			sh = string(x)
		}
	}
	if !dbus.ObjectPath(sh).IsValid() {
		return fail(fmt.Errorf("the portal created a session without a valid handle (%q)", sh))
	}
	l.session = dbus.ObjectPath(sh)

	if !boundAll(res["shortcuts"], shortcuts) {
		// Plasma 5.27's BindShortcuts opens System Settings each time, so
		// it is called only when CreateSession left something to bind.
		res, err = l.request("BindShortcuts", func(opts map[string]dbus.Variant) []any {
			return []any{l.session, shortcuts, "", opts}
		})
		if err != nil {
			return fail(err)
		}
	}
	l.setTriggers(res["shortcuts"])
	if l.Trigger(PortalListen) == "" {
		// Bound without a trigger: ListShortcuts may still know one the
		// user gave in an earlier session.
		if res, err := l.request("ListShortcuts", func(opts map[string]dbus.Variant) []any {
			return []any{l.session, opts}
		}); err == nil {
			l.setTriggers(res["shortcuts"])
		}
	}
	select { // what Trigger says now is no change for the caller
	case <-l.changed:
	default:
	}
	return l, nil
}

// shortcut is one (sa{sv}) of the portal's shortcut lists.
type shortcut struct {
	ID   string
	Info map[string]dbus.Variant
}

// boundAll says whether the shortcut list v (a(sa{sv}), from the portal)
// has every one of want, with a trigger for listen: then the desktop bound
// them at CreateSession, as KDE Plasma 5.27 and 6.0 do behind portals
// before 1.18, and BindShortcuts would add nothing.
func boundAll(v dbus.Variant, want []shortcut) bool {
	var list []shortcut
	if v.Value() == nil || dbus.Store([]any{v.Value()}, &list) != nil {
		return false
	}
	got := map[string]string{}
	for _, s := range list {
		t := ""
		if d, ok := s.Info["trigger_description"]; ok {
			t, _ = d.Value().(string)
		}
		got[s.ID] = t
	}
	for _, s := range want {
		t, ok := got[s.ID]
		if !ok || (s.ID == PortalListen && t == "") {
			return false
		}
	}
	return true
}

// probe checks that the portal is there and has GlobalShortcuts.
func (l *PortalListener) probe() error {
	v, err := l.conn.Object(portalDest, portalPath).GetProperty(shortcutsIface + ".version")
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoPortal, err)
	}
	if n, ok := v.Value().(uint32); !ok || n < 1 {
		return fmt.Errorf("%w (version %v)", ErrNoPortal, v.Value())
	}
	// The portal answered, so it owns its name now (it may have been
	// started for this call).
	if err := l.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, portalDest).Store(&l.owner); err != nil {
		return fmt.Errorf("%w (%v)", ErrNoPortal, err)
	}
	return nil
}

// request makes one portal call that answers through a Request object.
// args builds the call's arguments around its options, which already hold
// the handle token.
func (l *PortalListener) request(method string, args func(map[string]dbus.Variant) []any) (map[string]dbus.Variant, error) {
	tok := token()
	path := requestPath(l.conn, tok)
	ch := make(chan *dbus.Signal, 1)
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(requestIface), dbus.WithMatchMember("Response")}
	if err := l.conn.AddMatchSignal(match...); err != nil {
		return nil, err
	}
	defer l.conn.RemoveMatchSignal(match...)
	l.wait(path, ch)
	defer l.unwait(path)
	var handle dbus.ObjectPath
	call := l.conn.Object(portalDest, portalPath).Call(shortcutsIface+"."+method, 0, args(map[string]dbus.Variant{"handle_token": dbus.MakeVariant(tok)})...)
	if err := call.Store(&handle); err != nil {
		return nil, fmt.Errorf("portal %s: %w", method, err)
	}
	if handle != path {
		// An older portal that ignores handle_token: wait on its path.
		l.wait(handle, ch)
		defer l.unwait(handle)
	}
	timer := time.NewTimer(l.answer)
	defer timer.Stop()
	select {
	case sig := <-ch:
		var code uint32
		var results map[string]dbus.Variant
		if err := dbus.Store(sig.Body, &code, &results); err != nil {
			return nil, fmt.Errorf("portal %s: an answer Hark cannot read: %w", method, err)
		}
		switch code {
		case 0:
			return results, nil
		case 1:
			return nil, ErrDeclined
		default:
			return nil, fmt.Errorf("portal %s ended without an answer (response %d)", method, code)
		}
	case <-timer.C:
		l.conn.Object(portalDest, handle).Call(requestIface+".Close", dbus.FlagNoReplyExpected)
		return nil, fmt.Errorf("portal %s: no answer within %v", method, l.answer)
	case <-l.done:
		return nil, errors.New("closed")
	}
}

func (l *PortalListener) wait(path dbus.ObjectPath, ch chan *dbus.Signal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting[path] = ch
}

func (l *PortalListener) unwait(path dbus.ObjectPath) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.waiting, path)
}

// dispatch routes the bus's signals: Responses to the request waiting for
// them, the shortcuts' own signals to the pump.
func (l *PortalListener) dispatch() {
	for {
		select {
		case <-l.done:
			return
		case sig, ok := <-l.signals:
			if !ok {
				l.pump.Close()
				return
			}
			l.handle(sig)
		}
	}
}

// fromPortal says whether sender is the portal. A sender other than the
// one known is checked once against the name's current owner, for a
// portal that was restarted.
func (l *PortalListener) fromPortal(sender string) bool {
	l.mu.Lock()
	owner := l.owner
	l.mu.Unlock()
	if sender == "" || sender == owner {
		return sender != ""
	}
	var now string
	if l.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, portalDest).Store(&now) != nil || now != sender {
		return false
	}
	l.mu.Lock()
	l.owner = now
	l.mu.Unlock()
	return true
}

func (l *PortalListener) handle(sig *dbus.Signal) {
	if sig.Name == requestIface+".Response" {
		l.mu.Lock()
		ch := l.waiting[sig.Path]
		l.mu.Unlock()
		if ch != nil && l.fromPortal(sig.Sender) {
			select {
			case ch <- sig:
			default:
			}
		}
		return
	}
	if sig.Path != portalPath || len(sig.Body) < 2 {
		return
	}
	session, _ := sig.Body[0].(dbus.ObjectPath)
	l.mu.Lock()
	ours := session != "" && session == l.session
	l.mu.Unlock()
	if !ours {
		return // another application's session
	}
	if !l.fromPortal(sig.Sender) {
		return // another program speaking for the portal
	}
	switch sig.Name {
	case shortcutsIface + ".ShortcutsChanged":
		l.storeTriggers(sig.Body[1])
	case shortcutsIface + ".Activated", shortcutsIface + ".Deactivated":
		id, _ := sig.Body[1].(string)
		var ts uint64
		if len(sig.Body) > 2 {
			ts, _ = sig.Body[2].(uint64)
		}
		down := sig.Name == shortcutsIface+".Activated"
		if id == PortalListen {
			// kglobalaccel on X11 stamps a release with the time of the
			// last press, so a hold would read as a tap; a release that
			// is not later than its press is measured on arrival.
			if down {
				l.pressTS = ts
			} else if ts != 0 && ts <= l.pressTS {
				ts = 0
			}
		}
		at := l.clock.at(ts, l.now())
		switch {
		case id == PortalListen && down:
			l.pump.Press(at)
		case id == PortalListen:
			l.pump.Release(at)
		case id == PortalCancel && down:
			l.pump.Emit(Event{Kind: Cancel, At: at})
		}
	}
}

// setTriggers records the triggers of a shortcut list (a(sa{sv})).
func (l *PortalListener) setTriggers(v dbus.Variant) { l.storeTriggers(v.Value()) }

func (l *PortalListener) storeTriggers(v any) {
	var list []shortcut
	if err := dbus.Store([]any{v}, &list); err != nil {
		return
	}
	l.mu.Lock()
	for _, s := range list {
		t := ""
		if d, ok := s.Info["trigger_description"]; ok {
			t, _ = d.Value().(string)
		}
		l.triggers[s.ID] = t
	}
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Close ends the portal session, so the desktop forgets the grab.
func (l *PortalListener) Close() error {
	l.shutdown()
	return nil
}

func (l *PortalListener) shutdown() {
	l.closeOnce.Do(func() {
		close(l.done)
		if l.session != "" {
			l.conn.Object(portalDest, l.session).Call(sessionIface+".Close", 0)
		}
		l.conn.RemoveSignal(l.signals)
		if l.pump != nil {
			l.pump.Close()
		}
		if l.own {
			l.conn.Close()
		}
	})
}

// clockMap turns the portal's millisecond timestamps, whose base is
// undefined, into times on this machine's clock: the first signal anchors
// the base, later ones keep their spacing, so a hold is measured by the
// desktop's own clock. A timestamp that would lie in the future or too
// far back (another base, a wrapped clock) re-anchors.
const clockSlack = 30 * time.Second

type clockMap struct {
	set      bool
	baseTS   uint64
	baseTime time.Time
}

func (c *clockMap) at(ts uint64, now time.Time) time.Time {
	if ts == 0 {
		return now
	}
	if c.set && ts >= c.baseTS {
		t := c.baseTime.Add(time.Duration(ts-c.baseTS) * time.Millisecond)
		if !t.After(now) && now.Sub(t) < clockSlack {
			return t
		}
	}
	c.set, c.baseTS, c.baseTime = true, ts, now
	return now
}

// requestPath is where the portal puts the Request object for token: the
// caller's unique name without ':' and with '.' as '_'.
func requestPath(conn *dbus.Conn, tok string) dbus.ObjectPath {
	return objectPath(conn, "request", tok)
}

func objectPath(conn *dbus.Conn, kind, tok string) dbus.ObjectPath {
	sender := ""
	if names := conn.Names(); len(names) > 0 {
		sender = strings.ReplaceAll(strings.TrimPrefix(names[0], ":"), ".", "_")
	}
	return dbus.ObjectPath("/org/freedesktop/portal/desktop/" + kind + "/" + sender + "/" + tok)
}

// sessionToken ends the session's path. It is the same on every launch
// because KDE names the keys' owner after it (kglobalaccel's component
// "token_hark" on Plasma 6, "hark" on 5.27): a fresh token each launch
// would leave the last launch's component holding the trigger, so the
// key would be "already taken" and never fire, and what the user chose in
// System Settings would be forgotten. The bus's unique name in the path
// keeps it apart from any other session.
const sessionToken = "hark"

func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "hark_" + hex.EncodeToString(b)
}

// PortalAvailable says whether the session bus has a portal with
// GlobalShortcuts (nil), for `hark doctor`; it binds nothing.
func PortalAvailable() error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("%w: no session bus (%v)", ErrNoPortal, err)
	}
	defer conn.Close()
	return (&PortalListener{conn: conn}).probe()
}

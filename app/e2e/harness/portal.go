package harness

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// Portal is a stand-in for xdg-desktop-portal's GlobalShortcuts, faithful
// to the specification where a client can tell: every call answers with a
// Request object path built from the caller's unique name and its
// handle_token, the answer comes later as that object's Response signal
// (0 success, 1 cancelled by the user, 2 other), sessions live at
// /org/freedesktop/portal/desktop/session/SENDER/TOKEN with a Close
// method, and Activated / Deactivated / ShortcutsChanged are emitted on the
// portal object with the session handle first and a millisecond timestamp
// of undefined base.
type Portal struct {
	conn *dbus.Conn

	mu sync.Mutex
	// Decline makes the next BindShortcuts answer "cancelled by the user",
	// as closing the desktop's dialog does.
	decline bool
	// bindOnCreate: KDE Plasma 5.27's way (see BindOnCreate).
	bindOnCreate bool
	// Assign maps a shortcut ID to the trigger description the "user"
	// chose; an ID missing from it gets its preferred trigger.
	assign   map[string]string
	sessions map[dbus.ObjectPath]*portalSession
	calls    []string
}

type portalSession struct {
	owner     string
	bound     []portalShortcut
	preferred map[string]string
	closed    bool
}

type portalShortcut struct {
	ID   string
	Info map[string]dbus.Variant
}

// FakePortal claims org.freedesktop.portal.Desktop on the bus at address.
func FakePortal(t testing.TB, address string) *Portal {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatalf("fake portal: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &Portal{conn: conn, assign: map[string]string{}, sessions: map[dbus.ObjectPath]*portalSession{}}
	const path = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	if err := conn.ExportMethodTable(map[string]any{
		"CreateSession":      p.createSession,
		"BindShortcuts":      p.bindShortcuts,
		"ListShortcuts":      p.listShortcuts,
		"ConfigureShortcuts": func(dbus.Sender, dbus.ObjectPath, string, map[string]dbus.Variant) *dbus.Error { return nil },
	}, path, "org.freedesktop.portal.GlobalShortcuts"); err != nil {
		t.Fatal(err)
	}
	if _, err := prop.Export(conn, path, prop.Map{"org.freedesktop.portal.GlobalShortcuts": {
		"version": {Value: uint32(2), Writable: false, Emit: prop.EmitFalse},
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.portal.Desktop", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fake portal: cannot own org.freedesktop.portal.Desktop (%v, %v)", reply, err)
	}
	return p
}

// Decline makes the next bind fail as if the user closed the dialog.
func (p *Portal) Decline() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decline = true
}

// BindOnCreate makes the portal behave as KDE Plasma 5.27 and 6.0 do
// behind xdg-desktop-portal 1.16 (Debian 12): CreateSession binds the
// shortcuts of its "shortcuts" option and answers with them, and
// BindShortcuts only opens the desktop's shortcut settings, answering
// with what is bound.
func (p *Portal) BindOnCreate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bindOnCreate = true
}

// Assign sets the trigger the "user" picks for a shortcut ID in the next
// bind ("" leaves it unassigned).
func (p *Portal) Assign(id, trigger string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.assign[id] = trigger
}

// Calls lists the methods called so far, in order.
func (p *Portal) Calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// Preferred is the trigger the client asked for id in its last bind.
func (p *Portal) Preferred(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sessions {
		if t, ok := s.preferred[id]; ok {
			return t
		}
	}
	return ""
}

// Open counts the sessions not closed.
func (p *Portal) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.sessions {
		if !s.closed {
			n++
		}
	}
	return n
}

func senderPart(sender dbus.Sender) string {
	return strings.ReplaceAll(strings.TrimPrefix(string(sender), ":"), ".", "_")
}

func tokenOf(opts map[string]dbus.Variant, fallback string) string {
	if v, ok := opts["handle_token"]; ok {
		if s, ok := v.Value().(string); ok && s != "" {
			return s
		}
	}
	return fallback
}

// respond answers a request later, as the real portal does once the
// backend (or the user) has answered.
func (p *Portal) respond(path dbus.ObjectPath, code uint32, results map[string]dbus.Variant) {
	go func() {
		p.conn.Emit(path, "org.freedesktop.portal.Request.Response", code, results)
		p.conn.Export(nil, path, "org.freedesktop.portal.Request")
	}()
}

func (p *Portal) exportRequest(path dbus.ObjectPath) {
	p.conn.ExportMethodTable(map[string]any{"Close": func() *dbus.Error { return nil }}, path, "org.freedesktop.portal.Request")
}

func (p *Portal) createSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	p.calls = append(p.calls, "CreateSession")
	stok := "s" + fmt.Sprint(len(p.sessions)+1)
	if v, ok := opts["session_handle_token"]; ok {
		if s, ok := v.Value().(string); ok && s != "" {
			stok = s
		}
	}
	session := dbus.ObjectPath("/org/freedesktop/portal/desktop/session/" + senderPart(sender) + "/" + stok)
	s := &portalSession{owner: string(sender), preferred: map[string]string{}}
	p.sessions[session] = s
	results := map[string]dbus.Variant{}
	if p.bindOnCreate {
		var list []portalShortcut
		if v, ok := opts["shortcuts"]; ok {
			dbus.Store([]any{v.Value()}, &list)
		}
		p.bindLocked(s, list)
		results["shortcuts"] = dbus.MakeVariant(s.bound)
	}
	p.mu.Unlock()
	p.conn.ExportMethodTable(map[string]any{"Close": func() *dbus.Error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if s := p.sessions[session]; s != nil {
			s.closed = true
		}
		return nil
	}}, session, "org.freedesktop.portal.Session")
	req := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + senderPart(sender) + "/" + tokenOf(opts, "c1"))
	p.exportRequest(req)
	// The specification's own wart: session_handle is a string.
	results["session_handle"] = dbus.MakeVariant(string(session))
	p.respond(req, 0, results)
	return req, nil
}

func (p *Portal) bindShortcuts(sender dbus.Sender, session dbus.ObjectPath, shortcuts []portalShortcut, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	p.calls = append(p.calls, "BindShortcuts")
	s := p.sessions[session]
	if s == nil || s.owner != string(sender) {
		p.mu.Unlock()
		return "", dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"no such session"})
	}
	req := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + senderPart(sender) + "/" + tokenOf(opts, "b1"))
	if p.decline {
		p.decline = false
		p.mu.Unlock()
		p.exportRequest(req)
		p.respond(req, 1, map[string]dbus.Variant{})
		return req, nil
	}
	if !p.bindOnCreate {
		p.bindLocked(s, shortcuts)
	}
	bound := s.bound
	p.mu.Unlock()
	p.exportRequest(req)
	p.respond(req, 0, map[string]dbus.Variant{"shortcuts": dbus.MakeVariant(bound)})
	return req, nil
}

// bindLocked binds shortcuts in s, each with the trigger Assign gave it or
// else its preferred one.
func (p *Portal) bindLocked(s *portalSession, shortcuts []portalShortcut) {
	s.bound = []portalShortcut{}
	for _, sc := range shortcuts {
		pref := ""
		if v, ok := sc.Info["preferred_trigger"]; ok {
			pref, _ = v.Value().(string)
		}
		s.preferred[sc.ID] = pref
		trig, ok := p.assign[sc.ID]
		if !ok {
			trig = pref
		}
		s.bound = append(s.bound, portalShortcut{sc.ID, map[string]dbus.Variant{
			"description":         sc.Info["description"],
			"trigger_description": dbus.MakeVariant(trig),
		}})
	}
}

func (p *Portal) listShortcuts(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	p.calls = append(p.calls, "ListShortcuts")
	s := p.sessions[session]
	p.mu.Unlock()
	if s == nil {
		return "", dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"no such session"})
	}
	req := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + senderPart(sender) + "/" + tokenOf(opts, "l1"))
	p.exportRequest(req)
	p.respond(req, 0, map[string]dbus.Variant{"shortcuts": dbus.MakeVariant(s.bound)})
	return req, nil
}

// session is the one open session (the tests have one client).
func (p *Portal) session() (dbus.ObjectPath, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for path, s := range p.sessions {
		if !s.closed && s.bound != nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no bound session")
}

// Activate and Deactivate emit the signals of a key going down and up at
// the desktop's timestamp ts (milliseconds, any base).
func (p *Portal) Activate(id string, ts uint64) error   { return p.emitKey("Activated", id, ts) }
func (p *Portal) Deactivate(id string, ts uint64) error { return p.emitKey("Deactivated", id, ts) }

func (p *Portal) emitKey(member, id string, ts uint64) error {
	session, err := p.session()
	if err != nil {
		return err
	}
	return p.conn.Emit("/org/freedesktop/portal/desktop", "org.freedesktop.portal.GlobalShortcuts."+member, session, id, ts, map[string]dbus.Variant{})
}

// Reassign changes the trigger of id, as the desktop's settings would,
// and says so with ShortcutsChanged.
func (p *Portal) Reassign(id, trigger string) error {
	session, err := p.session()
	if err != nil {
		return err
	}
	p.mu.Lock()
	s := p.sessions[session]
	for i, sc := range s.bound {
		if sc.ID == id {
			s.bound[i].Info["trigger_description"] = dbus.MakeVariant(trigger)
		}
	}
	bound := s.bound
	p.mu.Unlock()
	return p.conn.Emit("/org/freedesktop/portal/desktop", "org.freedesktop.portal.GlobalShortcuts.ShortcutsChanged", session, bound)
}

package desktop

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"

	"github.com/hark-sh/hark/app"
)

// The freedesktop notification interface (Desktop Notifications spec 1.2).
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = "/org/freedesktop/Notifications"
	notifyIface = "org.freedesktop.Notifications"

	actionApprove = "hark-approve"
	actionDeny    = "hark-deny"
	actionTrash   = "hark-trash"
	// actionSayAgain drops the command of a misheard spoken request and
	// listens for the request again (Pending.SayAgain).
	actionSayAgain = "hark-say-again"
	// actionUndo puts back what a Trash result moved (NotifyKeyUndo).
	actionUndo = "hark-undo"

	closedByUser = 2 // NotificationClosed reason: dismissed by the user
)

// DBus talks to the desktop's notification server over a private session
// bus connection, so nothing else in the process (systray shares the
// default one) sees our signals or can close our connection.
type DBus struct {
	conn    *dbus.Conn
	obj     dbus.BusObject
	appName string
	icon    string // app_icon: an absolute PNG path, else the theme name
	log     *slog.Logger

	mu      sync.Mutex
	caps    map[string]bool
	capsErr error
	asks    map[uint32]*ask // by notification id
	byPend  map[string]uint32
	// keyed are the notifications posted with NotifyKey, by key.
	keyed map[string]uint32
	// undos are the Undo buttons of NotifyKeyUndo, by notification id.
	undos   map[uint32]func()
	closed  bool
	signals chan *dbus.Signal
	// server is the notification server's unique name, as last checked:
	// any program on the bus can emit ActionInvoked with a guessed id,
	// and only the sender the bus stamps on a signal tells them apart.
	server string
}

type ask struct {
	pendingID string
	answer    func(app.Decision)
	// post shows the notification again (called with d.mu held); back
	// says it already came back once after a dismissal.
	post func() (uint32, error)
	back bool
	// again: the notification carries Say it again.
	again bool
}

// actionFor is the notification action key of each answer.
var actionFor = map[app.AnswerKind]string{
	app.AnswerTrash:   actionTrash,
	app.AnswerDeny:    actionDeny,
	app.AnswerApprove: actionApprove,
}

// DBusOptions configure NewDBus.
type DBusOptions struct {
	// Address of the bus; empty means the session bus from the environment.
	Address string
	AppName string // shown by the server; default "Hark"
	// Icon is the absolute path of the PNG notifications carry; empty
	// means Hark's own icon, cached by CachedIcon.
	Icon   string
	Logger *slog.Logger
}

// NewDBus connects to the session bus. It fails only when there is no bus;
// a missing notification server shows up later as Actions() false and as
// errors from Notify and Ask (D-Bus activation may still start one).
func NewDBus(o DBusOptions) (*DBus, error) {
	if o.AppName == "" {
		o.AppName = "Hark"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Icon == "" {
		if p, err := CachedIcon(""); err == nil {
			o.Icon = p
		} else {
			o.Logger.Warn("notifications go without Hark's icon", "err", err)
			o.Icon = appIcon
		}
	}
	var conn *dbus.Conn
	var err error
	if o.Address != "" {
		conn, err = dbus.Dial(o.Address)
	} else {
		conn, err = dbus.SessionBusPrivate()
	}
	if err != nil {
		return nil, fmt.Errorf("no D-Bus session bus (%v); is DBUS_SESSION_BUS_ADDRESS set?", err)
	}
	if err = conn.Auth(nil); err == nil {
		err = conn.Hello()
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot use the D-Bus session bus: %v", err)
	}
	d := &DBus{
		conn: conn, obj: conn.Object(notifyName, notifyPath),
		appName: o.AppName, icon: o.Icon, log: o.Logger,
		asks: map[uint32]*ask{}, byPend: map[string]uint32{},
		signals: make(chan *dbus.Signal, 32),
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchInterface(notifyIface), dbus.WithMatchMember(member), dbus.WithMatchObjectPath(notifyPath)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("cannot subscribe to notification signals: %v", err)
		}
	}
	conn.Signal(d.signals)
	go d.handleSignals()
	d.capabilities()
	return d, nil
}

// capabilities asks the server what it can do, once it has answered.
func (d *DBus) capabilities() (map[string]bool, error) {
	d.mu.Lock()
	if d.caps != nil {
		defer d.mu.Unlock()
		return d.caps, nil
	}
	d.mu.Unlock()
	var list []string
	err := d.obj.Call(notifyIface+".GetCapabilities", 0).Store(&list)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.capsErr = fmt.Errorf("no notification server on the session bus (%v)", err)
		return nil, d.capsErr
	}
	d.caps = map[string]bool{}
	for _, c := range list {
		d.caps[c] = true
	}
	d.capsErr = nil
	return d.caps, nil
}

// Actions reports whether the server shows buttons on notifications.
func (d *DBus) Actions() bool {
	caps, err := d.capabilities()
	return err == nil && caps["actions"]
}

// Status says what works, for the status line; empty when all is well.
func (d *DBus) Status() string {
	caps, err := d.capabilities()
	switch {
	case err != nil:
		return err.Error() + " — approve commands from the tray menu"
	case !caps["actions"]:
		return "the notification server cannot show Approve/Deny buttons — approve commands from the tray menu"
	}
	return ""
}

func (d *DBus) text(s string) string {
	caps, _ := d.capabilities()
	if caps["body-markup"] {
		// Servers with markup would read "<" in a command as a tag.
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	}
	return s
}

// appIcon is the icon theme name `make install` gives Hark (hicolor
// hark.png, beside hark.desktop); the desktop-entry hint lets servers that
// look icons up by the launcher find it too.
const appIcon = "hark"

func (d *DBus) withAppHints(h map[string]dbus.Variant) map[string]dbus.Variant {
	out := make(map[string]dbus.Variant, len(h)+2)
	for k, v := range h {
		out[k] = v
	}
	out["desktop-entry"] = dbus.MakeVariant("hark")
	if filepath.IsAbs(d.icon) {
		// Servers that ignore app_icon when a desktop entry is named
		// (or show app_icon small) read the image from here.
		out["image-path"] = dbus.MakeVariant("file://" + d.icon)
	}
	return out
}

func (d *DBus) notify(summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, error) {
	var id uint32
	hints = d.withAppHints(hints)
	err := d.obj.Call(notifyIface+".Notify", 0, d.appName, uint32(0), d.icon, summary, d.text(body), actions, hints, timeout).Store(&id)
	if err != nil {
		return 0, fmt.Errorf("posting a notification: %v", err)
	}
	return id, nil
}

// Notify posts an ordinary notification that the server expires on its own.
func (d *DBus) Notify(title, body string) error {
	_, err := d.notify(title, body, []string{}, map[string]dbus.Variant{}, -1)
	return err
}

// NotifyKey posts a notification that a later NotifyKey with the same
// key replaces and CloseKey withdraws (a settings error once the file is
// fixed).
func (d *DBus) NotifyKey(key, title, body string) error {
	return d.notifyKey(key, title, body, nil)
}

// NotifyKeyUndo is NotifyKey with an Undo button, where the server shows
// buttons; a click calls undo once and closes the notification.
func (d *DBus) NotifyKeyUndo(key, title, body string, undo func()) error {
	return d.notifyKey(key, title, body, undo)
}

func (d *DBus) notifyKey(key, title, body string, undo func()) error {
	actions := []string{}
	if undo != nil && d.Actions() {
		actions = []string{actionUndo, "Undo"}
	}
	d.mu.Lock()
	old := d.keyed[key]
	delete(d.undos, old)
	d.mu.Unlock()
	var id uint32
	err := d.obj.Call(notifyIface+".Notify", 0, d.appName, old, d.icon, title, d.text(body), actions, d.withAppHints(map[string]dbus.Variant{}), int32(-1)).Store(&id)
	if err != nil {
		return fmt.Errorf("posting a notification: %v", err)
	}
	d.mu.Lock()
	if d.keyed == nil {
		d.keyed = map[string]uint32{}
	}
	d.keyed[key] = id
	if len(actions) > 0 {
		if d.undos == nil {
			d.undos = map[uint32]func(){}
		}
		d.undos[id] = undo
	}
	d.mu.Unlock()
	return nil
}

// CloseKey withdraws the notification NotifyKey posted under key, if any;
// one the server already closed is no error.
func (d *DBus) CloseKey(key string) error {
	d.mu.Lock()
	id, ok := d.keyed[key]
	delete(d.keyed, key)
	delete(d.undos, id)
	d.mu.Unlock()
	if !ok {
		return nil
	}
	if err := d.obj.Call(notifyIface+".CloseNotification", 0, id).Err; err != nil {
		return fmt.Errorf("closing notification %d: %v", id, err)
	}
	return nil
}

// Ask posts an approval request. With the actions capability it carries
// Approve and Deny buttons and stays until answered or withdrawn; without
// it, it only tells the user to approve from the menu.
func (d *DBus) Ask(p app.Pending, answer func(app.Decision)) error {
	if !d.Actions() {
		_, err := d.notify(approvalTitle(p), approvalBody(p)+"\n\nApprove or deny it from the Hark menu.", []string{}, map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(2))}, 0)
		return err
	}
	hints := map[string]dbus.Variant{
		"urgency":  dbus.MakeVariant(byte(2)), // critical: do not expire or fold away
		"resident": dbus.MakeVariant(true),
		"category": dbus.MakeVariant("x-hark.approval"),
	}
	// Hold the lock across the call so a signal for the new id cannot be
	// handled before the id is recorded.
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("notifications are shut down")
	}
	// One order on every surface: the safe choice first and marked.
	// Servers that show fewer buttons keep the first ones, so what may go
	// is running it. Always allow is no button: one click would save a
	// rule unseen, so it is in the menu, behind what the rule matches.
	var actions []string
	for _, a := range app.Answers(p, false) {
		actions = append(actions, actionFor[a.Kind], a.Label)
	}
	if p.SayAgain {
		// Last: a server that shows fewer buttons keeps the answers.
		actions = append(actions, actionSayAgain, app.SayAgainLabel)
	}
	body := approvalBody(p)
	post := func() (uint32, error) {
		var id uint32
		err := d.obj.Call(notifyIface+".Notify", 0, d.appName, uint32(0), d.icon, approvalTitle(p), d.textLocked(body),
			actions, d.withAppHints(hints), int32(0)).Store(&id)
		return id, err
	}
	id, err := post()
	if err != nil {
		return fmt.Errorf("posting the approval notification: %v", err)
	}
	d.asks[id] = &ask{pendingID: p.ID, answer: answer, post: post, again: p.SayAgain}
	d.byPend[p.ID] = id
	return nil
}

func (d *DBus) textLocked(s string) string {
	if d.caps["body-markup"] {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	}
	return s
}

// Withdraw closes the approval notification of pending id, if still open.
func (d *DBus) Withdraw(pendingID string) error {
	d.mu.Lock()
	id, ok := d.byPend[pendingID]
	if ok {
		delete(d.byPend, pendingID)
		delete(d.asks, id)
	}
	d.mu.Unlock()
	if !ok {
		return nil
	}
	if err := d.obj.Call(notifyIface+".CloseNotification", 0, id).Err; err != nil {
		return fmt.Errorf("closing notification %d: %v", id, err)
	}
	return nil
}

// fromServer says whether sender is the notification server: the one
// known, or else the current owner of its name (a server that was started
// for the first notification, or restarted).
func (d *DBus) fromServer(sender string) bool {
	if sender == "" {
		return false
	}
	if sender == d.server {
		return true
	}
	var owner string
	if d.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, notifyName).Store(&owner) != nil || owner != sender {
		return false
	}
	d.server = owner // only handleSignals reads and writes it
	return true
}

// handleSignals answers for our own notifications only: other programs'
// ids are ignored, and each ask is answered at most once.
func (d *DBus) handleSignals() {
	for sig := range d.signals {
		if sig == nil || len(sig.Body) < 2 || !d.fromServer(sig.Sender) {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		switch sig.Name {
		case notifyIface + ".ActionInvoked":
			key, _ := sig.Body[1].(string)
			if key == actionUndo {
				d.mu.Lock()
				undo := d.undos[id]
				delete(d.undos, id)
				d.mu.Unlock()
				if undo != nil {
					undo()
					go d.obj.Call(notifyIface+".CloseNotification", 0, id)
				}
				continue
			}
			if key != actionApprove && key != actionDeny && key != actionTrash && key != actionSayAgain {
				// "default" (a click on the body) decides nothing, nor
				// does a key this notification never had.
				continue
			}
			d.mu.Lock()
			a := d.asks[id]
			if a != nil && key == actionSayAgain && !a.again {
				a = nil // a button this notification never showed
			}
			if a != nil {
				delete(d.asks, id)
				delete(d.byPend, a.pendingID)
			}
			d.mu.Unlock()
			if a == nil {
				continue
			}
			a.answer(app.Decision{PendingID: a.pendingID, Approved: key == actionApprove, Trash: key == actionTrash,
				Again: key == actionSayAgain, By: app.ByNotification})
			// Resident notifications stay after an action; take it away.
			go d.obj.Call(notifyIface+".CloseNotification", 0, id)
		case notifyIface + ".NotificationClosed":
			// Dismissed without a choice (a click on the body closes it on
			// some servers): it comes back once, so the buttons are not
			// lost to a stray click; a second dismissal leaves the menu
			// and the timeout to decide.
			reason, _ := sig.Body[1].(uint32)
			d.mu.Lock()
			delete(d.undos, id)
			if a := d.asks[id]; a != nil {
				delete(d.asks, id)
				delete(d.byPend, a.pendingID)
				if reason == closedByUser && !a.back && !d.closed {
					if nid, err := a.post(); err == nil {
						a.back = true
						d.asks[nid] = a
						d.byPend[a.pendingID] = nid
					}
				}
			}
			d.mu.Unlock()
		}
	}
}

// Close withdraws nothing (the core has withdrawn what it asked) and drops
// the connection.
func (d *DBus) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	return d.conn.Close()
}

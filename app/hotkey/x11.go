//go:build linux || freebsd || netbsd || openbsd

package hotkey

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

func init() {
	// xgb logs connection trouble to stderr on its own; Hark reports it
	// through errors instead.
	xgb.Logger = log.New(io.Discard, "", 0)
}

// X11 keysyms of the keys a Combo may name (from X11/keysymdef.h).
func keysym(key string) (xproto.Keysym, bool) {
	switch key {
	case "space":
		return 0x0020, true
	case "return":
		return 0xff0d, true
	case "escape":
		return 0xff1b, true
	case "tab":
		return 0xff09, true
	case "backspace":
		return 0xff08, true
	}
	if len(key) == 1 {
		return xproto.Keysym(key[0]), true // ASCII letters and digits are their own keysyms
	}
	if n, ok := fkey(key); ok && n >= 1 && n <= 20 {
		return xproto.Keysym(0xffbe + n - 1), true
	}
	return 0, false
}

const (
	ksNumLock    = 0xff7f
	ksScrollLock = 0xff14
	ksAltL       = 0xffe9
	ksAltR       = 0xffea
	ksMetaL      = 0xffe7
	ksSuperL     = 0xffeb
	ksSuperR     = 0xffec
)

// Listener delivers debounced events for one grabbed combination.
type Listener struct {
	conn  *xgb.Conn
	root  xproto.Window
	code  xproto.Keycode
	masks []uint16
	pump  *pump
	// XKB detectable auto-repeat is on: the server sends no fake releases.
	detectable bool
	closeOnce  sync.Once
	done       chan struct{}
}

// Events delivers Down and Up events until Close.
func (l *Listener) Events() <-chan Event { return l.pump.out }

// DetectableAutoRepeat reports whether the X server suppresses the fake
// release events of auto-repeat for this client.
func (l *Listener) DetectableAutoRepeat() bool { return l.detectable }

// Register grabs combo on the X11 display named by $DISPLAY.
func Register(c Combo, o Options) (*Listener, error) {
	return RegisterDisplay(os.Getenv("DISPLAY"), c, o)
}

// RegisterDisplay grabs combo on the named X11 display. Without a display
// the error wraps ErrUnavailable; when another client holds the combination
// it wraps ErrTaken.
func RegisterDisplay(display string, c Combo, o Options) (*Listener, error) {
	return open(display, c, o, true)
}

// open connects to display and resolves c; with grab it also grabs c, so
// the listener reports it from the start.
func open(display string, c Combo, o Options, grab bool) (*Listener, error) {
	if display == "" {
		msg := "no X11 display (DISPLAY is not set)"
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			msg = "this Wayland session offers no X11 display (DISPLAY is not set)"
		}
		return nil, fmt.Errorf("%w: %s; speak through the tray's Type a request… item or `hark send`", ErrUnavailable, msg)
	}
	sym, ok := keysym(c.Key)
	if !ok {
		return nil, fmt.Errorf("hotkey: key %q cannot be grabbed on X11", c.Key)
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect to X display %q (%v); check DISPLAY and that the X server allows this user", ErrUnavailable, display, err)
	}
	l := &Listener{conn: conn, root: xproto.Setup(conn).DefaultScreen(conn).Root, done: make(chan struct{})}
	err = l.resolve(c, sym)
	if err == nil && grab {
		err = l.grabMasks(c)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	l.detectable = enableDetectableAutoRepeat(conn)
	if l.detectable && o.RepeatWindow == 0 {
		// The server sends no fake release+press pairs, so a release is
		// real the moment it arrives; waiting would only delay the end of
		// the recording. Repeat presses are still dropped.
		o.RepeatWindow = time.Millisecond
	}
	l.pump = newPump(o)
	go l.read()
	return l, nil
}

// resolve finds the keycode and every modifier mask to grab: the
// combination's own modifiers with each subset of the lock modifiers, so
// NumLock or CapsLock being on does not disable the hotkey.
func (l *Listener) resolve(c Combo, sym xproto.Keysym) error {
	setup := xproto.Setup(l.conn)
	minK, maxK := setup.MinKeycode, setup.MaxKeycode
	km, err := xproto.GetKeyboardMapping(l.conn, minK, byte(maxK-minK+1)).Reply()
	if err != nil {
		return fmt.Errorf("%w: reading the keyboard mapping: %v", ErrUnavailable, err)
	}
	per := int(km.KeysymsPerKeycode)
	codesOf := func(want ...xproto.Keysym) []xproto.Keycode {
		var out []xproto.Keycode
		for i := 0; i*per < len(km.Keysyms); i++ {
			for _, s := range km.Keysyms[i*per : (i+1)*per] {
				for _, w := range want {
					if s == w {
						out = append(out, xproto.Keycode(int(minK)+i))
					}
				}
			}
		}
		return out
	}
	codes := codesOf(sym)
	if len(codes) == 0 {
		return fmt.Errorf("%w: the keyboard layout has no %q key; choose another hotkey in settings", ErrUnavailable, c.Key)
	}
	l.code = codes[0]

	mm, err := xproto.GetModifierMapping(l.conn).Reply()
	if err != nil {
		return fmt.Errorf("%w: reading the modifier mapping: %v", ErrUnavailable, err)
	}
	// maskOf finds which of the eight modifier slots holds one of the keys.
	maskOf := func(syms ...xproto.Keysym) uint16 {
		keys := codesOf(syms...)
		n := int(mm.KeycodesPerModifier)
		for mod := 0; mod < 8; mod++ {
			for _, kc := range mm.Keycodes[mod*n : (mod+1)*n] {
				for _, k := range keys {
					if kc != 0 && kc == k {
						return 1 << mod
					}
				}
			}
		}
		return 0
	}
	var mods uint16
	if c.Mods&Ctrl != 0 {
		mods |= xproto.ModMaskControl
	}
	if c.Mods&Shift != 0 {
		mods |= xproto.ModMaskShift
	}
	if c.Mods&Alt != 0 {
		m := maskOf(ksAltL, ksAltR, ksMetaL)
		if m == 0 {
			m = xproto.ModMask1
		}
		mods |= m
	}
	if c.Mods&Super != 0 {
		m := maskOf(ksSuperL, ksSuperR)
		if m == 0 {
			m = xproto.ModMask4
		}
		mods |= m
	}
	locks := []uint16{xproto.ModMaskLock}
	if m := maskOf(ksNumLock); m != 0 && m&mods == 0 {
		locks = append(locks, m)
	}
	if m := maskOf(ksScrollLock); m != 0 && m&mods == 0 {
		locks = append(locks, m)
	}
	// Every subset of the lock modifiers.
	for set := 0; set < 1<<len(locks); set++ {
		m := mods
		for i, lk := range locks {
			if set&(1<<i) != 0 {
				m |= lk
			}
		}
		l.masks = append(l.masks, m)
	}
	return nil
}

// grabMasks grabs every mask resolve found, or none of them.
func (l *Listener) grabMasks(c Combo) error {
	for _, m := range l.masks {
		err := xproto.GrabKeyChecked(l.conn, false, l.root, m, l.code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			l.ungrab()
			var access xproto.AccessError
			if errors.As(err, &access) {
				return fmt.Errorf("%w: %s; choose another \"hotkey\" in settings", ErrTaken, c)
			}
			return fmt.Errorf("%w: grabbing %s: %v", ErrUnavailable, c, err)
		}
	}
	return nil
}

func (l *Listener) ungrab() {
	for _, m := range l.masks {
		xproto.UngrabKey(l.conn, l.code, l.root, m)
	}
}

// read turns X key events into raw presses and releases. Without detectable
// auto-repeat, a held key produces release+press pairs with the same server
// timestamp; such a release is held back until the next event shows whether
// its press twin follows, and the debouncer catches what slips through.
func (l *Listener) read() {
	defer l.pump.Close()
	type ev struct {
		press bool
		time  xproto.Timestamp
		at    time.Time
	}
	events := make(chan ev, 64)
	go func() {
		defer close(events)
		for {
			e, xerr := l.conn.WaitForEvent()
			if e == nil && xerr == nil {
				return // connection closed
			}
			switch e := e.(type) {
			case xproto.KeyPressEvent:
				if e.Detail == l.code {
					events <- ev{press: true, time: e.Time, at: time.Now()}
				}
			case xproto.KeyReleaseEvent:
				if e.Detail == l.code {
					events <- ev{press: false, time: e.Time, at: time.Now()}
				}
			}
		}
	}()
	var held *ev // a release waiting for its possible auto-repeat twin
	var twin <-chan time.Time
	for {
		select {
		case e, ok := <-events:
			if !ok {
				if held != nil {
					l.pump.Release(held.at)
				}
				return
			}
			if held != nil {
				r := *held
				held, twin = nil, nil
				if e.press && e.time == r.time {
					continue // auto-repeat: drop the pair
				}
				l.pump.Release(r.at)
			}
			if e.press {
				l.pump.Press(e.at)
				continue
			}
			if l.detectable {
				l.pump.Release(e.at)
				continue
			}
			r := e
			held = &r
			// The twin press arrives in the same burst; a few ms is plenty.
			twin = time.After(5 * time.Millisecond)
		case <-twin:
			l.pump.Release(held.at)
			held, twin = nil, nil
		}
	}
}

// Close releases the grab and stops the event channel.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		l.ungrab()
		// A round trip makes sure the ungrab reached the server before the
		// connection goes away.
		xproto.GetInputFocus(l.conn).Reply()
		l.conn.Close()
		close(l.done)
	})
	return nil
}

// enableDetectableAutoRepeat asks XKB to stop sending the fake releases of
// auto-repeat (PerClientFlags DetectableAutoRepeat). xgb has no XKB binding,
// so the two requests are written by hand from the XKB protocol spec.
func enableDetectableAutoRepeat(c *xgb.Conn) bool {
	ext, err := xproto.QueryExtension(c, uint16(len("XKEYBOARD")), "XKEYBOARD").Reply()
	if err != nil || !ext.Present {
		return false
	}
	op := ext.MajorOpcode
	// UseExtension(wantedMajor=1, wantedMinor=0): must precede other XKB requests.
	use := make([]byte, 8)
	use[0], use[1] = op, 0
	xgb.Put16(use[2:], 2)
	xgb.Put16(use[4:], 1)
	xgb.Put16(use[6:], 0)
	ck := c.NewCookie(true, true)
	c.NewRequest(use, ck)
	reply, err := ck.Reply()
	if err != nil || len(reply) < 2 || reply[1] == 0 {
		return false
	}
	// PerClientFlags(deviceSpec=UseCoreKbd, change=value=DetectableAutoRepeat).
	const useCoreKbd, detectableAutoRepeat = 0x0100, 1
	req := make([]byte, 28)
	req[0], req[1] = op, 21
	xgb.Put16(req[2:], 7)
	xgb.Put16(req[4:], useCoreKbd)
	xgb.Put32(req[8:], detectableAutoRepeat)
	xgb.Put32(req[12:], detectableAutoRepeat)
	ck = c.NewCookie(true, true)
	c.NewRequest(req, ck)
	reply, err = ck.Reply()
	if err != nil || len(reply) < 16 {
		return false
	}
	return xgb.Get32(reply[12:])&detectableAutoRepeat != 0 // the reply's value field
}

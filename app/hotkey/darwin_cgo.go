//go:build darwin && cgo

package hotkey

import (
	"fmt"
	"sync"
	"time"
)

// Listener delivers debounced events for one registered combination.
type Listener struct {
	id   uint32
	pump *pump
	once sync.Once
}

// Events delivers Down and Up events until Close.
func (l *Listener) Events() <-chan Event { return l.pump.out }

// DetectableAutoRepeat is false: Carbon hot keys are not documented to
// suppress repeat presses, so the full debounce window applies.
func (l *Listener) DetectableAutoRepeat() bool { return false }

// macKeys are Carbon's virtual key codes (kVK_* in HIToolbox's Events.h).
// Letters and digits are kVK_ANSI_*: key positions on a US keyboard, not
// the characters the current layout puts there (docs/settings.md says so).
var macKeys = map[string]uint32{
	"space": 0x31, "return": 0x24, "escape": 0x35, "tab": 0x30, "backspace": 0x33,
	"a": 0x00, "b": 0x0B, "c": 0x08, "d": 0x02, "e": 0x0E, "f": 0x03, "g": 0x05, "h": 0x04, "i": 0x22,
	"j": 0x26, "k": 0x28, "l": 0x25, "m": 0x2E, "n": 0x2D, "o": 0x1F, "p": 0x23, "q": 0x0C, "r": 0x0F,
	"s": 0x01, "t": 0x11, "u": 0x20, "v": 0x09, "w": 0x0D, "x": 0x07, "y": 0x10, "z": 0x06,
	"0": 0x1D, "1": 0x12, "2": 0x13, "3": 0x14, "4": 0x15, "5": 0x17, "6": 0x16, "7": 0x1A, "8": 0x1C, "9": 0x19,
	"f1": 0x7A, "f2": 0x78, "f3": 0x63, "f4": 0x76, "f5": 0x60, "f6": 0x61, "f7": 0x62, "f8": 0x64, "f9": 0x65,
	"f10": 0x6D, "f11": 0x67, "f12": 0x6F, "f13": 0x69, "f14": 0x6B, "f15": 0x71, "f16": 0x6A, "f17": 0x40,
	"f18": 0x4F, "f19": 0x50, "f20": 0x5A,
}

// Carbon's modifier bits (cmdKey, shiftKey, optionKey, controlKey).
const (
	carbonCmd     = 0x0100
	carbonShift   = 0x0200
	carbonOption  = 0x0800
	carbonControl = 0x1000
)

// Register registers combo as a Carbon hot key. Call it from systray's
// onReady goroutine (never the main thread, which runs the Cocoa loop that
// delivers the hot key events).
func Register(c Combo, o Options) (*Listener, error) {
	key, ok := macKeys[c.Key]
	if !ok {
		return nil, fmt.Errorf("hotkey: key %q has no macOS key code", c.Key)
	}
	var mods uint32
	for _, m := range []struct {
		mod    Modifier
		carbon uint32
	}{{Ctrl, carbonControl}, {Alt, carbonOption}, {Shift, carbonShift}, {Super, carbonCmd}} {
		if c.Mods&m.mod != 0 {
			mods |= m.carbon
		}
	}
	p := newPump(o)
	id, err := carbonKeys.add(key, mods, func(down bool, at time.Time) {
		if down {
			p.Press(at)
		} else {
			p.Release(at)
		}
	})
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%w: %s (%v); choose another \"hotkey\" in settings", ErrTaken, c.MacString(), err)
	}
	return &Listener{id: id, pump: p}, nil
}

// Close unregisters the hot key.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		err = carbonKeys.remove(l.id)
		l.pump.Close()
	})
	return err
}

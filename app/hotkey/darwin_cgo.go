//go:build darwin && cgo

package hotkey

import (
	"fmt"
	"sync"
	"time"

	"golang.design/x/hotkey"
)

// Listener delivers debounced events for one registered combination.
type Listener struct {
	hk   *hotkey.Hotkey
	pump *pump
	stop chan struct{}
	once sync.Once
}

// Events delivers Down and Up events until Close.
func (l *Listener) Events() <-chan Event { return l.pump.out }

// DetectableAutoRepeat is false: Carbon hot keys are not documented to
// suppress repeat presses, so the full debounce window applies.
func (l *Listener) DetectableAutoRepeat() bool { return false }

var macKeys = map[string]hotkey.Key{
	"space": hotkey.KeySpace, "return": hotkey.KeyReturn, "escape": hotkey.KeyEscape,
	"tab": hotkey.KeyTab, "backspace": hotkey.KeyDelete,
	"a": hotkey.KeyA, "b": hotkey.KeyB, "c": hotkey.KeyC, "d": hotkey.KeyD, "e": hotkey.KeyE,
	"f": hotkey.KeyF, "g": hotkey.KeyG, "h": hotkey.KeyH, "i": hotkey.KeyI, "j": hotkey.KeyJ,
	"k": hotkey.KeyK, "l": hotkey.KeyL, "m": hotkey.KeyM, "n": hotkey.KeyN, "o": hotkey.KeyO,
	"p": hotkey.KeyP, "q": hotkey.KeyQ, "r": hotkey.KeyR, "s": hotkey.KeyS, "t": hotkey.KeyT,
	"u": hotkey.KeyU, "v": hotkey.KeyV, "w": hotkey.KeyW, "x": hotkey.KeyX, "y": hotkey.KeyY,
	"z": hotkey.KeyZ,
	"0": hotkey.Key0, "1": hotkey.Key1, "2": hotkey.Key2, "3": hotkey.Key3, "4": hotkey.Key4,
	"5": hotkey.Key5, "6": hotkey.Key6, "7": hotkey.Key7, "8": hotkey.Key8, "9": hotkey.Key9,
	"f1": hotkey.KeyF1, "f2": hotkey.KeyF2, "f3": hotkey.KeyF3, "f4": hotkey.KeyF4, "f5": hotkey.KeyF5,
	"f6": hotkey.KeyF6, "f7": hotkey.KeyF7, "f8": hotkey.KeyF8, "f9": hotkey.KeyF9, "f10": hotkey.KeyF10,
	"f11": hotkey.KeyF11, "f12": hotkey.KeyF12, "f13": hotkey.KeyF13, "f14": hotkey.KeyF14, "f15": hotkey.KeyF15,
	"f16": hotkey.KeyF16, "f17": hotkey.KeyF17, "f18": hotkey.KeyF18, "f19": hotkey.KeyF19, "f20": hotkey.KeyF20,
}

// Register registers combo as a Carbon hot key. Call it from systray's
// onReady goroutine (never the main thread, which runs the Cocoa loop that
// delivers the hot key events).
func Register(c Combo, o Options) (*Listener, error) {
	key, ok := macKeys[c.Key]
	if !ok {
		return nil, fmt.Errorf("hotkey: key %q has no macOS key code", c.Key)
	}
	var mods []hotkey.Modifier
	if c.Mods&Ctrl != 0 {
		mods = append(mods, hotkey.ModCtrl)
	}
	if c.Mods&Alt != 0 {
		mods = append(mods, hotkey.ModOption)
	}
	if c.Mods&Shift != 0 {
		mods = append(mods, hotkey.ModShift)
	}
	if c.Mods&Super != 0 {
		mods = append(mods, hotkey.ModCmd)
	}
	hk := hotkey.New(mods, key)
	if err := hk.Register(); err != nil {
		return nil, fmt.Errorf("%w: %s (%v); choose another \"hotkey\" in settings", ErrTaken, c.MacString(), err)
	}
	l := &Listener{hk: hk, pump: newPump(o), stop: make(chan struct{})}
	go l.read()
	return l, nil
}

func (l *Listener) read() {
	defer l.pump.Close()
	down, up := l.hk.Keydown(), l.hk.Keyup()
	for {
		select {
		case _, ok := <-down:
			if !ok {
				return
			}
			l.pump.Press(time.Now())
		case _, ok := <-up:
			if !ok {
				return
			}
			l.pump.Release(time.Now())
		case <-l.stop:
			return
		}
	}
}

// Close unregisters the hot key.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		err = l.hk.Unregister()
	})
	return err
}

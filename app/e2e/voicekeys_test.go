//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// escapeHolder reports whether some client holds plain Escape on the root
// window, by trying to grab it from a connection of our own: X refuses a
// second grab of the same key and modifiers with an Access error.
type escapeHolder struct {
	conn *xgb.Conn
	root xproto.Window
	code xproto.Keycode
}

func newEscapeHolder(t *testing.T, display string) *escapeHolder {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("connecting to %s: %v", display, err)
	}
	t.Cleanup(conn.Close)
	setup := xproto.Setup(conn)
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	per := int(km.KeysymsPerKeycode)
	for i := 0; i*per < len(km.Keysyms); i++ {
		if km.Keysyms[i*per] == 0xff1b { // XK_Escape
			return &escapeHolder{conn: conn, root: setup.DefaultScreen(conn).Root, code: xproto.Keycode(int(setup.MinKeycode) + i)}
		}
	}
	t.Fatal("the keyboard map has no Escape")
	return nil
}

func (e *escapeHolder) taken() (bool, error) {
	err := xproto.GrabKeyChecked(e.conn, false, e.root, 0, e.code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
	if err == nil {
		xproto.UngrabKey(e.conn, e.code, e.root, 0)
		xproto.GetInputFocus(e.conn).Reply()
		return false, nil
	}
	var access xproto.AccessError
	if errors.As(err, &access) {
		return true, nil
	}
	return false, err
}

func (e *escapeHolder) wait(t *testing.T, taken bool) {
	t.Helper()
	harness.Eventually(t, 20*time.Second, fmt.Sprintf("Escape taken = %v", taken), func() error {
		got, err := e.taken()
		if err != nil {
			return err
		}
		if got != taken {
			return fmt.Errorf("Escape taken = %v", got)
		}
		return nil
	})
}

// TestHybridHotkeyAndEscape drives the default hotkey mode with xdotool:
// a tap keeps listening until the next tap, Escape is Hark's only while
// there is something to cancel, and Escape cancels a recording.
func TestHybridHotkeyAndEscape(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()
	esc := newEscapeHolder(t, d.display)
	harness.Eventually(t, 20*time.Second, "escape key ready in the log", func() error {
		b, _ := os.ReadFile(filepath.Join(h.home, "logs", "hark.log"))
		if !strings.Contains(string(b), "escape key ready") {
			return errors.New("not yet")
		}
		return nil
	})
	// Idle: Escape belongs to the other programs.
	if taken, err := esc.taken(); err != nil || taken {
		t.Fatalf("Escape taken while idle: %v, %v", taken, err)
	}

	t.Run("a tap latches, the next tap stops", func(t *testing.T) {
		h.t = t
		if err := os.WriteFile(h.transcript, []byte("say hello"), 0o600); err != nil {
			t.Fatal(err)
		}
		harness.Xdotool(t, d.display, "key", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening… press ctrl+alt+space again")
		esc.wait(t, true)
		d.pulse.Play(t, harness.Speech(t, "please say hello"))
		// Still listening long after the key came up.
		h.menu.WaitFor(t, 5*time.Second, "Listening…")
		harness.Xdotool(t, d.display, "key", "ctrl+alt+space")
		harness.Eventually(t, 30*time.Second, "the answer notification", func() error {
			for _, n := range d.notes.All() {
				if strings.Contains(n.Body, "hello from the fake model") {
					return nil
				}
			}
			return fmt.Errorf("notifications:\n%s", d.notes)
		})
		h.waitIdle()
		esc.wait(t, false)
	})

	t.Run("Escape cancels a recording", func(t *testing.T) {
		h.t = t
		before := len(d.ollama.Requests())
		harness.Xdotool(t, d.display, "key", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening…")
		esc.wait(t, true)
		harness.Xdotool(t, d.display, "key", "Escape")
		h.menu.WaitFor(t, 20*time.Second, "Ready")
		root, err := h.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(root.Labels(), "cancelled") {
			t.Errorf("the status line does not say the recording was cancelled:\n%s", root.Labels())
		}
		esc.wait(t, false)
		if after := len(d.ollama.Requests()); after != before {
			t.Errorf("the model got %d requests after Escape", after-before)
		}
	})

	// The cues went to the sound server with paplay: each was rendered
	// into the cache, and none failed.
	harness.Eventually(t, 10*time.Second, "start, stop and cancel cues rendered", func() error {
		for _, name := range []string{"start", "stop", "cancel"} {
			if !exists(filepath.Join(h.home, "cache", "cue-"+name+".wav")) {
				return fmt.Errorf("no %s cue yet", name)
			}
		}
		return nil
	})
	time.Sleep(500 * time.Millisecond) // the cancel cue's player, still running
	if b, err := os.ReadFile(filepath.Join(h.home, "logs", "hark.log")); err == nil && strings.Contains(string(b), "sound cue failed") {
		t.Errorf("a sound cue failed to play:\n%s", tail(string(b), 3000))
	}
	h.quit()
}

//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestTypeInTerminal is a Linux desktop without zenity or kdialog, with
// xterm: Type a request… opens the user's terminal running `hark send
// --prompt`, the line typed there reaches the app, and its answer arrives
// as a notification.
func TestTypeInTerminal(t *testing.T) {
	harness.Need(t, "xterm", "xdotool")
	d := newDesktop(t, true, true)
	d.env = []string{"TERMINAL=xterm"}
	d.helpers = []string{"xterm"}
	h := startHark(t, d)
	h.waitIdle()

	var win string
	h.menu.ClickUntil(t, 30*time.Second, "Type a request…", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		out, err := harness.Run(ctx, d.display, "xdotool", "search", "--onlyvisible", "--class", "xterm")
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			win = f[0]
			return nil
		}
		return errors.New("no terminal window yet")
	})
	harness.Xdotool(t, d.display, "windowfocus", "--sync", win)
	// xterm is up before the shell inside it has printed the prompt; keys
	// typed early wait in the terminal's input.
	harness.Xdotool(t, d.display, "type", "--delay", "30", "say hello")
	harness.Xdotool(t, d.display, "key", "Return")

	harness.Eventually(t, 30*time.Second, "the answer as a notification", func() error {
		for _, n := range d.notes.All() {
			if strings.Contains(n.Body, "hello from the fake model") {
				return nil
			}
		}
		return errors.New("not yet:\n" + d.notes.String())
	})
	harness.Eventually(t, 10*time.Second, "the terminal window closed", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if out, _ := harness.Run(ctx, d.display, "xdotool", "search", "--onlyvisible", "--class", "xterm"); strings.TrimSpace(out) != "" {
			return errors.New("still open")
		}
		return nil
	})
	h.waitIdle()
}

// TestDenyWhyInTerminal is the same desktop: Deny and say why… opens a
// terminal window of its own (not the request prompt), and the reason
// typed there denies the waiting approval, reaches the model, and is in
// the audit log.
func TestDenyWhyInTerminal(t *testing.T) {
	harness.Need(t, "xterm", "xdotool")
	d := newDesktop(t, true, true)
	d.env = []string{"TERMINAL=xterm"}
	d.helpers = []string{"xterm"}
	h := startHark(t, d)
	h.waitIdle()
	if out, code := h.send(false, "make the deny marker"); code != 0 {
		t.Fatalf("hark send: %d %s", code, out)
	}
	h.menu.WaitFor(t, 30*time.Second, "Deny and say why…")

	var win string
	h.menu.ClickUntil(t, 30*time.Second, "Deny and say why…", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		out, err := harness.Run(ctx, d.display, "xdotool", "search", "--onlyvisible", "--class", "xterm")
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			win = f[0]
			return nil
		}
		return errors.New("no terminal window yet")
	})
	harness.Xdotool(t, d.display, "windowfocus", "--sync", win)
	harness.Xdotool(t, d.display, "type", "--delay", "30", "use the other_folder")
	harness.Xdotool(t, d.display, "key", "Return")

	h.waitAudit("denied-marker", "denied")
	var reason string
	harness.Eventually(t, 30*time.Second, "the reason in the audit log", func() error {
		b, _ := os.ReadFile(filepath.Join(h.home, "audit.jsonl"))
		for _, line := range strings.Split(string(b), "\n") {
			var e struct {
				Command    string `json:"command"`
				DenyReason string `json:"denyReason"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && strings.Contains(e.Command, "denied-marker") && e.DenyReason != "" {
				reason = e.DenyReason
				return nil
			}
		}
		return errors.New("no reason yet")
	})
	if reason != "use the other_folder" {
		t.Errorf("audit reason %q, want the line typed in the terminal", reason)
	}
	harness.Eventually(t, 30*time.Second, "the model told why", func() error {
		for _, n := range d.notes.All() {
			if strings.Contains(n.Body, "tried the deny marker") && strings.Contains(n.Body, "use the other_folder") {
				return nil
			}
		}
		return errors.New("not yet:\n" + d.notes.String())
	})
	if _, err := os.Stat(filepath.Join(d.work, "denied-marker")); err == nil {
		t.Error("the denied command ran")
	}
	h.waitIdle()
}

//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
	"github.com/hark-sh/hark/shell/exectest"
)

// fakeTools puts scripts named after desktop tools first in Hark's PATH.
func fakeTools(t *testing.T, d *desktop, scripts map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		exectest.WriteProgram(t, filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)
	}
	d.fakes = dir
	d.env = append(d.env, "EDITOR=", "VISUAL=")
}

// clickMenu clicks the visible item whose label starts with prefix.
func clickMenu(t *testing.T, h *hark, prefix string) {
	t.Helper()
	it := h.menu.WaitFor(t, 20*time.Second, prefix)
	if err := h.menu.Click(it.ID); err != nil {
		t.Fatal(err)
	}
}

// waitNote waits for a notification whose title holds title and whose
// body holds every one of want.
func waitNote(t *testing.T, d *desktop, what, title string, want ...string) harness.Notification {
	t.Helper()
	var got harness.Notification
	harness.Eventually(t, 30*time.Second, what, func() error {
	next:
		for _, n := range d.notes.All() {
			if !strings.Contains(n.Summary, title) {
				continue
			}
			for _, w := range want {
				if !strings.Contains(n.Body, w) {
					continue next
				}
			}
			got = n
			return nil
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	return got
}

// TestOpenersWithoutXdgOpen: on a desktop without xdg-open (and a gio
// that finds no application), Problems… shows as a notification, never
// vim in a terminal, and Settings… says it could not open the file,
// which file, and how to open it by hand. An xdg-open that fails only
// after Hark took it as started is reported too.
func TestOpenersWithoutXdgOpen(t *testing.T) {
	t.Run("no xdg-open", func(t *testing.T) {
		d := newDesktop(t, true, true)
		fakeTools(t, d, map[string]string{
			"gio":      "echo 'gio: file: No application is registered as handling this file' >&2; exit 2",
			"xdg-open": "exit 127",                                 // a broken one; LookPath finds it, it fails at once
			"vim":      "touch \"$HARK_HOME/vim-started\"; exit 0", // shows if vim was chosen
			"nano":     "exit 127",
		})
		h := launchHarkWith(t, d, `{"confirmTimeout": "2 minutes", "ollamaModel": "`+model+`"}`)
		h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
		h.menu.WaitFor(t, 30*time.Second, "⚠ Settings file has errors")
		clickMenu(t, h, "Problems…")
		waitNote(t, d, "Problems… as a notification", "Hark — problems", "confirmTimeout")
		h.quit()
		if _, err := os.Stat(filepath.Join(h.home, "vim-started")); err == nil {
			t.Error("vim was started for Problems…")
		}
	})
	t.Run("xdg-open fails late", func(t *testing.T) {
		d := newDesktop(t, true, true)
		fakeTools(t, d, map[string]string{
			"xdg-open": "sleep 5; echo 'xdg-open: no method available for opening' >&2; exit 3",
		})
		h := startHark(t, d)
		clickMenu(t, h, "Settings…")
		n := waitNote(t, d, "the late failure", "File did not open", filepath.Join(h.home, "settings.json"), "exit status 3", "by hand")
		if !strings.Contains(n.Body, "no method available") {
			t.Errorf("the note does not say what xdg-open said:\n%s", n.Body)
		}
		h.quit()
	})
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
)

// TestMachinesDesktopProgramsDoNotMatter: on a machine whose PATH has
// zenity, kdialog, xdg-open and a terminal (as a developer's desktop
// has, and as anyone who checks the real desktop installs), the suite's
// Hark finds none of them: switching confirmation off is not stopped by
// a dialog nobody answers, and Settings… reaches no opener. Each stand-in
// leaves a mark when started and then waits, as an unanswered dialog does.
func TestMachinesDesktopProgramsDoNotMatter(t *testing.T) {
	machine := t.TempDir()
	marks := t.TempDir()
	for _, name := range []string{"zenity", "kdialog", "xdg-open", "gio", "x-terminal-emulator", "xterm"} {
		exectest.WriteProgram(t, filepath.Join(machine, name),
			[]byte("#!/bin/sh\ntouch "+filepath.Join(marks, name)+"\nsleep 300\n"), 0o755)
	}
	t.Setenv("PATH", machine+string(os.PathListSeparator)+os.Getenv("PATH"))

	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()
	h.menu.ClickUntil(t, 30*time.Second, "Confirm before executing", func() error {
		b, err := os.ReadFile(filepath.Join(h.home, "settings.json"))
		if err != nil {
			return err
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s["confirmBeforeExecute"] != false {
			return fmt.Errorf("confirmBeforeExecute = %v", s["confirmBeforeExecute"])
		}
		return nil
	})
	settings := filepath.Join(h.home, "settings.json")
	h.menu.ClickUntil(t, 30*time.Second, "Settings…", func() error {
		for _, n := range d.notes.All() {
			if strings.Contains(n.Body, settings) && strings.Contains(n.Body, "by hand") {
				return nil
			}
		}
		return fmt.Errorf("no note says how to open %s by hand:\n%s", settings, d.notes)
	})
	h.quit()
	started, _ := os.ReadDir(marks)
	for _, e := range started {
		t.Errorf("Hark started the machine's %s", e.Name())
	}
}

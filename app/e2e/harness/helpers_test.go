package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHelperPathHidesDesktopPrograms: on a machine that has zenity and
// xdg-open, a test's Hark finds neither unless the test asks for it, and
// still finds every other program, in PATH's order.
func TestHelperPathHidesDesktopPrograms(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	for dir, names := range map[string][]string{
		first:  {"zenity", "xdg-open", "ls-first"},
		second: {"xterm", "ls-first", "only-second"},
	} {
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\necho "+dir+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("PATH", first+string(os.PathListSeparator)+second)
	find := func(path, name string) string {
		t.Helper()
		t.Setenv("PATH", path)
		defer t.Setenv("PATH", first+string(os.PathListSeparator)+second)
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return target
	}
	none := HelperPath(t)
	for _, n := range []string{"zenity", "xdg-open", "xterm"} {
		if got := find(none, n); got != "" {
			t.Errorf("%s is found at %s, want it hidden", n, got)
		}
	}
	if got, want := find(none, "ls-first"), filepath.Join(first, "ls-first"); got != want {
		t.Errorf("ls-first is %q, want %q (the first folder's)", got, want)
	}
	if got, want := find(none, "only-second"), filepath.Join(second, "only-second"); got != want {
		t.Errorf("only-second is %q, want %q", got, want)
	}
	some := HelperPath(t, "xterm")
	if got, want := find(some, "xterm"), filepath.Join(second, "xterm"); got != want {
		t.Errorf("asked for, xterm is %q, want %q", got, want)
	}
	if got := find(some, "zenity"); got != "" {
		t.Errorf("zenity is found at %s though only xterm was asked for", got)
	}
}

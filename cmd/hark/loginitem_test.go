package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func runCLI(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	return cliResult{code, out.String(), errb.String()}
}

// TestLoginItemCLI turns the login item on and off in a temporary home.
func TestLoginItemCLI(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	file := filepath.Join(home, "cfg", "autostart", "hark.desktop")
	if runtime.GOOS == "darwin" {
		file = filepath.Join(home, "Library", "LaunchAgents", "sh.hark.Hark.plist")
	}
	steps := []struct {
		args      []string
		code      int
		stdout    string
		fileThere bool
	}{
		{[]string{"login-item", "status"}, exitOK, "off (no " + file, false},
		{[]string{"login-item", "on"}, exitOK, "Hark will start at login", true},
		{[]string{"login-item", "status"}, exitOK, "on: ", true},
		{[]string{"login-item", "off"}, exitOK, "will not start at login", false},
		{[]string{"login-item", "off"}, exitOK, "will not start at login", false},
		{[]string{"login-item", "sometimes"}, exitUsage, "", false},
		{[]string{"login-item"}, exitUsage, "", false},
	}
	for _, s := range steps {
		r := runCLI(s.args...)
		if r.code != s.code || !strings.Contains(r.stdout, s.stdout) {
			t.Fatalf("%v: code %d stdout %q stderr %q; want %d and %q", s.args, r.code, r.stdout, r.stderr, s.code, s.stdout)
		}
		if _, err := os.Stat(file); (err == nil) != s.fileThere {
			t.Fatalf("%v: file present = %v, want %v", s.args, err == nil, s.fileThere)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The packaging itself is tested in app/bundle; these cover the command
// line the Makefile relies on.
func TestRunUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plist := "../../Info.plist"
	empty := filepath.Join(dir, "Empty.plist")
	if err := os.WriteFile(empty, []byte("<plist><dict/></plist>"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"no step", nil, 2, "usage"},
		{"unknown step", []string{"dmg"}, 2, "unknown step"},
		{"bad flag", []string{"app", "-nope"}, 2, "-nope"},
		{"missing plist", []string{"app", "-plist", filepath.Join(dir, "none.plist")}, 1, "none.plist"},
		{"empty plist", []string{"app", "-plist", empty, "-bin", "/bin/sh", "-o", filepath.Join(dir, "E.app")}, 1, "CFBundleIdentifier is missing"},
		{"missing binary", []string{"app", "-plist", plist, "-bin", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "H.app")}, 1, "make build"},
		{"sign without a bundle", []string{"sign"}, 2, "usage: mkapp sign"},
		{"install without binary", []string{"linux-install", "-bin", filepath.Join(dir, "none"), "-prefix", dir}, 1, "make build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.wantErr) {
				t.Errorf("exit %d stderr %q; want %d and %q", code, errb.String(), c.code, c.wantErr)
			}
		})
	}
}

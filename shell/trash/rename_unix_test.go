//go:build linux || darwin

package trash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The no-replace renames move a file to a free name and refuse, with
// fs.ErrExist and both files untouched, a name that is taken, whether by a
// file or by a dangling symlink.
func TestRenameNoReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(d)
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	renames := []struct {
		name string
		do   func(old, new string) error
	}{
		{"by path", renameNoReplace},
		{"in a folder", func(old, new string) error { return renameAtNoReplace(old, d, filepath.Base(new), new) }},
	}
	for _, r := range renames {
		a := write("a-"+r.name, "a")
		b := write("b-"+r.name, "b")
		if err := r.do(a, b); !errors.Is(err, fs.ErrExist) || read(a) != "a" || read(b) != "b" {
			t.Errorf("%s onto a file: %v; now %q, %q", r.name, err, read(a), read(b))
		}
		if err := r.do(a, filepath.Join(dir, "dangling")); !errors.Is(err, fs.ErrExist) || read(a) != "a" {
			t.Errorf("%s onto a dangling symlink: %v", r.name, err)
		}
		free := filepath.Join(dir, "free-"+r.name)
		if err := r.do(a, free); err != nil || read(free) != "a" {
			t.Errorf("%s to a free name: %v, %q", r.name, err, read(free))
		}
		if _, err := os.Lstat(a); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left the old name: %v", r.name, err)
		}
	}
}

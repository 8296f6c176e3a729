//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The zygote takes away the folders made to hold kept places after the
// run, in a place the run could write: a folder swapped for a link by
// then leads it nowhere. It unmounts nothing (the run's mounts were never
// in its namespace), and removes nothing through a link.
func TestUnmadeKeptFollowsNoLink(t *testing.T) {
	t.Parallel()
	base, other := t.TempDir(), t.TempDir()
	made := filepath.Join(base, "made")
	os.Mkdir(made, 0o700)
	os.Mkdir(filepath.Join(other, "sub"), 0o700)
	os.Symlink(other, filepath.Join(base, "link"))
	target := t.TempDir()
	mounted := unix.Mount("hark-test", target, "tmpfs", 0, "") == nil
	if mounted {
		defer unix.Unmount(target, unix.MNT_DETACH)
	}
	os.Symlink(target, filepath.Join(base, "hooks"))
	unmadeKept([]string{filepath.Join(base, "hooks"), filepath.Join(base, "link", "sub"), made}, false)
	if _, err := os.Lstat(made); err == nil {
		t.Error("an empty folder made for a kept place was left")
	}
	if _, err := os.Lstat(filepath.Join(other, "sub")); err != nil {
		t.Error("a folder was removed through a link")
	}
	var st unix.Statfs_t
	if mounted && (unix.Statfs(target, &st) != nil || st.Type != unix.TMPFS_MAGIC) {
		t.Error("a mount was taken away through a link")
	}
}

package trash

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRealMount trashes a file on a real second filesystem: a tmpfs
// mounted inside the test's home. It needs root (or CAP_SYS_ADMIN); the
// injected-device test above covers the layout everywhere else.
func TestRealMount(t *testing.T) {
	l := newLayout(t)
	mnt := filepath.Join(l.home, "stick")
	mkdir(t, mnt)
	if err := unix.Mount("hark-trash-test", mnt, "tmpfs", 0, "size=4m,mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): needs root with CAP_SYS_ADMIN; TestTopdirTrash covers the layout with an injected device", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	b := l.bin(t, Options{}) // the real device lookup
	p := filepath.Join(mnt, "dir", "song.ogg")
	write(t, p, "ogg")
	home := filepath.Join(l.home, "song.ogg")
	write(t, home, "home copy")

	rec, err := b.Trash(context.Background(), "", []string{p, home})
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(mnt, ".Trash-"+strconv.Itoa(os.Getuid()))
	if rec.Items[0].Trashed != filepath.Join(own, "files", "song.ogg") {
		t.Fatalf("the tmpfs file went to %s, want the mount's own trash %s", rec.Items[0].Trashed, own)
	}
	if rec.Items[1].Trashed != filepath.Join(l.data, "Trash", "files", "song.ogg") {
		t.Fatalf("the home file went to %s, want the home trash", rec.Items[1].Trashed)
	}
	if got := read(t, filepath.Join(own, "info", "song.ogg.trashinfo")); got != "[Trash Info]\nPath=dir/song.ogg\nDeletionDate=2026-03-04T12:03:41\n" {
		t.Fatalf("trashinfo on the mount: %q", got)
	}
	if _, err := b.UndoLast(); err != nil {
		t.Fatal(err)
	}
	if read(t, p) != "ogg" || read(t, home) != "home copy" {
		t.Fatal("undo across two filesystems did not restore both")
	}
}

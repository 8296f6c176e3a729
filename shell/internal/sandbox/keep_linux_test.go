//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
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
	lock := shareRunsLock()
	unmadeKept(madeKept{dirs: []string{filepath.Join(base, "hooks"), filepath.Join(base, "link", "sub"), made}, lock: lock, locked: lock >= 0}, false)
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

// A folder made for a kept place stays while another run holds kept
// places: the run that made it ends first, and taking it away would drop
// the other run's mount on it in every namespace. Once no run overlaps,
// the maker takes away what it made.
func TestUnmadeKeptWaitsForTheOtherHolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // its own lock: no other test's runs overlap
	home := t.TempDir()
	fish := filepath.Join(home, ".config/fish")
	sc := scope.Scope{Write: []string{home}, Keep: []string{fish + "/"}}
	var held []string
	_, madeA, err := holdKept(sc, &mountPlan{}, &held)
	if err != nil || len(madeA.dirs) != 2 || !madeA.locked {
		t.Fatalf("the first run made %v (%v, lock %d), want .config and .config/fish under a lock", madeA.dirs, err, madeA.lock)
	}
	_, madeB, err := holdKept(sc, &mountPlan{}, &held)
	if err != nil || len(madeB.dirs) != 0 {
		t.Fatalf("the second run made %v (%v)", madeB.dirs, err)
	}
	unmadeKept(madeA, false)
	if _, err := os.Lstat(fish); err != nil {
		t.Fatal("the folder another run holds was taken away")
	}
	unmadeKept(madeB, false)
	_, madeC, _ := holdKept(scope.Scope{Write: []string{home}, Keep: []string{filepath.Join(home, ".config/git") + "/"}}, &mountPlan{}, &held)
	unmadeKept(madeC, false)
	if _, err := os.Lstat(filepath.Join(home, ".config/git")); err == nil {
		t.Error("with no run overlapping, the made folder was left")
	}
}

// A run that held no kept place leaves a zero madeKept, which the zygote
// gives unmadeKept after every run: it must close nothing (descriptor 0
// is the zygote's own).
func TestUnmadeKeptOfNothingClosesNothing(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// The zero value's lock is 0: put the pipe there, as a reused
	// descriptor would be.
	saved, err := unix.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { unix.Dup2(saved, 0); unix.Close(saved) }()
	if err := unix.Dup2(int(r.Fd()), 0); err != nil {
		t.Fatal(err)
	}
	unmadeKept(madeKept{}, false)
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		t.Errorf("unmadeKept of nothing closed descriptor 0: %v", err)
	}
}

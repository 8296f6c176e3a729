//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// A kept folder that did not exist is made to be held by a mount, and
// taken away after the run if it left it empty (holdKept, unmadeKept).
// Runs may overlap — the app's and another program's, in processes of
// their own — and a folder one run made may be held by another's mount
// by the time the first one ends: taking it away then would drop that
// mount in every namespace, and the other run could write where its
// card said it could not. So every run that holds kept places holds a
// shared lock for as long as it runs, and made folders are taken away
// only under the exclusive lock, which no other run holding its shared
// one lets anyone have. Where the lock cannot be had, made folders stay:
// an empty folder left behind is the safe mistake, and so is one left by
// runs that overlapped.

// madeKept are what holdKept leaves for unmadeKept: the folders it made,
// outermost first, and its shared lock when locked. The zero value (a run
// that held nothing) holds nothing.
type madeKept struct {
	dirs   []string
	lock   int
	locked bool
}

// runsLock is the lock file: in Hark's own state folder
// ($XDG_STATE_HOME/hark, by default ~/.local/state/hark), which no run may
// read or change, shared by every Hark process of the user whatever
// namespace each runs in.
func runsLock() (int, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return -1, err
		}
		state = filepath.Join(home, ".local/state")
	}
	dir := filepath.Join(state, "hark")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return -1, err
	}
	return unix.Open(filepath.Join(dir, "runs.lock"), unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
}

// shareRunsLock takes the shared lock, waiting a little for a run that is
// taking its folders away; -1 where there is none to be had.
func shareRunsLock() int {
	fd, err := runsLock()
	if err != nil {
		return -1
	}
	for try := 0; ; try++ {
		err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
		if err == nil {
			return fd
		}
		if try == 500 || !errors.Is(err, unix.EWOULDBLOCK) {
			unix.Close(fd)
			return -1
		}
		time.Sleep(2 * time.Millisecond)
	}
}

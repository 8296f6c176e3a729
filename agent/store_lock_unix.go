//go:build unix

package agent

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockPath takes an exclusive advisory lock on path (created if needed)
// and returns its release: it orders the writers of the history that run
// in different processes (the app, hark ask). Without a lock file the
// caller goes on unlocked, as before there was one.
func lockPath(path string) func() {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	return func() {
		if err == nil {
			_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		}
		f.Close()
	}
}

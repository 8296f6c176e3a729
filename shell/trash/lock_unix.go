//go:build unix

package trash

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive advisory lock on path (created if needed)
// and returns its release. Without a lock file the caller goes on unlocked:
// the lock only orders two Hark processes, it guards no data by itself.
func lockFile(path string) func() {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return func() {}
	}
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
			unix.Flock(int(f.Fd()), unix.LOCK_UN)
		}
		f.Close()
	}
}

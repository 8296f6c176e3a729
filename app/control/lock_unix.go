//go:build unix

package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// AcquireInstanceLock makes this process the only running Hark app for the
// user: it takes an exclusive flock on hark.lock in runtimeDir (created
// 0700). The kernel drops the lock when the process dies, so a crash never
// leaves a stale lock. A second app gets ErrAlreadyRunning. Call release
// on exit.
func AcquireInstanceLock(runtimeDir string) (release func(), err error) {
	if err := ensurePrivateDir(runtimeDir); err != nil {
		return nil, err
	}
	path := filepath.Join(runtimeDir, "hark.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("could not open the lock file %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrAlreadyRunning
		}
		return nil, fmt.Errorf("could not lock %s: %w", path, err)
	}
	// The pid is for people reading the file; the lock itself is the flock.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

//go:build linux

package sandbox

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// placeMoved says why the folder held open as held is no longer at path
// (absolute, every link resolved when it was approved), or "" when it is:
// path is opened again following no symbolic link, and must lead to the
// very folder held. The zygote asks just before it starts a command there:
// a folder moved into ~/.ssh after the runner's own check would otherwise
// run the command with `..` in ~/.ssh.
func placeMoved(path string, held int) string {
	fd, why := reopenHeld(path, held)
	if fd >= 0 {
		unix.Close(fd)
	}
	return why
}

// reopenHeld opens path in this mount namespace following no symbolic
// link and returns it when it is the folder held (the same device and
// inode), or says why it is not. A command starts in the folder opened
// here, not in the descriptor the runner sent: that one was opened in
// the runner's mount namespace, and a command that started in it would
// resolve names relative to its folder through the runner's mounts and
// its absolute names through its own. The kept places' read-only mounts
// would then hold "$PWD/.git/hooks" but not ".git/hooks", and a link or
// rename between the two (git repack, ln "$PWD/a" b) would fail as one
// across file systems.
func reopenHeld(path string, held int) (int, string) {
	var want, got unix.Stat_t
	if err := unix.Fstat(held, &want); err != nil {
		return -1, "it can no longer be read (" + err.Error() + ")"
	}
	fd, err := openNoLinks(path)
	switch {
	case errors.Is(err, unix.ENOENT):
		return -1, path + " no longer exists"
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EXDEV):
		return -1, path + ", or a folder on the way to it, is now a link"
	case err != nil:
		return -1, path + ": " + err.Error()
	}
	if err := unix.Fstat(fd, &got); err != nil {
		unix.Close(fd)
		return -1, path + ": " + err.Error()
	}
	if got.Dev != want.Dev || got.Ino != want.Ino {
		unix.Close(fd)
		return -1, path + " is now another folder"
	}
	return fd, ""
}

// openNoLinks opens the folder at path following no symbolic link:
// openat2 with RESOLVE_NO_SYMLINKS, or before Linux 5.6 one component
// at a time.
func openNoLinks(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	if !filepath.IsAbs(path) {
		return -1, unix.EINVAL
	}
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if fd, err = unix.Open("/", flags, 0); err != nil {
		return -1, err
	}
	for _, name := range strings.Split(filepath.Clean(path), "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, flags, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// errPlaceMoved is the error of a start refused by placeMoved; its text
// begins with PlaceChanged.
type errPlaceMoved string

func (e errPlaceMoved) Error() string { return PlaceChanged + string(e) }

func isPlaceMoved(err error) bool {
	var e errPlaceMoved
	return errors.As(err, &e)
}

// checkPlace is the last look before c's command starts: an error when
// the folder it starts in was approved elsewhere (confinement.place).
func (c confinement) checkPlace() error {
	if c.place == nil {
		return nil
	}
	if why := c.place(); why != "" {
		return errPlaceMoved(why)
	}
	return nil
}

//go:build linux || darwin

package trash

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Both systems have an atomic no-replace rename under different names
// (renameatExcl, in rename_linux.go and rename_darwin.go); some
// filesystems refuse it, and then the check and the rename are two steps.

// noAtomicRename reports whether err says the filesystem (or kernel) has
// no no-replace rename.
func noAtomicRename(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP)
}

// renameNoReplace renames old to new unless new exists, atomically where
// the filesystem allows.
func renameNoReplace(old, new string) error {
	err := renameatExcl(unix.AT_FDCWD, old, unix.AT_FDCWD, new)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	case noAtomicRename(err):
		return renameChecked(old, new)
	default:
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
	}
}

// renameAtNoReplace renames old to name in the folder dirfd unless name
// exists there; original is the path it stands for, for errors.
func renameAtNoReplace(old string, dirfd int, name, original string) error {
	err := renameatExcl(unix.AT_FDCWD, old, dirfd, name)
	if noAtomicRename(err) {
		var st unix.Stat_t
		if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil {
			err = unix.EEXIST
		} else {
			err = unix.Renameat(unix.AT_FDCWD, old, dirfd, name)
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: old, New: original, Err: fs.ErrExist}
	}
	return &os.LinkError{Op: "rename", Old: old, New: original, Err: err}
}

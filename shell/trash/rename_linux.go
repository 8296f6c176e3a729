package trash

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames old to new unless new exists, atomically where
// the filesystem supports RENAME_NOREPLACE.
func renameNoReplace(old, new string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP):
		return renameChecked(old, new)
	default:
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
	}
}

// renameAtNoReplace renames old to name in the folder dirfd unless name
// exists there; original is the path it stands for, for errors.
func renameAtNoReplace(old string, dirfd int, name, original string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, dirfd, name, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
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

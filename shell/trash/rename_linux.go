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

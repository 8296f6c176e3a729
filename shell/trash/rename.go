package trash

import (
	"errors"
	"io/fs"
	"os"
)

// renameChecked is the fallback where the filesystem has no no-replace
// rename: check, then rename. Only a file created in between could be
// replaced; the trash folders are the user's own.
func renameChecked(old, new string) error {
	if _, err := os.Lstat(new); err == nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(old, new)
}

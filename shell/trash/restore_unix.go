//go:build linux || darwin

package trash

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// restoreTo renames trashed back to original, reaching original's folder
// from the home folder one name at a time without following a link, so a
// folder replaced by a link since the move (to a place outside home, say)
// is refused rather than written through.
func (b *Bin) restoreTo(trashed, original string) error {
	root, rel, err := b.homeRel(original)
	if err != nil {
		return err
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: root, Err: err}
	}
	names := strings.Split(rel, string(filepath.Separator))
	at := root
	for _, name := range names[:len(names)-1] {
		at = filepath.Join(at, name)
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return unsafeFolder(at, err)
		}
		fd = next
	}
	defer unix.Close(fd)
	return renameAtNoReplace(trashed, fd, names[len(names)-1], original)
}

func unsafeFolder(at string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return fmt.Errorf("%w: %s is no longer the folder it was (now a link or a file)", ErrUnsafeRestore, at)
	}
	return &os.PathError{Op: "open", Path: at, Err: err}
}

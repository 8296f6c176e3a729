//go:build !linux && !darwin

package trash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// restoreTo renames trashed back to original once every folder on the
// way from home is checked to be a folder and not a link. Without openat
// the check and the rename are two steps.
func (b *Bin) restoreTo(trashed, original string) error {
	root, rel, err := b.homeRel(original)
	if err != nil {
		return err
	}
	names := strings.Split(rel, string(filepath.Separator))
	at := root
	for _, name := range names[:len(names)-1] {
		at = filepath.Join(at, name)
		fi, err := os.Lstat(at)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is no longer the folder it was (now a link or a file)", ErrUnsafeRestore, at)
		}
	}
	return renameNoReplace(trashed, original)
}

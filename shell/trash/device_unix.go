//go:build unix

package trash

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// deviceOf is the filesystem (st_dev) holding the folder path names.
func deviceOf(path string) (uint64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("%s: no device number", path)
	}
	return uint64(st.Dev), nil
}

// ownerOf is the uid owning fi, when the OS says.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

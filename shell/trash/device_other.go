//go:build !unix

package trash

import (
	"errors"
	"io/fs"
)

func deviceOf(string) (uint64, error) {
	return 0, errors.New("the Trash is only supported on macOS and Linux; use Delete")
}

func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

package settings

import (
	"os"

	"github.com/hark-sh/hark/shell/atomicfile"
)

// WriteFileAtomic replaces path with data so that readers see either the old
// file or the new one, never a mix (atomicfile.Write). Missing parent
// folders are created with mode 0700.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(path, data, perm)
}

// SyncDir fsyncs a folder so that a rename or create inside it is durable.
func SyncDir(dir string) error { return atomicfile.SyncDir(dir) }

// MoveAside renames an unreadable file to path.corrupt-YYYYMMDD-HHMMSS so the
// user can still recover it, and returns the new name.
func MoveAside(path string) (string, error) { return atomicfile.MoveAside(path) }

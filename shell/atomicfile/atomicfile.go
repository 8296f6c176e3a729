// Package atomicfile writes files so that a crash or a concurrent reader
// sees the old content or the new, never a mix, and keeps unreadable files
// aside instead of overwriting them. Settings, rules, the trash record and
// the history all write through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Write replaces path with data so that readers see either the old
// file or the new one, never a mix: it writes a temporary file in the same
// folder, fsyncs it, renames it over path and fsyncs the folder. Missing
// parent folders are created with mode 0700.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return SyncDir(dir)
}

// SyncDir fsyncs a folder so that a rename or create inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncUnsupported(err) {
		return err
	}
	return nil
}

// MoveAside renames an unreadable file to path.corrupt-YYYYMMDD-HHMMSS so the
// user can still recover it, and returns the new name.
func MoveAside(path string) (string, error) {
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().Format("20060102-150405"))
	if err := os.Rename(path, aside); err != nil {
		return "", err
	}
	return aside, nil
}

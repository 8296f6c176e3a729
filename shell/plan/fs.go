package plan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// FS is the little of a file system the model reads: folder listings for
// patterns, and whether a cd's target is a folder.
type FS interface {
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Stat follows symbolic links, as cd and a pattern's folders do.
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	EvalSymlinks(name string) (string, error)
}

// OS is the real file system.
type OS struct{}

func (OS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (OS) Stat(name string) (fs.FileInfo, error)     { return os.Stat(name) }
func (OS) Lstat(name string) (fs.FileInfo, error)    { return os.Lstat(name) }
func (OS) EvalSymlinks(name string) (string, error)  { return filepath.EvalSymlinks(name) }

type fsys struct{ FS }

func (env Env) fs() fsys {
	if env.FS == nil {
		return fsys{OS{}}
	}
	return fsys{env.FS}
}

// IsDir says whether name is a folder, following links.
func (f fsys) IsDir(name string) (bool, error) {
	fi, err := f.Stat(name)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir)
}

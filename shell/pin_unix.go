//go:build unix

package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// DirPin is a working directory held open from the moment Hark checked it:
// the folder the user approved a command in. Run refuses the command when
// the path no longer names that same folder (swapped for a link, renamed
// over, deleted and made again), and otherwise starts it in the folder held
// open, not in whatever the path leads to by then.
type DirPin struct {
	Path string // the folder with every symbolic link resolved
	f    *os.File
	dev  uint64
	ino  uint64
}

// PinDir resolves dir (an absolute path) and opens the folder it names,
// following no symbolic link after the resolution, so the folder checked by
// the caller through Path is the one held. Close it once the command ran;
// an unclosed pin is closed when it is collected.
func PinDir(dir string) (*DirPin, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("the folder %s cannot be used: %v", dir, err)
	}
	f, st, err := openNoFollow(real)
	if err != nil {
		return nil, fmt.Errorf("the folder %s cannot be used: %v", dir, err)
	}
	return &DirPin{Path: real, f: f, dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// Close lets the folder go.
func (p *DirPin) Close() {
	if p != nil && p.f != nil {
		p.f.Close()
	}
}

// openNoFollow opens the directory at the absolute path one component at a
// time with O_NOFOLLOW, so no component may be a symbolic link.
func openNoFollow(path string) (*os.File, *unix.Stat_t, error) {
	if !filepath.IsAbs(path) {
		return nil, nil, fmt.Errorf("%s is not an absolute path", path)
	}
	const flags = pinOpen | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Open("/", flags, 0)
	if err != nil {
		return nil, nil, err
	}
	walked := "/"
	for _, name := range strings.Split(filepath.Clean(path), "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, flags, 0)
		unix.Close(fd)
		walked = filepath.Join(walked, name)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				if target, lerr := os.Readlink(walked); lerr == nil {
					return nil, nil, fmt.Errorf("%s is now a link to %s", walked, target)
				}
				return nil, nil, fmt.Errorf("%s is no longer a folder", walked)
			}
			if errors.Is(err, unix.ENOENT) {
				return nil, nil, fmt.Errorf("%s no longer exists", walked)
			}
			return nil, nil, fmt.Errorf("%s: %v", walked, err)
		}
		fd = next
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), path), &st, nil
}

// Changed says how the folder changed since it was pinned, or "" when its
// path still names the folder held; for work done on paths under it
// outside Run (Move to Trash), just before it starts.
func (p *DirPin) Changed() string {
	if p == nil {
		return ""
	}
	return p.check()
}

// check reports why the pinned folder can no longer be used, or "" when
// its path still names the very folder held open.
func (p *DirPin) check() string {
	var held unix.Stat_t
	if err := unix.Fstat(int(p.f.Fd()), &held); err != nil {
		return "it can no longer be read (" + err.Error() + ")"
	}
	if held.Nlink == 0 {
		return "it was deleted"
	}
	f, st, err := openNoFollow(p.Path)
	if err != nil {
		return err.Error()
	}
	f.Close()
	if uint64(st.Dev) != p.dev || uint64(st.Ino) != p.ino {
		return p.Path + " is now another folder"
	}
	return ""
}

// dirPath is the path a child process changes into to start in the pinned
// folder: on Linux the descriptor itself through /proc (the child has a
// copy of it when it changes directory, before exec), elsewhere the path,
// checked again just before.
func (p *DirPin) dirPath() string {
	if procFDs() {
		return fmt.Sprintf("/proc/self/fd/%d", p.f.Fd())
	}
	return p.Path
}

// file is the held folder, for a process that receives it as a descriptor.
func (p *DirPin) file() *os.File { return p.f }

// procFDs reports whether /proc/self/fd names this process's descriptors
// (Linux with /proc mounted).
var procFDs = sync.OnceValue(func() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	f, err := os.Open("/")
	if err != nil {
		return false
	}
	defer f.Close()
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	return err == nil && target == "/"
})

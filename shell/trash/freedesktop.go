package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/shell/atomicfile"
)

// trashDir is one freedesktop trash: its files and info folders, and the
// folder relative to which its .trashinfo paths are written ("" for the
// home trash, whose paths are absolute).
type trashDir struct {
	root   string
	topdir string
}

// trashFreedesktop moves it.Original into the trash of its own filesystem.
func (b *Bin) trashFreedesktop(it Item) (Item, error) {
	td, real, err := b.trashFor(it.Original)
	if err != nil {
		return Item{}, err
	}
	files, info := filepath.Join(td.root, "files"), filepath.Join(td.root, "info")
	for _, d := range []string{files, info} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return Item{}, fmt.Errorf("%s: cannot create the Trash folder %s (%v)", it.Original, d, unwrapPath(err))
		}
	}
	orig := it.Original
	if td.topdir != "" {
		rel, err := filepath.Rel(td.topdir, real)
		if err != nil {
			return Item{}, fmt.Errorf("%s: %w", orig, err)
		}
		orig = rel
	}
	body := "[Trash Info]\nPath=" + encodePath(orig) + "\nDeletionDate=" + b.o.Now().Format("2006-01-02T15:04:05") + "\n"
	base := filepath.Base(it.Original)
	for n := 1; n < 10000; n++ {
		name := uniqueName(base, n)
		infoPath := filepath.Join(info, name+".trashinfo")
		// The spec's lock: whoever creates the .trashinfo first owns the
		// name, so two programs trashing "notes.txt" at once never collide.
		f, err := os.OpenFile(infoPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return Item{}, fmt.Errorf("%s: cannot write to the Trash (%v)", it.Original, unwrapPath(err))
		}
		_, werr := f.WriteString(body)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(infoPath)
			return Item{}, fmt.Errorf("%s: cannot write to the Trash (%v)", it.Original, werr)
		}
		dst := filepath.Join(files, name)
		err = renameNoReplace(it.Original, dst)
		if errors.Is(err, fs.ErrExist) {
			// A file without its .trashinfo (left by another program):
			// keep it, and this name's info, out of the way.
			os.Remove(infoPath)
			continue
		}
		if err != nil {
			os.Remove(infoPath)
			return Item{}, fmt.Errorf("%s: could not move it to the Trash (%v); nothing was deleted", it.Original, unwrapPath(err))
		}
		_ = atomicfile.SyncDir(files)
		it.Trashed, it.Info = dst, infoPath
		return it, nil
	}
	return Item{}, fmt.Errorf("%s: the Trash holds too many items of this name; empty it and try again", it.Original)
}

// uniqueName is the n-th candidate for base in a trash: the name itself,
// then "name.2.ext", "name.3.ext"…
func uniqueName(base string, n int) string {
	if n == 1 {
		return base
	}
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if stem == "" { // ".bashrc": the dot starts the name, not an extension
		stem, ext = base, ""
	}
	return stem + "." + strconv.Itoa(n) + ext
}

// trashFor picks the trash for path by the spec: the home trash when path
// is on the same filesystem as it, else $topdir/.Trash/$uid when an
// administrator prepared $topdir/.Trash (a real folder with the sticky
// bit), else $topdir/.Trash-$uid.
//
// The folder holding path is resolved first: through a symbolic link it
// may live on another disk than its name suggests. real is path with that
// folder resolved, for the relative Path of a $topdir trash.
func (b *Bin) trashFor(path string) (td trashDir, real string, _ error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return trashDir{}, "", fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	real = filepath.Join(dir, filepath.Base(path))
	dev, err := b.o.Device(dir)
	if err != nil {
		return trashDir{}, "", fmt.Errorf("%s: %w", path, err)
	}
	home := filepath.Join(b.o.DataHome, "Trash")
	if hd, err := b.o.Device(existingAncestor(home)); err == nil && hd == dev {
		return trashDir{root: home}, real, nil
	}
	top, err := b.topdir(dir, dev)
	if err != nil {
		return trashDir{}, "", fmt.Errorf("%s: %w", path, err)
	}
	uid := strconv.Itoa(b.o.UID)
	shared := filepath.Join(top, ".Trash")
	if fi, err := os.Lstat(shared); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0 {
		dir := filepath.Join(shared, uid)
		if err := os.Mkdir(dir, 0o700); err == nil || errors.Is(err, fs.ErrExist) {
			if ok, _ := b.usable(dir); ok {
				return trashDir{root: dir, topdir: top}, real, nil
			}
		}
	}
	own := filepath.Join(top, ".Trash-"+uid)
	if err := os.Mkdir(own, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return trashDir{}, "", fmt.Errorf("%w at %s (cannot create %s: %v); use Delete instead", ErrCrossDevice, top, own, unwrapPath(err))
	}
	if ok, why := b.usable(own); !ok {
		return trashDir{}, "", fmt.Errorf("%w at %s (%s); use Delete instead", ErrCrossDevice, top, why)
	}
	return trashDir{root: own, topdir: top}, real, nil
}

// usable checks a per-user trash folder: a real folder (not a symlink
// someone planted) that belongs to the user.
func (b *Bin) usable(dir string) (bool, string) {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return false, unwrapPath(err).Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, dir + " is a symbolic link"
	case !fi.IsDir():
		return false, dir + " is not a folder"
	}
	if uid, ok := ownerOf(fi); ok && uid != b.o.UID {
		return false, dir + " belongs to another user"
	}
	return true, ""
}

// topdir is the mount point holding dir: the highest ancestor still on
// device dev.
func (b *Bin) topdir(dir string, dev uint64) (string, error) {
	top := dir
	for p := dir; ; {
		parent := filepath.Dir(p)
		if parent == p {
			return p, nil
		}
		d, err := b.o.Device(parent)
		if err != nil {
			return "", err
		}
		if d != dev {
			return top, nil
		}
		top, p = parent, parent
	}
}

// existingAncestor is p or its nearest existing parent, for a trash
// folder not created yet.
func existingAncestor(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// encodePath percent-encodes a path for a .trashinfo Path key, as URIs
// escape (RFC 2396): letters, digits, "/" and -_.!~*'() stay, every other
// byte becomes %XX.
func encodePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("/-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

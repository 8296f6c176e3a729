package trash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// finderTimeout bounds one Finder call; the first one may wait for the
// user to allow Hark to control Finder.
const finderTimeout = 30 * time.Second

// trashMac moves it.Original to the user's Trash: through Finder when it
// answers, so Finder's Put Back knows the way home, else by a rename into
// ~/.Trash under a unique name.
func (b *Bin) trashMac(ctx context.Context, it Item) (Item, error) {
	fi, err := os.Lstat(it.Original)
	if err != nil {
		return Item{}, fmt.Errorf("%s: %w", it.Original, unwrapPath(err))
	}
	// Finder resolves a symbolic link to what it points at, which would
	// trash the target instead of the link.
	noPutBack := "Hark is set to move files itself"
	if fi.Mode()&fs.ModeSymlink != 0 {
		noPutBack = "Finder would have trashed what the link points to"
	}
	if b.o.Finder != nil && fi.Mode()&fs.ModeSymlink == 0 {
		fctx, cancel := context.WithTimeout(ctx, finderTimeout)
		dst, ferr := b.o.Finder(fctx, it.Original)
		cancel()
		if ferr == nil {
			if _, err := os.Lstat(it.Original); errors.Is(err, fs.ErrNotExist) {
				if _, err := os.Lstat(dst); err == nil {
					it.Trashed = dst
					return it, nil
				}
			}
		}
		// Finder said no, or did something this package cannot account
		// for; if the file is still in place, the plain move is truthful.
		if _, err := os.Lstat(it.Original); err != nil {
			return Item{}, fmt.Errorf("%s: Finder moved it, but Hark cannot tell where (%v); look in the Trash", it.Original, ferr)
		}
		noPutBack = "Finder did not take it"
		if ferr != nil {
			noPutBack += " (" + ferr.Error() + ")"
		}
	}
	trash := filepath.Join(b.o.Home, ".Trash")
	if err := os.MkdirAll(trash, 0o700); err != nil {
		return Item{}, fmt.Errorf("%s: cannot create %s (%v)", it.Original, trash, unwrapPath(err))
	}
	dev, err := b.o.Device(filepath.Dir(it.Original))
	if err != nil {
		return Item{}, fmt.Errorf("%s: %w", it.Original, err)
	}
	if td, err := b.o.Device(trash); err != nil || td != dev {
		return Item{}, fmt.Errorf("%s: %w (it is on another volume than %s and Finder did not take it); use Delete instead", it.Original, ErrCrossDevice, trash)
	}
	base := filepath.Base(it.Original)
	stamp := b.o.Now().Format("15.04.05")
	for n := 1; n < 10000; n++ {
		dst := filepath.Join(trash, macName(base, stamp, n))
		err := renameNoReplace(it.Original, dst)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return Item{}, fmt.Errorf("%s: could not move it to the Trash (%v); nothing was deleted", it.Original, unwrapPath(err))
		}
		it.Trashed = dst
		it.NoPutBack = noPutBack
		return it, nil
	}
	return Item{}, fmt.Errorf("%s: the Trash holds too many items of this name; empty it and try again", it.Original)
}

// macName is the n-th candidate name in ~/.Trash, the way Finder names a
// clash: "report.pdf", then "report 12.03.41.pdf" (the time of deletion),
// then "report 12.03.41 2.pdf"…
func macName(base, stamp string, n int) string {
	if n == 1 {
		return base
	}
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if stem == "" || strings.Contains(ext, " ") { // "v1.2 final" has no extension
		stem, ext = base, ""
	}
	if n == 2 {
		return stem + " " + stamp + ext
	}
	return stem + " " + stamp + " " + strconv.Itoa(n-1) + ext
}

// finderDelete asks Finder to move path to the Trash and returns where the
// item went. The path travels as an argument, never inside the script.
func finderDelete(ctx context.Context, path string) (string, error) {
	osa, err := exec.LookPath("osascript")
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, osa,
		"-e", "on run argv",
		"-e", "set f to POSIX file (item 1 of argv) as alias",
		"-e", `tell application "Finder" to set t to delete f`,
		"-e", "return POSIX path of (t as alias)",
		"-e", "end run",
		path)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("Finder: %s", strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	dst := strings.TrimSpace(string(out))
	if dst == "" {
		return "", errors.New("Finder did not say where the item went")
	}
	return filepath.Clean(dst), nil
}

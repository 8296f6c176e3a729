// Package trash moves files to the user's Trash instead of deleting them and
// puts them back on request. On Linux (and other Unix desktops) it follows
// the freedesktop.org Trash specification: the home trash under
// $XDG_DATA_HOME/Trash, and $topdir/.Trash/$uid or $topdir/.Trash-$uid for
// files on other mounts. On macOS it asks Finder, which keeps its own "Put
// Back", and falls back to a move into ~/.Trash under a unique name.
//
// A file is only ever renamed into the trash of its own filesystem, never
// copied and deleted across mounts. The last trashed set is kept in a small
// JSON file written atomically, so `hark undo` can restore it from another
// process; a restore never overwrites anything that exists.
package trash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hark-sh/hark/shell/atomicfile"
)

// Item is one file or folder that was moved to the Trash.
type Item struct {
	Original string `json:"original"`       // the absolute path it had
	Trashed  string `json:"trashed"`        // where it is now
	Info     string `json:"info,omitempty"` // its .trashinfo file (freedesktop only)
	Dir      bool   `json:"dir,omitempty"`
	// NoPutBack, on macOS, says why the item was moved into ~/.Trash by a
	// plain rename rather than by Finder, whose Put Back then does not
	// know where it came from ("" when Finder took it, or elsewhere).
	NoPutBack string `json:"noPutBack,omitempty"`
}

// Record is one trashed set: what one Move to Trash moved.
type Record struct {
	Time    time.Time `json:"time"`
	Command string    `json:"command,omitempty"` // the deletion it stood in for
	Items   []Item    `json:"items"`
}

// Summary is how a result names the set: "3 items", "notes.txt".
func (r Record) Summary() string {
	switch len(r.Items) {
	case 0:
		return "nothing"
	case 1:
		return filepath.Base(r.Items[0].Original)
	default:
		return fmt.Sprintf("%d items", len(r.Items))
	}
}

// Errors callers branch on.
var (
	// ErrNothingToUndo: no trashed set is recorded, or it was restored.
	ErrNothingToUndo = errors.New("nothing to undo: Hark has not moved anything to the Trash since the last undo")
	// ErrWouldOverwrite: a path to restore to exists again; nothing moved.
	ErrWouldOverwrite = errors.New("something now exists where a trashed item would go back")
	// ErrUnsafeRestore: the way back to an item's place is not the one it
	// left by (a folder on it is now a link), or the place is outside
	// home; nothing moved.
	ErrUnsafeRestore = errors.New("the way back is not the one the item left by")
	// ErrCrossDevice: no trash exists on the file's own disk.
	ErrCrossDevice = errors.New("no usable Trash on this file's disk")
)

// Options configure a Bin. The zero value of each field is the real
// machine's; tests inject the others.
type Options struct {
	GOOS     string // "": runtime.GOOS; "darwin" selects the ~/.Trash layout
	Home     string // "": os.UserHomeDir()
	DataHome string // $XDG_DATA_HOME; "": Home/.local/share (freedesktop only)
	UID      int    // 0 with UIDSet false: os.Getuid()
	UIDSet   bool
	// State is the file that remembers the last trashed set; "": not kept.
	State string
	// Device names the filesystem holding path (st_dev); nil: lstat.
	Device func(path string) (uint64, error)
	// Finder moves path to the Trash through Finder and returns where it
	// went (macOS only); nil: osascript when it exists. An error falls back
	// to the plain move.
	Finder func(ctx context.Context, path string) (string, error)
	// NoFinder keeps to the plain move on macOS.
	NoFinder bool
	Now      func() time.Time // nil: time.Now
}

// Bin moves files to the Trash and restores them. It is safe for
// concurrent use; Trash and Undo of one Bin are serialised.
type Bin struct {
	o  Options
	mu sync.Mutex
}

// New fills defaults.
func New(o Options) (*Bin, error) {
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("trash: no home folder (%v); set HOME", err)
		}
		o.Home = h
	}
	o.Home = filepath.Clean(o.Home)
	if o.DataHome == "" {
		o.DataHome = filepath.Join(o.Home, ".local", "share")
	}
	if !o.UIDSet {
		o.UID = os.Getuid()
	}
	if o.Device == nil {
		o.Device = deviceOf
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.GOOS == "darwin" && o.Finder == nil && !o.NoFinder {
		o.Finder = finderDelete
	}
	return &Bin{o: o}, nil
}

// Trash moves every path to the Trash, in order, and records the moved set
// as the last one (replacing the one before) when anything moved. Paths
// must be absolute. A path that cannot be moved is reported in the error
// and the others still move; the Record lists exactly what moved.
func (b *Bin) Trash(ctx context.Context, command string, paths []string) (Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rec := Record{Time: b.o.Now(), Command: command, Items: []Item{}}
	var errs []error
	for _, p := range collapse(paths) {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		it, err := b.trashOne(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rec.Items = append(rec.Items, it)
	}
	if len(rec.Items) > 0 && b.o.State != "" {
		unlock := lockFile(b.o.State + ".lock")
		if _, _, lerr := b.Last(); lerr != nil {
			errs = append(errs, lerr) // moved aside; the new set replaces it
		}
		err := b.saveLast(rec)
		unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("the items are in the Trash, but Hark could not remember them for undo: %w", err))
		}
	}
	return rec, errors.Join(errs...)
}

// collapse drops duplicates and any path inside another one of the list:
// moving the folder moves them with it.
func collapse(paths []string) []string {
	clean := make([]string, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			clean = append(clean, p)
		}
	}
	out := clean[:0:0]
	for _, p := range clean {
		inside := false
		for q := filepath.Dir(p); ; q = filepath.Dir(q) {
			if seen[q] && q != p {
				inside = true
				break
			}
			if q == filepath.Dir(q) {
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}

func (b *Bin) trashOne(ctx context.Context, p string) (Item, error) {
	if !filepath.IsAbs(p) {
		return Item{}, fmt.Errorf("%s: not an absolute path", p)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return Item{}, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	if b.inTrash(p) {
		return Item{}, fmt.Errorf("%s is already in the Trash", p)
	}
	it := Item{Original: p, Dir: fi.IsDir()}
	if b.o.GOOS == "darwin" {
		return b.trashMac(ctx, it)
	}
	return b.trashFreedesktop(it)
}

// inTrash says whether p lies inside a trash folder, where moving it "to
// the Trash" means nothing.
func (b *Bin) inTrash(p string) bool {
	if home := filepath.Join(b.o.DataHome, "Trash"); p == home || within(p, home) {
		return true
	}
	own := ".Trash-" + strconv.Itoa(b.o.UID)
	for q := p; q != filepath.Dir(q); q = filepath.Dir(q) {
		switch filepath.Base(q) {
		case ".Trash", ".Trashes", own:
			return true
		}
	}
	return false
}

// within says whether p is strictly inside dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Undo restores every item of rec to where it was. If anything exists at
// one of the original paths, or a folder to restore into is gone, nothing
// is moved and the error says which (ErrWouldOverwrite). Items no longer
// in the Trash (it was emptied) are reported and skipped. It returns the
// items restored.
func (b *Bin) Undo(rec Record) ([]Item, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	restored, _, err := b.undo(rec)
	return restored, err
}

func (b *Bin) undo(rec Record) (restored, left []Item, _ error) {
	var blocked, gone, unsafe []string
	var todo []Item
	for _, it := range rec.Items {
		if _, err := os.Lstat(it.Trashed); err != nil {
			gone = append(gone, it.Original)
			continue
		}
		if _, err := os.Lstat(it.Original); err == nil {
			blocked = append(blocked, it.Original+" exists")
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			blocked = append(blocked, fmt.Sprintf("%s cannot be checked (%v)", it.Original, unwrapPath(err)))
			continue
		}
		if err := b.wayBack(it.Original); err != nil {
			unsafe = append(unsafe, err.Error())
			continue
		}
		if parent := filepath.Dir(it.Original); !isDir(parent) {
			blocked = append(blocked, "the folder "+parent+" is gone")
			continue
		}
		todo = append(todo, it)
	}
	if len(unsafe) > 0 {
		return nil, rec.Items, fmt.Errorf("%w: %s. Nothing was restored; the items are still in the Trash", ErrUnsafeRestore, strings.Join(unsafe, "; "))
	}
	if len(blocked) > 0 {
		return nil, rec.Items, fmt.Errorf("%w: %s. Nothing was restored; move those aside and undo again", ErrWouldOverwrite, strings.Join(blocked, "; "))
	}
	var errs []error
	for i, it := range todo {
		if err := b.restoreTo(it.Trashed, it.Original); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("%w: %s appeared while restoring", ErrWouldOverwrite, it.Original)
			}
			errs = append(errs, fmt.Errorf("restore %s: %w", it.Original, err))
			left = append(left, todo[i:]...)
			break
		}
		if it.Info != "" {
			os.Remove(it.Info) // the file is back; a stale entry would show a ghost in the file manager
		}
		restored = append(restored, it)
	}
	if len(gone) > 0 {
		errs = append(errs, fmt.Errorf("no longer in the Trash (was it emptied?), so not restored: %s", strings.Join(gone, ", ")))
	}
	return restored, left, errors.Join(errs...)
}

// homeRel splits original into the home folder it lies strictly inside
// (as recorded, or with its links followed) and the path below it.
func (b *Bin) homeRel(original string) (root, rel string, err error) {
	original = filepath.Clean(original)
	roots := []string{b.o.Home}
	if real, err := filepath.EvalSymlinks(b.o.Home); err == nil && real != b.o.Home {
		roots = append(roots, real)
	}
	for _, r := range roots {
		if within(original, r) {
			rel, _ := filepath.Rel(r, original)
			return r, rel, nil
		}
	}
	return "", "", fmt.Errorf("%s is not inside the home folder %s, so Hark does not put it back", original, b.o.Home)
}

// wayBack checks, before anything moves, that every folder between home
// and original is still a folder and not a link: a link there now would
// put the item back somewhere else than it came from.
func (b *Bin) wayBack(original string) error {
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
			return nil // a folder that is gone: reported as such below
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is no longer the folder it was (now a link or a file)", at)
		}
	}
	return nil
}

// StateFile is the file that records the last trashed set ("" when none
// is kept). The app watches it, since `hark undo` and `hark ask` change it
// too.
func (b *Bin) StateFile() string { return b.o.State }

// Last is the recorded last trashed set, if any.
func (b *Bin) Last() (Record, bool, error) {
	if b.o.State == "" {
		return Record{}, false, nil
	}
	data, err := os.ReadFile(b.o.State)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read %s: %w", b.o.State, err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Record{}, false, b.moveAside(err)
	}
	return rec, len(rec.Items) > 0, nil
}

// moveAside keeps an unreadable state file under another name, so the
// next Move to Trash does not overwrite what it may still say.
func (b *Bin) moveAside(why error) error {
	base := fmt.Sprintf("%s.corrupt-%s", b.o.State, b.o.Now().Format("20060102-150405"))
	aside := base
	err := renameNoReplace(b.o.State, aside)
	for n := 2; errors.Is(err, fs.ErrExist) && n < 100; n++ {
		aside = fmt.Sprintf("%s-%d", base, n) // an earlier one this second is kept too
		err = renameNoReplace(b.o.State, aside)
	}
	if err != nil {
		return fmt.Errorf("%s is not a trash record (%v) and could not be moved aside (%v); the items are still in the Trash, restore them from your file manager", b.o.State, why, unwrapPath(err))
	}
	return fmt.Errorf("%s was not a trash record (%v) and is kept as %s; the items it named are still in the Trash, restore them from your file manager", b.o.State, why, aside)
}

// UndoLast restores the last trashed set and forgets it. When only part of
// it could be restored, the rest stays recorded for another try.
func (b *Bin) UndoLast() (Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.o.State != "" {
		// The app and `hark undo` may both reach for the same set.
		defer lockFile(b.o.State + ".lock")()
	}
	rec, ok, err := b.Last()
	if err != nil {
		return Record{}, err
	}
	if !ok {
		return Record{}, ErrNothingToUndo
	}
	restored, left, uerr := b.undo(rec)
	done := rec
	done.Items = restored
	if len(restored) == 0 && len(left) == len(rec.Items) {
		return done, uerr // nothing changed: keep the record as it is
	}
	rest := rec
	rest.Items = left
	var serr error
	if len(left) == 0 {
		serr = os.Remove(b.o.State)
		if errors.Is(serr, fs.ErrNotExist) {
			serr = nil
		}
	} else {
		serr = b.saveLast(rest)
	}
	if serr != nil {
		serr = fmt.Errorf("the items are back, but Hark could not update %s: %w", b.o.State, serr)
	}
	return done, errors.Join(uerr, serr)
}

func (b *Bin) saveLast(rec Record) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(b.o.State, append(data, '\n'), 0o600)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// unwrapPath drops the *fs.PathError wrapper whose path the caller already
// names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

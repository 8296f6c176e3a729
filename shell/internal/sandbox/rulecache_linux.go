//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// A Landlock rule lands on the inode its path led to when the rule was
// added, so a ruleset built once confines a later run exactly as one built
// afresh would while every path it was built from still leads where it
// led and every folder it listed still holds the same entries. fsDeps
// records that much of a build; checking it is a few stat calls, where
// building the ruleset of a run that hides the user's keys opens and adds
// one rule for each entry of every folder on the way to them (hundreds in
// a home folder, as many as /tmp holds in tests) and costs more than the
// rest of starting the command.

// fsDeps are what one build of rules read of the file system.
type fsDeps struct {
	// dirs are folders the build listed, or looked a name up in on the
	// way to a path: an entry made, removed, renamed or replaced in one
	// changes its modification and change times.
	dirs []string
	// places are the scope's places, opened without following links: a
	// rule lands on what was opened.
	places []placeID
	// paths are paths a rule was added by (the temporary folder), which
	// must still lead to the same inode.
	paths []placeID
	stats []unix.Stat_t // of dirs, in order, once snapshot has taken them
	kept  bool          // snapshot found the build fit to keep
}

// placeID is a path and what it led to; ok is false where nothing was
// there.
type placeID struct {
	path     string
	ok       bool
	dev, ino uint64
}

func (d *fsDeps) dir(p string) {
	if d != nil {
		d.dirs = append(d.dirs, p)
	}
}

// lookup records the folders that decide what the absolute path p leads
// to: each folder a name of p is looked up in, following links as the
// kernel does, up to the first name that is missing (making it changes
// its folder).
func (d *fsDeps) lookup(p string) {
	if d == nil || !filepath.IsAbs(p) {
		return
	}
	cur, rest, links := "/", strings.Split(p, "/"), 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur is a real path: its parent is the folder's
			continue
		}
		d.dir(cur)
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > 40 {
			return
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
}

// add records what o recorded.
func (d *fsDeps) add(o *fsDeps) {
	if d == nil || o == nil {
		return
	}
	d.dirs = append(d.dirs, o.dirs...)
	d.places = append(d.places, o.places...)
	d.paths = append(d.paths, o.paths...)
}

// depsMargin is how recently a folder may have changed for a build that
// listed it to be kept: a change made while the build listed it could
// otherwise carry the same times as the listing saw. File systems stamp
// times from a clock that may lag by a scheduler tick (10 ms at HZ=100).
const depsMargin = 10 * time.Millisecond

// snapshot takes the times of the folders once the build is over, and
// says whether the build can be kept: every folder still there, and none
// changed since start (less depsMargin), when the build began.
func (d *fsDeps) snapshot(start time.Time) bool {
	slices.Sort(d.dirs)
	d.dirs = slices.Compact(d.dirs)
	since := start.Add(-depsMargin).UnixNano()
	d.stats = make([]unix.Stat_t, len(d.dirs))
	for i, p := range d.dirs {
		st := &d.stats[i]
		if unix.Stat(p, st) != nil || st.Ctim.Nano() >= since || st.Mtim.Nano() >= since {
			return false
		}
	}
	d.kept = true
	return true
}

// unchanged says whether everything d recorded is as it was. err is
// set where a scope's place now leads elsewhere through a link: the run
// must not start, as a build afresh would say.
func (d *fsDeps) unchanged() (bool, error) {
	if !d.kept {
		return false, nil
	}
	for i, p := range d.dirs {
		var st unix.Stat_t
		o := &d.stats[i]
		if unix.Stat(p, &st) != nil || st.Dev != o.Dev || st.Ino != o.Ino || st.Ctim != o.Ctim || st.Mtim != o.Mtim {
			return false, nil
		}
	}
	for _, p := range d.paths {
		if pathID(p.path) != p {
			return false, nil
		}
	}
	for _, p := range d.places {
		fd, err := openPlace(p.path)
		if err != nil {
			return false, err
		}
		now := placeID{path: p.path}
		if fd >= 0 {
			var st unix.Stat_t
			err := unix.Fstat(fd, &st)
			unix.Close(fd)
			if err != nil {
				return false, nil
			}
			now.ok, now.dev, now.ino = true, st.Dev, st.Ino
		}
		if now != p {
			return false, nil
		}
	}
	return true, nil
}

// pathID is what path leads to now, following links.
func pathID(path string) placeID {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return placeID{path: path}
	}
	return placeID{path: path, ok: true, dev: st.Dev, ino: st.Ino}
}

// rulesetFDs keeps the rulesets of the last few approved runs, by what
// they were built from, with what the build read (see fsDeps).
var rulesetFDs struct {
	sync.Mutex
	entries []keptRuleset
}

type keptRuleset struct {
	key   string
	deps  *fsDeps
	fd    int
	flags uint32
}

const maxKeptRulesets = 8

// rulesetKey is everything sandboxRules builds a ruleset from but the
// file system.
func rulesetKey(tmpDir string, hide []string, sc *scope.Scope) string {
	var b strings.Builder
	list := func(l []string) {
		for _, s := range l {
			b.WriteString(s)
			b.WriteByte(0)
		}
		b.WriteByte(1)
	}
	list([]string{tmpDir})
	list(hide)
	if sc != nil {
		list(sc.Write)
		list(sc.Remove)
		list(sc.NoRemove)
		list(sc.Keep)
		b.WriteString(strconv.FormatBool(sc.Network) + strconv.FormatBool(sc.Signals))
	}
	return b.String()
}

// keptRules returns a duplicate of the kept ruleset for key, if it is
// still what a build afresh would make; fd is -1 where there is none.
func keptRules(key string) (fd int, flags uint32, err error) {
	rulesetFDs.Lock()
	defer rulesetFDs.Unlock()
	for i, e := range rulesetFDs.entries {
		if e.key != key {
			continue
		}
		ok, err := e.deps.unchanged()
		if err != nil {
			return -1, 0, err
		}
		if ok {
			if fd, err := unix.FcntlInt(uintptr(e.fd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
				return fd, e.flags, nil
			}
		}
		unix.Close(e.fd)
		rulesetFDs.entries = slices.Delete(rulesetFDs.entries, i, i+1)
		break
	}
	return -1, 0, nil
}

// keepRules keeps a duplicate of fd for key.
func keepRules(key string, deps *fsDeps, fd int, flags uint32) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return
	}
	rulesetFDs.Lock()
	defer rulesetFDs.Unlock()
	for i, e := range rulesetFDs.entries {
		if e.key == key {
			unix.Close(e.fd)
			rulesetFDs.entries = slices.Delete(rulesetFDs.entries, i, i+1)
			break
		}
	}
	if len(rulesetFDs.entries) == maxKeptRulesets {
		unix.Close(rulesetFDs.entries[0].fd)
		rulesetFDs.entries = rulesetFDs.entries[1:]
	}
	rulesetFDs.entries = append(rulesetFDs.entries, keptRuleset{key: key, deps: deps, fd: dup, flags: flags})
}

// openPlace opens a scope's place following no link on the way, so that
// no link put there since the approval can lead a rule elsewhere. fd is
// -1, with no error, where nothing is there.
func openPlace(p string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	switch {
	case errors.Is(err, unix.ENOENT):
		return -1, nil // nothing there to change, nor to make in its place
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		real, _ := filepath.EvalSymlinks(p)
		return -1, errors.New(p + " changed after the command was approved: it now leads to " + real + " through a link. Nothing ran; ask for the command again to have it checked as things are now")
	case errors.Is(err, unix.ENOSYS):
		return -1, errors.New("this kernel cannot open a path without following links (openat2), which a scope needs")
	case err != nil:
		return -1, errors.New(p + " cannot be read: " + err.Error())
	}
	return fd, nil
}

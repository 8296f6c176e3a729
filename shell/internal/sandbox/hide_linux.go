//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// hideRules are the read rules of a ruleset that may read what readRules
// grants except the paths in hide: the user's keys and credentials, for a
// command run on behalf of another program (Spec.Hide).
//
// Landlock only grants, and a rule on a folder covers everything beneath
// it, so a hidden path is left out by granting its siblings instead of its
// parent, on every level from / down: for each folder on the way to a
// hidden path, every entry but the one that leads there is granted as a
// whole (a folder with the folder rights, a regular file with the file
// rights; sockets, pipes and devices get nothing), and the one that leads
// there is split the same way in turn. With several hidden paths no rule
// covers any of them.
//
// Landlock attaches a rule to what a path resolves to and checks an access
// against the folders the opened file really lies in, so hidden paths are
// compared by their real paths: a symbolic link into ~/.ssh, anywhere, reads
// nothing, and an entry that is a link to a hidden path, or to a folder
// holding one, is not granted (its target is reached by its real path
// where that is granted). A hidden path that does not exist is ignored.
//
// The folders on the way are listed when the ruleset is built: an entry
// created in them later (a new file directly in home) cannot be read by
// that run. That is the price for a short read-only command, and names stay
// listable everywhere (the / rule), as in every sandboxed run. A hard link
// or a bind mount of a hidden file elsewhere is not hidden.
func hideRules(hide []string) ([]landlock.Rule, error) {
	rules, _, err := hideRulesListing(hide)
	return rules, err
}

// hideRulesListing is hideRules, and what it read to build them: the
// folders it listed, and those on the way to each hidden path and to each
// link's target it granted (see fsDeps).
func hideRulesListing(hide []string) ([]landlock.Rule, *fsDeps, error) {
	deps := &fsDeps{}
	var hidden []string
	for _, p := range hide {
		if !filepath.IsAbs(p) {
			continue
		}
		// Where it leads, and whether it is there at all, may change:
		// a hidden path made later is hidden from the next run on.
		deps.lookup(filepath.Clean(p))
		if real, err := filepath.EvalSymlinks(p); err == nil {
			hidden = append(hidden, filepath.Clean(real))
		}
	}
	if len(hidden) == 0 {
		rules, err := readRules(deps)
		return rules, deps, err
	}
	h := hiddenSet(hidden)
	var dirs, files []string
	deps.dir("/dev")
	if err := h.split("/", true, &dirs, &files, deps); err != nil {
		return nil, nil, err
	}
	for _, d := range harmlessDevices {
		p := "/dev/" + d
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			files = append(files, p)
		}
	}
	rules := []landlock.Rule{landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadDir), "/")}
	if len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules, deps, nil
}

// hiddenSet holds real, clean, absolute paths.
type hiddenSet []string

// covers says whether p is a hidden path or lies inside one.
func (h hiddenSet) covers(p string) bool {
	return slices.ContainsFunc(h, func(x string) bool { return within(p, x) })
}

// leadsTo says whether a hidden path lies strictly inside p.
func (h hiddenSet) leadsTo(p string) bool {
	return slices.ContainsFunc(h, func(x string) bool { return x != p && within(x, p) })
}

// within says whether p is dir or lies inside it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// split adds to dirs and files the grants for dir's entries: whole where
// no hidden path is involved, split again on the way to one. dir is a real
// path. top is / itself, whose /dev is never granted as a whole.
func (h hiddenSet) split(dir string, top bool, dirs, files *[]string, deps *fsDeps) error {
	deps.dir(dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if top {
			return err
		}
		return nil // gone or unreadable since: nothing of it to grant
	}
	for _, e := range ents {
		if top && e.Name() == "dev" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if h.covers(p) {
			continue
		}
		if e.Type()&os.ModeSymlink == 0 && e.IsDir() && h.leadsTo(p) {
			if err := h.split(p, false, dirs, files, deps); err != nil {
				return err
			}
			continue
		}
		target := p
		if e.Type()&os.ModeSymlink != 0 {
			// The rule lands on the link's target: never one that is, or
			// holds, a hidden path.
			deps.lookup(p)
			if target, err = filepath.EvalSymlinks(p); err != nil {
				continue // dangling: nothing to read
			}
			if h.covers(target) || h.leadsTo(target) {
				continue
			}
		}
		fi, err := os.Stat(target)
		switch {
		case err != nil:
		case fi.IsDir():
			*dirs = append(*dirs, target)
		case fi.Mode().IsRegular() || top:
			// At / as readRules does; below it only regular files, since
			// a rule on anything else grants nothing a command needs.
			*files = append(*files, target)
		}
	}
	return nil
}

// hideCache keeps the rules of the last hidden lists while everything
// read to build them is unchanged (see fsDeps): the folders listed (the
// same inode, and no entry added, removed or renamed since: their ctime
// and mtime) and those on the way to each hidden path. An approved run
// from another program hides the same hundred-odd places every time, and
// listing the folders around them is most of what building the rules
// costs. The rules of no hidden path at all, readRules', are kept the
// same way.
var hideCache struct {
	sync.Mutex
	entries []hideCached
}

type hideCached struct {
	key   string
	rules []landlock.Rule
	deps  *fsDeps
}

const maxHideCached = 4

// hideRulesCached is hideRules, from the cache where it can be.
func hideRulesCached(hide []string) ([]landlock.Rule, error) {
	rules, _, err := baseRules(hide)
	return rules, err
}

// baseRules are the read rules of a ruleset that hides hide (readRules'
// where it is empty), and what was read to build them; from the cache
// where they can be. The rules are clipped: the caller appends its own,
// which must not land in the cached array.
func baseRules(hide []string) ([]landlock.Rule, *fsDeps, error) {
	key := strings.Join(hide, "\x00")
	hideCache.Lock()
	defer hideCache.Unlock()
	for i, e := range hideCache.entries {
		if e.key == key {
			if ok, _ := e.deps.unchanged(); ok {
				return slices.Clip(e.rules), e.deps, nil
			}
			hideCache.entries = slices.Delete(hideCache.entries, i, i+1)
			break
		}
	}
	// Kept only when no folder read changed since just before the
	// listing began: one changed meanwhile could have been listed as it
	// was, and its new times would make the stale rules look fresh.
	start := time.Now()
	rules, deps, err := hideRulesListing(hide)
	if err != nil {
		return nil, nil, err
	}
	if !deps.snapshot(start) {
		return slices.Clip(rules), deps, nil // gone or changed meanwhile: not kept
	}
	if len(hideCache.entries) == maxHideCached {
		hideCache.entries = hideCache.entries[1:]
	}
	hideCache.entries = append(hideCache.entries, hideCached{key: key, rules: slices.Clip(rules), deps: deps})
	return slices.Clip(rules), deps, nil
}

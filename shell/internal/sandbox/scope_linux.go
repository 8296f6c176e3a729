//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/hark-sh/hark/shell/scope"
)

// Rights of a place a scope lets a run change, in a folder with all it
// holds or in place on a file: everything a run may do in its own
// temporary folder, reading what it makes included. A private place
// hidden from the run (Spec.Hide) inside a writable folder is masked by a
// mount (maskHidden) or left out of the grant like a kept one.
var (
	treeRights = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSReadDir | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeDir |
		llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeSym |
		llsys.AccessFSTruncate)
	fileRights = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate)
)

// scopeRules are the write rules of an approved run's scope, on top of
// the read rules every sandboxed run has: each place of sc.Write with
// everything beneath it, less sc.Keep, and with no right to remove or
// rename anything in those of sc.NoRemove; the remove-folder right in
// each of sc.Remove, less sc.Keep too.
//
// Landlock only grants, and a rule covers everything beneath its folder,
// so a kept place inside a writable folder is left out as hideRules leaves
// a hidden one out of the readable tree: the folders on the way to it are
// split into their entries, and each entry but the one that leads there is
// granted whole. A kept place that does not exist yet is kept all the
// same: the folder it would be made in is split, so nothing can be created
// in it at all. A link inside a split folder is not granted, and neither
// is its target through it.
//
// Every place must be, right now, what it was when the scope was built: a
// path that leads elsewhere through a link (a folder swapped for a link
// since the approval) makes the run fail before it starts.
//
// deps, when set, records what the rules were built from (see fsDeps).
func scopeRules(sc scope.Scope, hide []string, deps *fsDeps) (rules []landlock.Rule, done func(), err error) {
	keep := make(hiddenSet, 0, len(sc.Keep)+len(hide))
	for _, k := range append(slices.Clone(sc.Keep), hide...) {
		if filepath.IsAbs(k) {
			keep = append(keep, realish(k))
			deps.lookup(filepath.Clean(k))
		}
	}
	if deps == nil {
		deps = &fsDeps{} // recorded for nobody
	}
	var held []int
	done = func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}
	grant := func(p string, dirRights, fileRights landlock.AccessFSSet) error {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("the place %q is not an absolute path", p)
		}
		p = filepath.Clean(p)
		// Opened without following any link on the way, so that no
		// link put there since the approval can lead the rule elsewhere;
		// the rule is then attached to what was opened.
		fd, err := openPlace(p)
		if err != nil {
			return err
		}
		id := placeID{path: p}
		if fd < 0 {
			deps.places = append(deps.places, id)
			return nil
		}
		held = append(held, fd)
		handle := "/proc/self/fd/" + strconv.Itoa(fd)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			deps.places = append(deps.places, id) // as nothing: never found so again
			return nil
		}
		id.ok, id.dev, id.ino = true, st.Dev, st.Ino
		deps.places = append(deps.places, id)
		if fileRights != 0 && (keep.leadsTo(p) || keep.covers(p)) {
			rules = append(rules, keep.grantBeneath(p, dirRights, fileRights, deps)...)
			return nil
		}
		switch {
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			rules = append(rules, landlock.PathAccess(dirRights, handle).WithRefer())
		case st.Mode&unix.S_IFMT == unix.S_IFREG && fileRights != 0:
			rules = append(rules, landlock.PathAccess(fileRights, handle))
		}
		return nil
	}
	for _, p := range sc.Write {
		rights := treeRights
		if slices.Contains(sc.NoRemove, p) {
			// Made and written in, never emptied: a place inside it that
			// the card names for a deletion is granted apart.
			rights &^= landlock.AccessFSSet(llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile)
		}
		if err := grant(p, rights, fileRights); err != nil {
			done()
			return nil, func() {}, err
		}
	}
	// The right to remove an empty folder is not split around kept
	// places: a kept one is held by a mount (which cannot be removed), or
	// outside the places the run may make anything in, where it could not
	// be made again.
	for _, p := range sc.Remove {
		if err := grant(p, landlock.AccessFSSet(llsys.AccessFSRemoveDir), 0); err != nil {
			done()
			return nil, func() {}, err
		}
	}
	return rules, done, nil
}

// grantBeneath grants p (a real path) with everything beneath it, less
// the kept places: dirRights on folders, fileRights on files.
func (h hiddenSet) grantBeneath(p string, dirRights, fileRights landlock.AccessFSSet, deps *fsDeps) []landlock.Rule {
	if h.covers(p) {
		return nil
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	switch {
	case fi.IsDir() && h.leadsTo(p):
		deps.dir(p)
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil
		}
		var out []landlock.Rule
		for _, e := range ents {
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			out = append(out, h.grantBeneath(filepath.Join(p, e.Name()), dirRights, fileRights, deps)...)
		}
		return out
	case fi.IsDir():
		return []landlock.Rule{landlock.PathAccess(dirRights, p).WithRefer().IgnoreIfMissing()}
	case fi.Mode().IsRegular() && fileRights != 0:
		return []landlock.Rule{landlock.PathAccess(fileRights, p).IgnoreIfMissing()}
	}
	return nil
}

// scopeConfig is the Landlock configuration of a run with sc: every file
// access handled as for the read-only sandbox; TCP handled (refused) unless
// sc.Network; signals to processes outside the run refused unless
// sc.Signals; abstract Unix sockets outside the run refused always.
func scopeConfig(sc *scope.Scope) landlock.Config {
	cfg := landlock.V11
	if sc == nil {
		return cfg
	}
	if sc.Network {
		cfg.HandledAccessNet = 0
	}
	if sc.Signals {
		cfg.Scoped &^= landlock.ScopedSet(llsys.ScopeSignal)
	}
	return cfg
}

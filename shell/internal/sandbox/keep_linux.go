//go:build linux

package sandbox

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// NeedsMounts says whether a scope keeps a place, or a run hides one,
// inside one of the scope's writable places. Landlock only grants, so
// without a mount namespace such a place is kept by splitting the folders
// on the way to it into their entries, and nothing new can be made (or,
// for a hidden one, read) in those folders; a mount over the place itself
// holds it exactly and leaves its folder as it was.
func NeedsMounts(sc *scope.Scope, hide []string) bool {
	if sc == nil {
		return false
	}
	for _, k := range append(slices.Clone(sc.Keep), hide...) {
		for _, w := range sc.Write {
			if scope.Under(filepath.Clean(k), w) {
				return true
			}
		}
	}
	return false
}

// HoldMounts starts cmd, the helper, in a mount namespace of its own: as
// root directly; otherwise in a user namespace of its own too, where the
// user's own ids map to themselves (file owners read true) and the helper
// alone holds CAP_SYS_ADMIN there, to mount. The command it starts gives
// up every capability (forkConfined), and its seccomp filter refuses
// mount and umount. The caller retries without, where the kernel refuses
// user namespaces.
func HoldMounts(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWNS
	if os.Geteuid() == 0 {
		return
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
}

// UnholdMounts undoes HoldMounts, for the retry.
func UnholdMounts(attr *syscall.SysProcAttr) {
	attr.Cloneflags &^= syscall.CLONE_NEWNS | syscall.CLONE_NEWUSER
	attr.UidMappings, attr.GidMappings, attr.AmbientCaps = nil, nil, nil
}

// holdKept holds each kept place of sc that lies inside a writable place
// read-only by a bind mount over itself, in the helper's own mount
// namespace, so that the folders around it stay writable. A kept folder
// that does not exist yet (its name ends in "/") is made, empty, to be
// held; a kept file that does not exist yet cannot be held without closing
// its whole folder, and the runner says afterwards if the run made it (see
// shell's madeKept). It returns the kept places left for Landlock: those
// outside every writable place, where it has nothing to do.
//
// made are the folders it made for that, parents included, outermost
// first: unmadeKept takes them away again after the run if it left them
// empty.
//
// plan, when set, is where the mounts go instead of being made here: the
// zygote's child makes them in a mount namespace of its own. held gets
// the places held, for holdFolders.
func holdKept(sc scope.Scope, plan *mountPlan, held *[]string) (rest []string, made madeKept, err error) {
	// Taken before anything is looked at: a run ending meanwhile does not
	// take a folder away from under this one's mount (keeplock_linux.go).
	made.lock = shareRunsLock()
	made.locked = made.lock >= 0
	for _, k := range sc.Keep {
		c := filepath.Clean(k)
		if !insideWrite(sc, c) {
			rest = append(rest, k)
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil && strings.HasSuffix(k, "/") {
			var missing []string
			for d := c; ; d = filepath.Dir(d) {
				if _, err := os.Lstat(d); err == nil || d == "/" {
					break
				}
				missing = append([]string{d}, missing...)
			}
			if err := os.MkdirAll(c, 0o700); err != nil {
				return nil, made, err
			}
			made.dirs = append(made.dirs, missing...)
			real, err = filepath.EvalSymlinks(c)
		}
		if err != nil {
			continue // a file not made yet: see above
		}
		if err := plan.bindReadOnly(real, real); err != nil {
			return nil, made, err
		}
		*held = append(*held, real)
	}
	return rest, made, nil
}

// holdFolders binds each folder on the way to each of held (the places
// held or masked by a mount), from inside the writable place around it,
// over itself: a mount point cannot be renamed or removed. Otherwise the
// run could move .git away, with the mount on its hooks, and make a .git
// of its own with hooks that the user's next git command runs; or move a
// hidden place's folder to a name the next run does not hide. Bound
// last, and with all beneath: a folder the zygote's child entered before
// its mounts still meets the holds beneath it by relative names, under
// the binds made over the folders on its way. It returns the folders
// bound, outermost first.
func holdFolders(sc scope.Scope, held []string, plan *mountPlan) ([]string, error) {
	var dirs []string
	for _, p := range held {
		for d := filepath.Dir(p); slices.ContainsFunc(sc.Write, func(w string) bool {
			w = filepath.Clean(w)
			return d != w && scope.Under(d, w)
		}); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	dirs = slices.Compact(dirs)
	for i, d := range dirs {
		if err := plan.mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return dirs[:i], err
		}
	}
	return dirs, nil
}

// unholdFolders undoes holdFolders, innermost first, so that unmadeKept
// meets the holds it takes away.
func unholdFolders(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = unix.Unmount(dirs[i], unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW)
	}
}

// unmadeKept takes away the folders holdKept made, innermost first, each
// once its mount is gone and if the run left it empty: the home folder
// is as the run left it, not as Hark's holding left it. mounted says
// the mounts are in this namespace (the helper's); the zygote's never
// had them, and must not unmount there what a path leads to now. No
// link is followed: the folders are in a place the run could write. A
// folder another run holds stays (keeplock_linux.go).
func unmadeKept(made madeKept, mounted bool) {
	if !made.locked {
		return // nothing held, or no lock to be had: nothing is taken away
	}
	unix.Close(made.lock)
	if len(made.dirs) == 0 {
		return
	}
	lock, err := runsLock()
	if err != nil {
		return
	}
	defer unix.Close(lock)
	if unix.Flock(lock, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // another run holds kept places now: they stay
	}
	for i := len(made.dirs) - 1; i >= 0; i-- {
		d := made.dirs[i]
		// Every mount on it: a hidden place is masked over its hold.
		for n := 0; mounted && n < 8 && unix.Unmount(d, unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW) == nil; n++ {
		}
		if dir, err := openNoLinks(filepath.Dir(d)); err == nil {
			_ = unix.Unlinkat(dir, filepath.Base(d), unix.AT_REMOVEDIR) // fails, as it should, where the run put something
			unix.Close(dir)
		}
	}
}

// insideWrite says whether the clean path p lies in a writable place of sc.
func insideWrite(sc scope.Scope, p string) bool {
	return slices.ContainsFunc(sc.Write, func(w string) bool { return scope.Under(p, filepath.Clean(w)) })
}

// bindReadOnly mounts src over dst, read-only.
func (p *mountPlan) bindReadOnly(src, dst string) error {
	if err := p.mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return p.mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, "")
}

// mountPlan collects mount calls for a child of the zygote to make, in a
// mount namespace of its own, between fork and exec (see childConfine); a
// nil plan makes each call at once.
type mountPlan struct {
	ops []mountOp
}

// mountOp is one mount(2) call, its strings ready for a raw system call.
type mountOp struct {
	src, dst, fstype, data *byte // data is nil for none
	flags                  uintptr
}

func (p *mountPlan) mount(src, dst, fstype string, flags uintptr, data string) error {
	if p == nil {
		return unix.Mount(src, dst, fstype, flags, data)
	}
	var op mountOp
	var err error
	for _, f := range []struct {
		to **byte
		s  string
	}{{&op.src, src}, {&op.dst, dst}, {&op.fstype, fstype}, {&op.data, data}} {
		if f.to == &op.data && data == "" {
			continue
		}
		if *f.to, err = unix.BytePtrFromString(f.s); err != nil {
			return err
		}
	}
	op.flags = flags
	p.ops = append(p.ops, op)
	return nil
}

// holdPlan is holdKept and maskHidden for a child of the zygote: the
// mounts it must make (first making every mount of its new namespace a
// slave of the zygote's, as privatize does), the kept and hidden places
// left to Landlock, and the folders made for kept ones (see unmadeKept).
func holdPlan(sc scope.Scope, hide []string) (ops []mountOp, keep, restHide []string, made madeKept, err error) {
	plan := &mountPlan{}
	if err := plan.mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return nil, nil, nil, made, err
	}
	var held []string
	keep, made, err = holdKept(sc, plan, &held)
	if err == nil {
		restHide, err = maskHidden(sc, hide, plan, &held)
	}
	if err == nil {
		_, err = holdFolders(sc, held, plan)
	}
	if err != nil {
		unmadeKept(made, false)
		return nil, nil, nil, madeKept{}, err
	}
	return plan.ops, keep, restHide, made, nil
}

// ZygoteMounts says whether a zygote can hold a scope's kept places by
// mounts itself (Spec.Mounts, MountsZygoteFor): as root the zygote, which
// runs in a mount namespace of its own (see startZygote); otherwise a
// second zygote started in a user and a mount namespace of its own, where
// the kernel lets this user make them. Elsewhere the per-command helper
// holds them, or Landlock alone.
func ZygoteMounts() bool { return CanMountScratch() || CanHoldMounts() }

// ownUserNamespace says whether this process is in a user namespace other
// than the first: there it may mount only in mount namespaces of its own
// user namespace, never in the one it was started from.
func ownUserNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	f := strings.Fields(string(b))
	return err == nil && !(len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295")
}

// errNoMounts is the zygote's answer to a run with mounts it cannot hold;
// Zygote.Run then says the request never reached it.
const errNoMounts = "the command runner cannot hold mounts here"

// CanHoldMounts says whether HoldMounts works here: always for root; for
// other users where the kernel lets them make a user namespace (some
// distributions refuse it, or let only programs they name do it).
var CanHoldMounts = sync.OnceValue(func() bool {
	if os.Geteuid() == 0 {
		return true
	}
	c := exec.Command("/bin/true")
	c.SysProcAttr = &syscall.SysProcAttr{}
	HoldMounts(c.SysProcAttr)
	return c.Run() == nil
})

// privatize makes the helper's mount namespace its own: no mount made in
// it reaches the rest of the system.
func privatize() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, "") }

// maskHidden hides each of hide that lies inside a writable place of sc
// by a mount over it: an empty, read-only, unreadable file system over a
// folder, a read-only /dev/null over a file. It returns the rest, for
// Landlock to hide by leaving them out of its read rules.
//
// plan, when set, is where the mounts go; held gets the places masked
// (see holdKept).
func maskHidden(sc scope.Scope, hide []string, plan *mountPlan, held *[]string) (rest []string, err error) {
	var masked []string
	for _, h := range hide {
		c := filepath.Clean(h)
		if !insideWrite(sc, c) {
			rest = append(rest, h)
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue // nothing there to read
		}
		if plan != nil && slices.ContainsFunc(masked, func(m string) bool { return scope.Under(real, m) }) {
			// Inside a folder masked already: made at once, the mask
			// would leave nothing there to look up; planned, the mount
			// would find nothing there to mount on.
			continue
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			if err := plan.mount("hark-hidden", real, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=1,mode=000"); err != nil {
				return nil, err
			}
			masked = append(masked, real)
			*held = append(*held, real)
			continue
		}
		if err := plan.bindReadOnly("/dev/null", real); err != nil {
			return nil, err
		}
		*held = append(*held, real)
	}
	return rest, nil
}

// MountsRuleset builds, in the runner, the Landlock ruleset of an approved
// run whose helper holds the kept and hidden places inside writable ones
// by mounts (HoldMounts, MountsArg): the ruleset of what holdKept and
// maskHidden leave to Landlock, those outside every writable place. The
// runner keeps it for the next run of the same scope while what it was
// built from is unchanged (see fsDeps); the helper is a new process each
// run, and building it there would list every folder on the way to each
// hidden place every time. The helper gets it as RulesetFD with
// RulesetArg and flags. The caller closes f.
func MountsRuleset(tmpDir string, hide []string, sc *scope.Scope) (f *os.File, flags uint32, err error) {
	if sc == nil {
		return nil, 0, errors.New("no scope")
	}
	rest := *sc
	rest.Keep = nil
	for _, k := range sc.Keep {
		if !insideWrite(*sc, filepath.Clean(k)) {
			rest.Keep = append(rest.Keep, k)
		}
	}
	var restHide []string
	for _, h := range hide {
		if !insideWrite(*sc, filepath.Clean(h)) {
			restHide = append(restHide, h)
		}
	}
	fd, flags, err := buildRules(tmpDir, restHide, &rest, true)
	if err != nil {
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), "landlock-ruleset"), flags, nil
}

// isRuleset says whether fd is a Landlock ruleset.
func isRuleset(fd int) bool {
	var b [64]byte
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), b[:])
	return err == nil && string(b[:n]) == "anon_inode:[landlock-ruleset]"
}

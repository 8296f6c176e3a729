//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// A sandboxed command is confined as a whole process: the zygote (or the
// per-command helper) forks a child, and the child, before it executes the
// shell, puts itself in a new session, drops every capability, sets limits,
// enters its own Landlock domain, closes every descriptor but 0–2 and
// installs the seccomp filter. No thread of the zygote ever carries the
// sandbox, so no code that runs inside it shares a domain with a thread of
// an unconfined process (a thread that a sandboxed ptrace or /proc/PID/mem
// could reach).
//
// Go cannot run ordinary code in a forked child of a multi-threaded
// process, so the child runs childConfine: a nosplit function that makes
// only raw system calls on data prepared before the fork, as the standard
// library's own forkAndExecInChild does. forkChild is per architecture: on
// x86-64 a vfork onto a stack of its own (no page tables to copy, as
// posix_spawn does it), elsewhere a plain fork.

// Stages a child reports, with the errno, when it cannot start the command.
const (
	stageSetsid = iota + 1
	stageCgroup
	stageFDs
	stageChdir
	stageRlimit
	stageCaps
	stageNoNewPrivs
	stageLandlock
	stageCloseRange
	stageSeccomp
	stageExec
	stageMounts
)

var stageNames = map[uint32]string{
	stageSetsid: "start a new session", stageCgroup: "join the sandbox's process cap", stageFDs: "set up its descriptors", stageChdir: "enter the working directory",
	stageRlimit: "set resource limits", stageCaps: "drop capabilities", stageNoNewPrivs: "set no_new_privs",
	stageLandlock: "enter the Landlock domain", stageCloseRange: "close inherited descriptors",
	stageSeccomp: "install the seccomp filter", stageExec: "execute the shell",
	stageMounts: "hold the kept places by mounts",
}

// childSpec is everything the child uses, built before the fork. Only
// integers and pointers to memory that stays reachable from the parent.
type childSpec struct {
	argv0 *byte
	argv  **byte // nil-terminated
	envv  **byte // nil-terminated
	dir   *byte
	// stdin, stdout, stderr, the status pipe's write end, and the run's
	// scratch file system (or -1), which the child keeps as scratchFD
	fds [5]int
	// liftTo is the lowest number the child moves descriptors to before it
	// puts them in place: past every number it puts one at.
	liftTo uintptr

	// mounts are made, in that order, in a mount namespace of the child's
	// own, before it gives up its capabilities (see holdPlan).
	mounts []mountOp

	// The confinement.
	cgroup     int // cgroup.procs of the zygote's pids cgroup, or -1
	memCgroup  int // cgroup.procs of the run's memory cgroup, or -1
	ruleset    int // Landlock ruleset, or -1
	rulesFlags uintptr
	filter     *unix.SockFprog
	filter2    *unix.SockFprog // installed after filter, or nil
	rlimits    [len(sandboxLimits)]rlimitSet
	dropCaps   bool // CAP_SETPCAP is held: empty the bounding set and lock the securebits
	lastCap    uintptr
	capHeader  unix.CapUserHeader
	capData    [2]unix.CapUserData // zero: no capabilities
}

type rlimitSet struct {
	resource uintptr
	limit    unix.Rlimit
}

// securebits that keep uid 0 from regaining capabilities on exec, locked.
const lockedNoRoot = 0x1 | 0x2 | 0x4 | 0x8 | 0x20 | 0x40 | 0x80 // NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and their locks, and KEEP_CAPS locked off

// sandboxLimits bound what one auto-run command can take from the machine
// before its timeout: CPU seconds per process, data memory per process, the
// size of any file it writes (only its TMPDIR is writable, but a full disk
// hurts everyone), no core dumps (the kernel would write them past
// Landlock), no locked memory, and few descriptors (ReadOnlyFileLimit:
// each socket or pipe holds kernel memory that no process shows).
// Processes are bounded separately (see processLimit). A limit is only
// ever lowered, never raised.
var sandboxLimits = [...]struct {
	resource  int
	soft, max uint64
}{
	{unix.RLIMIT_CPU, 20, 25},
	{unix.RLIMIT_DATA, 4 << 30, 4 << 30},
	{unix.RLIMIT_FSIZE, 1 << 30, 1 << 30},
	{unix.RLIMIT_CORE, 0, 0},
	{unix.RLIMIT_MEMLOCK, 0, 0},
	{unix.RLIMIT_NPROC, 0, 0}, // filled in by processLimit
	{unix.RLIMIT_NOFILE, ReadOnlyFileLimit, ReadOnlyFileLimit},
}

// processHeadroom is how many more processes than the user already has a
// sandboxed command may start (RLIMIT_NPROC counts all of the user's). Linux
// does not apply RLIMIT_NPROC to uid 0, so as root only the timeout and the
// other limits hold a fork loop.
const processHeadroom = 256

// processCount caches the user's process count, which RLIMIT_NPROC is
// measured against; counting takes a pass over /proc, too slow per run.
var processCount struct {
	mu    sync.Mutex
	n     int
	taken time.Time
}

// processLimit is the RLIMIT_NPROC for a sandboxed command.
func processLimit() uint64 {
	processCount.mu.Lock()
	defer processCount.mu.Unlock()
	if time.Since(processCount.taken) > 10*time.Second {
		processCount.n = countProcesses(os.Getuid())
		processCount.taken = time.Now()
	}
	return uint64(processCount.n + processHeadroom)
}

func countProcesses(uid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 4096 // unknown: generous rather than breaking every command
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == uid {
			n++
		}
	}
	return n
}

// capabilities is read once: whether this process may drop capabilities
// from the bounding set, and the highest capability the kernel knows.
var capabilities = sync.OnceValues(func() (setpcap bool, last uintptr) {
	last = 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			last = uintptr(n)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) == nil {
		setpcap = data[0].Effective&(1<<unix.CAP_SETPCAP) != 0
	}
	return setpcap, last
})

// sandboxRules returns a Landlock ruleset for one run: read everything but
// /dev; write, create and delete only in tmpDir (but make no device nodes
// there, which a root command could then open past every other rule);
// write /dev/null. With the kernel's ABI 6 and later the configuration also
// scopes signals and abstract Unix sockets to the run's own domain, and from
// ABI 4 it refuses TCP, on top of the seccomp filter that refuses sockets.
//
// Landlock only grants, so "all but /dev" is built from what it consists
// of: every entry of / but dev, then the few harmless devices of /dev by
// name (see harmlessDevices). Terminals (/dev/pts/*, /dev/tty*, /dev/ptmx,
// /dev/console, /dev/vcs*), input devices and raw disks are covered by no
// rule, so a command cannot read a password typed into another terminal
// nor write into one, as root neither. Listing folders stays allowed
// everywhere, /dev included: names are not secrets.
//
// hide (Spec.Hide) are paths the run may not read: see hideRules.
//
// sc, when set, is an approved run's scope: see scopeRules and scopeConfig.
func sandboxRules(tmpDir string, hide []string, sc *scope.Scope) (fd int, flags uint32, err error) {
	return buildRules(tmpDir, hide, sc, false)
}

// buildRules is sandboxRules; with keep, the ruleset is kept for the next
// run with the same inputs, and taken from there while what it was built
// from is unchanged (see fsDeps). Only for a temporary folder that is a
// folder of the disk, never a file system made for the run: one mounted
// where the last was unmounted may get its device and inode numbers.
func buildRules(tmpDir string, hide []string, sc *scope.Scope, keep bool) (fd int, flags uint32, err error) {
	abi, err := landlockABI()
	if err != nil || abi < 1 {
		return -1, 0, errors.New("Landlock is not available in this kernel")
	}
	var key string
	if keep {
		key = rulesetKey(tmpDir, hide, sc)
		if fd, flags, err := keptRules(key); err != nil || fd >= 0 {
			return fd, flags, err
		}
	}
	start := time.Now()
	tmpID := pathID(tmpDir)
	tmpRights := landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSReadDir | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeDir |
		llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeSym |
		llsys.AccessFSTruncate)
	rules, base, err := baseRules(hide)
	if err != nil {
		return -1, 0, err
	}
	deps := &fsDeps{dirs: []string{"/dev"}} // /dev/null
	deps.add(base)
	rules = append(rules,
		landlock.PathAccess(tmpRights, tmpDir).WithRefer(),
		landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSWriteFile|llsys.AccessFSReadFile|llsys.AccessFSTruncate), "/dev/null"),
	)
	if sc != nil {
		more, done, err := scopeRules(*sc, hide, deps)
		if err != nil {
			return -1, 0, err
		}
		defer done() // once the ruleset holds what they lead to
		rules = append(rules, more...)
	}
	fd, flags, err = scopeConfig(sc).BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, err
	}
	if fd < 0 {
		return -1, 0, errors.New("Landlock enforces nothing on this kernel")
	}
	// The temporary folder's rule went by its path: kept only if the path
	// led to the same folder before and after.
	if keep && base.kept && tmpID.ok && pathID(tmpDir) == tmpID {
		deps.paths = append(deps.paths, tmpID)
		if deps.snapshot(start) {
			keepRules(key, deps, fd, flags)
		}
	}
	return fd, flags, nil
}

// harmlessDevices are the devices of /dev a sandboxed command may read:
// they hold nothing of anyone's. /dev/fd and /dev/std* need no rule: they
// lead through /proc/self/fd to the command's own descriptors, and Landlock
// checks what they lead to.
var harmlessDevices = []string{"null", "zero", "full", "random", "urandom"}

// readRulesCached is readRules, kept while what was read to build them is
// unchanged (see baseRules): it lists / and stats each entry, a third of
// building a ruleset that cannot be cached whole (a run with a scratch
// file system of its own, a new one each run).
func readRulesCached() ([]landlock.Rule, error) {
	rules, _, err := baseRules(nil)
	return rules, err
}

// readRules are the read rules of the ruleset: / may be listed, each of its
// entries but /dev read (and executed) as a whole, and the harmless devices
// of /dev read one by one. The entries of / are read as the ruleset is
// built; a folder that appears at / later is not readable until the next.
//
// deps, when set, records what they were built from (see fsDeps).
func readRules(deps *fsDeps) ([]landlock.Rule, error) {
	deps.dir("/")
	deps.dir("/dev")
	ents, err := os.ReadDir("/")
	if err != nil {
		return nil, fmt.Errorf("listing /: %w", err)
	}
	rules := []landlock.Rule{landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadDir), "/")}
	var dirs, files []string
	for _, e := range ents {
		if e.Name() == "dev" {
			continue
		}
		p := "/" + e.Name()
		if e.Type()&os.ModeSymlink != 0 {
			deps.lookup(p)
		}
		fi, err := os.Stat(p) // through a link such as /bin -> usr/bin: the rule lands on its target
		switch {
		case err != nil: // a dangling link: nothing to read
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	for _, d := range harmlessDevices {
		p := "/dev/" + d
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			files = append(files, p)
		}
	}
	rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules, nil
}

// confinement is what differs between sandboxed runs.
type confinement struct {
	dir, tmpDir string
	// hide (Spec.Hide) are paths the command may not read; a run with some
	// builds its own ruleset, since what it grants depends on what the
	// folders around them hold at that moment.
	hide []string
	// fileLimit (Spec.DiskLimit; 0 for none) lowers RLIMIT_FSIZE to it, so
	// no file of the run, sparse or not, can be larger than its disk quota.
	fileLimit int64
	memCgroup int // the open cgroup.procs of the run's memory cgroup, or -1 (see cgroup_linux.go)
	// scratchFS is the root of the run's scratch file system from the
	// scratch maker, or -1; the child keeps it as scratchFD, and tmpDir is
	// then the folder in it that the child can write.
	scratchFS int
	// noMemfd refuses memfd_create: the run has a memory cap but no memory
	// cgroup, so a memfd that no process holds any more would go uncounted.
	noMemfd bool
	// scope is an approved run's (Spec.Scope), when scoped: its places are
	// writable, metadata may change, and sockets, signals and resources
	// are as it says.
	scope  scope.Scope
	scoped bool
	// place, when set, says why the folder the command starts in is no
	// longer where it was approved ("" while it is): asked last, just
	// before the fork (see placeMoved).
	place func() string
	// mounts, when set, are made by the child in a mount namespace of its
	// own once it is in its folder, while it still has the capabilities
	// to (see holdPlan); scope and hide then hold what they leave.
	mounts []mountOp
	// built, when set, is the run's ruleset as the runner built it (see
	// MountsRuleset), which the child enters instead of one built here.
	built *builtRuleset
}

type builtRuleset struct {
	fd    int
	flags uint32
}

// forkConfined starts argv as a confined process and returns its PID once
// it has executed the shell. stdio are its descriptors 0, 1 and 2. The
// child is not waited for here, not even when it failed: the zygote and the
// helper each have a reaper that collects every child.
//
// inherited says the calling thread is the zygote's launcher (see
// launcher), which already holds no capabilities, no_new_privs and the
// launcher filter; the child then only adds the setsid refusal on top.
// Otherwise the child gives all of that up itself.
//
// cgroup is the open cgroup.procs of a pids cgroup the child joins first,
// or -1.
func forkConfined(argv, env []string, stdio [3]int, inherited bool, cgroup int, c confinement) (int, error) {
	filter := sandboxFilter()
	var filter2 *unix.SockFprog
	scoped := c.scoped
	switch {
	case scoped && inherited:
		return 0, errors.New("an approved run cannot start on the read-only launcher")
	case scoped:
		filter = scopedFilter(c.scope.Network, c.scope.Agent)
	case inherited && c.noMemfd:
		filter = noSetsidNoMemfdFilter()
	case inherited:
		filter = noSetsidFilter()
	case c.noMemfd:
		filter2 = noMemfdFilter()
	}
	if filter == nil {
		return 0, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	if c.scratchFS >= 0 && !scratchFDFits() {
		return 0, fmt.Errorf("the open-file limit is too low for descriptor %d, the scratch file system's", scratchFD)
	}
	dir, tmpDir, hide := c.dir, c.tmpDir, c.hide
	var ruleset int
	var rulesFlags uint32
	var err error
	if c.built != nil {
		ruleset, rulesFlags = c.built.fd, c.built.flags
	} else if inherited && len(hide) == 0 && c.scratchFS < 0 {
		// The launcher is the only caller with inherited set, one run at a
		// time, so its cache needs no lock. A scratch file system from the
		// maker is new each run, and a cached ruleset would keep its root.
		ruleset, rulesFlags, err = launcherRules.get(tmpDir)
	} else {
		var sc *scope.Scope
		if scoped {
			sc = &c.scope
		}
		// An approved run's ruleset is kept for the next run of the same
		// scope: it has no scratch file system (and no disk quota, which
		// would bring one).
		keep := scoped && c.scratchFS < 0 && c.fileLimit == 0
		ruleset, rulesFlags, err = buildRules(tmpDir, hide, sc, keep)
		defer unix.Close(ruleset)
	}
	if err != nil {
		return 0, err
	}

	argv0, err := syscall.BytePtrFromString(argv[0])
	if err != nil {
		return 0, err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return 0, err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return 0, err
	}
	dirp, err := syscall.BytePtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var status [2]int
	if err := unix.Pipe2(status[:], unix.O_CLOEXEC); err != nil {
		return 0, err
	}
	defer unix.Close(status[0])

	setpcap, lastCap := capabilities()
	spec := &childSpec{
		argv0: argv0, argv: &argvp[0], envv: &envp[0], dir: dirp, mounts: c.mounts,
		fds: [5]int{stdio[0], stdio[1], stdio[2], status[1], c.scratchFS}, liftTo: 5,
		cgroup: cgroup, memCgroup: c.memCgroup, ruleset: ruleset, rulesFlags: uintptr(rulesFlags), filter: filter, filter2: filter2,
		dropCaps: setpcap && !inherited, lastCap: lastCap,
		capHeader: unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3},
	}
	for i, l := range sandboxLimits {
		soft, hard := l.soft, l.max
		if l.resource == unix.RLIMIT_NPROC {
			soft = processLimit()
			hard = soft
		}
		if l.resource == unix.RLIMIT_FSIZE && c.fileLimit > 0 {
			soft, hard = min(soft, uint64(c.fileLimit)), min(hard, uint64(c.fileLimit))
		}
		if scoped && l.resource != unix.RLIMIT_CORE {
			// An approved run keeps the user's own limits (a build takes
			// minutes and many processes); only core dumps, which the
			// kernel would write past Landlock, stay off.
			soft, hard = ^uint64(0), ^uint64(0)
		}
		var cur unix.Rlimit
		if unix.Getrlimit(l.resource, &cur) == nil {
			hard = min(hard, cur.Max)
			soft = min(soft, hard)
		}
		spec.rlimits[i] = rlimitSet{resource: uintptr(l.resource), limit: unix.Rlimit{Cur: soft, Max: hard}}
	}

	// The child must not run Go signal handlers: signals stay blocked on
	// this thread across the fork, and the child resets every handler
	// before it unblocks them.
	if c.scratchFS >= 0 {
		spec.liftTo = scratchFD + 1
	}

	if !inherited { // the launcher's caller asks, with the capabilities the launcher gave up
		if err := c.checkPlace(); err != nil {
			unix.Close(status[1])
			return 0, err
		}
	}
	runtime.LockOSThread()
	var all, old unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &all, &old)
	pid, errno := forkChild(spec)
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	runtime.UnlockOSThread()
	unix.Close(status[1])
	runtime.KeepAlive(spec)
	runtime.KeepAlive(c.mounts)
	runtime.KeepAlive(argvp)
	runtime.KeepAlive(envp)
	if errno != 0 {
		return 0, fmt.Errorf("fork: %w", errno)
	}

	// EOF means the shell was executed (the pipe closes on exec); eight
	// bytes are the stage and errno at which the child gave up.
	var report [8]byte
	n := 0
	for n < len(report) {
		k, err := unix.Read(status[0], report[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || k == 0 {
			break
		}
		n += k
	}
	if n == 0 {
		return int(pid), nil
	}
	// The child has exited or is about to; the caller's reaper collects it.
	stage := *(*uint32)(unsafe.Pointer(&report[0]))
	code := unix.Errno(*(*uint32)(unsafe.Pointer(&report[4])))
	what := stageNames[stage]
	if what == "" {
		what = "start"
	}
	return 0, fmt.Errorf("the sandboxed command could not %s: %w", what, code)
}

// sigactionDefault is a zeroed kernel struct sigaction: SIG_DFL, no flags.
var sigactionDefault [4]uint64

//go:norace
//go:nosplit
//go:nocheckptr
func childConfine(c *childSpec) {
	status := uintptr(c.fds[3])
	var stage uintptr
	var e syscall.Errno

	// A new session: no controlling terminal, so /dev/tty cannot be opened
	// and no keystrokes can be pushed into the terminal Hark runs in.
	stage = stageSetsid
	if _, _, e = syscall.RawSyscall(syscall.SYS_SETSID, 0, 0, 0); e != 0 {
		goto fail
	}

	// Into the pids cgroup before anything can fork, and into the run's
	// memory cgroup before the shell allocates (see cgroup_linux.go).
	stage = stageCgroup
	if c.cgroup >= 0 {
		zero := byte('0')
		if _, _, e = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.cgroup), uintptr(unsafe.Pointer(&zero)), 1); e != 0 {
			goto fail
		}
	}
	if c.memCgroup >= 0 {
		zero := byte('0')
		if _, _, e = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.memCgroup), uintptr(unsafe.Pointer(&zero)), 1); e != 0 {
			goto fail
		}
	}

	stage = stageChdir
	if _, _, e = syscall.RawSyscall(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(c.dir)), 0, 0); e != 0 {
		goto fail
	}

	// A mount namespace of its own, entered once in its folder: the
	// folder (and the root) carry over into the new namespace, so names
	// relative to it go through the mounts made next, as full ones do.
	stage = stageMounts
	if len(c.mounts) > 0 {
		if _, _, e = syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWNS, 0, 0); e != 0 {
			goto fail
		}
		for i := 0; i < len(c.mounts); i++ {
			m := &c.mounts[i]
			if _, _, e = syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(m.src)), uintptr(unsafe.Pointer(m.dst)), uintptr(unsafe.Pointer(m.fstype)),
				m.flags, uintptr(unsafe.Pointer(m.data)), 0); e != 0 {
				goto fail
			}
		}
	}

	// Every capability goes, as root too: the bounding set first (that
	// needs CAP_SETPCAP, so only where it is held), with securebits locked
	// so that executing a program as uid 0 grants nothing; then ambient,
	// effective, permitted and inheritable.
	stage = stageCaps
	if c.dropCaps {
		if _, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_SET_SECUREBITS, lockedNoRoot, 0); e != 0 {
			goto fail
		}
		for cp := uintptr(0); cp <= c.lastCap; cp++ {
			if _, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, cp, 0); e != 0 && e != syscall.EINVAL {
				goto fail
			}
		}
	}
	syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0)
	if _, _, e = syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&c.capHeader)), uintptr(unsafe.Pointer(&c.capData[0])), 0); e != 0 {
		goto fail
	}

	stage = stageNoNewPrivs
	if _, _, e = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		goto fail
	}

	stage = stageLandlock
	if _, _, e = syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(c.ruleset), c.rulesFlags, 0); e != 0 {
		goto fail
	}

	// Descriptors: first lift every source to liftTo or above, so that
	// moving one into place cannot overwrite another, then 0–2, the status
	// pipe as 3 and the scratch file system as scratchFD; every other one
	// closes.
	stage = stageFDs
	for i := 0; i < len(c.fds); i++ {
		if c.fds[i] >= 0 && uintptr(c.fds[i]) < c.liftTo {
			var nfd uintptr
			if nfd, _, e = syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(c.fds[i]), syscall.F_DUPFD_CLOEXEC, c.liftTo); e != 0 {
				goto fail
			}
			c.fds[i] = int(nfd)
			if i == 3 {
				status = nfd
			}
		}
	}
	for i := 0; i < 3; i++ {
		if _, _, e = syscall.RawSyscall(syscall.SYS_DUP3, uintptr(c.fds[i]), uintptr(i), 0); e != 0 {
			goto fail
		}
	}
	if _, _, e = syscall.RawSyscall(syscall.SYS_DUP3, status, 3, syscall.O_CLOEXEC); e != 0 {
		goto fail
	}
	status = 3
	if c.fds[4] >= 0 {
		if _, _, e = syscall.RawSyscall(syscall.SYS_DUP3, uintptr(c.fds[4]), scratchFD, 0); e != 0 {
			goto fail
		}
	}
	stage = stageCloseRange
	if c.fds[4] >= 0 {
		if _, _, e = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 4, scratchFD-1, 0); e != 0 {
			goto fail
		}
		if _, _, e = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, scratchFD+1, ^uintptr(0), 0); e != 0 {
			goto fail
		}
	} else if _, _, e = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 4, ^uintptr(0), 0); e != 0 {
		goto fail
	}

	// The limits once the descriptors are in place: the zygote's own may
	// be numbered past the open-file limit, and moving them needs room.
	stage = stageRlimit
	for i := 0; i < len(c.rlimits); i++ {
		if _, _, e = syscall.RawSyscall6(unix.SYS_PRLIMIT64, 0, c.rlimits[i].resource, uintptr(unsafe.Pointer(&c.rlimits[i].limit)), 0, 0, 0); e != 0 {
			goto fail
		}
	}

	// Default handlers, then an empty mask: the shell starts as if
	// started fresh, and no signal can reach a Go handler in this child.
	for sig := uintptr(1); sig <= 64; sig++ {
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(&sigactionDefault[0])), 0, 8, 0, 0)
	}
	{
		var none uint64
		syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&none)), 0, 8, 0, 0)
	}

	stage = stageSeccomp
	if _, _, e = syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(c.filter))); e != 0 {
		goto fail
	}
	if c.filter2 != nil {
		if _, _, e = syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(c.filter2))); e != 0 {
			goto fail
		}
	}

	stage = stageExec
	_, _, e = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(c.argv0)), uintptr(unsafe.Pointer(c.argv)), uintptr(unsafe.Pointer(c.envv)))

fail:
	{
		report := [2]uint32{uint32(stage), uint32(e)}
		syscall.RawSyscall(syscall.SYS_WRITE, status, uintptr(unsafe.Pointer(&report[0])), 8)
		for {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 127, 0, 0)
		}
	}
}

// launcher is a goroutine locked for good to an OS thread of the zygote
// that gives up, once, what every sandboxed command gives up whatever the
// run: all capabilities (as root, the bounding set too, with securebits
// locked), and then no_new_privs and the seccomp filter (all of it but
// setsid, which the child still needs). A child forked on that thread
// inherits them, so it skips the forty-odd calls that empty the bounding
// set and installs only a few-instruction filter instead of compiling the
// whole one: together about a fifth of a short command's cost.
//
// The thread holds no Landlock domain: each child creates its own, so no
// command shares a domain with any thread of the zygote, and a command can
// neither ptrace nor signal nor read the memory of this thread (its domain,
// ptrace's refusal in the filter, the zygote being non-dumpable). What the
// thread holds are only restrictions, which grant nothing to anyone. Go
// starts new threads from a clean template thread while the current one is
// locked, so the restrictions never spread to other threads, and
// unsandboxed commands are forked on other threads.
type launcher struct {
	reqs   chan launchReq
	cgroup sandboxCgroup // the pids cgroup its children join, as root
	err    error         // why the thread could not be prepared: sandboxed runs fail with it
}

type launchReq struct {
	argv, env []string
	stdio     [3]int
	conf      confinement
	scratch   bool // conf.tmpDir is a scratch file system made for this run
	done      chan launchRes
}

type launchRes struct {
	pid int
	err error
}

func startLauncher() *launcher {
	l := &launcher{reqs: make(chan launchReq), cgroup: noCgroup}
	if cg, err := newSandboxCgroup(); err == nil {
		l.cgroup = cg
	}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread keeps its restrictions
		childCgroup := l.cgroup.procs
		if l.cgroup.joinThread() {
			childCgroup = -1 // born inside already
		}
		err := restrictLauncherThread()
		ready <- err
		if err != nil {
			return // a locked goroutine that ends takes its thread with it
		}
		for r := range l.reqs {
			if r.scratch {
				// A new file system on the folder, whose root may have the
				// device and inode numbers of the last one unmounted there.
				launcherRules.forget(r.conf.tmpDir)
			}
			pid, err := forkConfined(r.argv, r.env, r.stdio, true, childCgroup, r.conf)
			r.done <- launchRes{pid, err}
		}
	}()
	l.err = <-ready
	return l
}

// fork runs forkConfined on the launcher's thread.
func (l *launcher) fork(argv, env []string, stdio [3]int, conf confinement, scratch bool, done chan launchRes) (int, error) {
	if l.err != nil {
		return 0, fmt.Errorf("the sandbox launcher could not be prepared: %w", l.err)
	}
	l.reqs <- launchReq{argv: argv, env: env, stdio: stdio, conf: conf, scratch: scratch, done: done}
	r := <-done
	return r.pid, r.err
}

// restrictLauncherThread applies the launcher's restrictions to the calling
// thread only: capabilities, no_new_privs and seccomp (without TSYNC) are
// per thread.
func restrictLauncherThread() error {
	filter := launcherFilter()
	if filter == nil {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	if setpcap, last := capabilities(); setpcap {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedNoRoot, 0, 0, 0); err != nil {
			return fmt.Errorf("securebits: %w", err)
		}
		for cp := uintptr(0); cp <= last; cp++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, cp, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("bounding set: %w", err)
			}
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	var none [2]unix.CapUserData
	if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &none[0]); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(filter)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// rulesetCache keeps the Landlock rulesets of the last few temporary
// folders: the runner reuses empty run folders, and a ruleset names its
// folder by inode, so a folder that is still the same one (same device and
// inode) can be confined by the same ruleset. Building one opens three
// paths and makes four system calls; checking the folder is one stat.
type rulesetCache struct {
	entries []cachedRuleset
}

type cachedRuleset struct {
	dir      string
	dev, ino uint64
	fd       int
	flags    uint32
}

const maxCachedRulesets = 8

var launcherRules rulesetCache

// forget drops the ruleset of dir, if one is kept.
func (c *rulesetCache) forget(dir string) {
	for i, e := range c.entries {
		if e.dir == dir {
			unix.Close(e.fd)
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			return
		}
	}
}

func (c *rulesetCache) get(dir string) (int, uint32, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return -1, 0, err
	}
	for i, e := range c.entries {
		if e.dir != dir {
			continue
		}
		if e.dev == uint64(st.Dev) && e.ino == st.Ino {
			return e.fd, e.flags, nil
		}
		unix.Close(e.fd) // the path is another folder now
		c.entries = append(c.entries[:i], c.entries[i+1:]...)
		break
	}
	fd, flags, err := sandboxRules(dir, nil, nil)
	if err != nil {
		return -1, 0, err
	}
	if len(c.entries) == maxCachedRulesets {
		unix.Close(c.entries[0].fd)
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, cachedRuleset{dir: dir, dev: uint64(st.Dev), ino: st.Ino, fd: fd, flags: flags})
	return fd, flags, nil
}

//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// landlockABI is read once: the kernel's answer does not change.
var landlockABI = sync.OnceValues(llsys.LandlockGetABIVersion)

// LandlockABI is the kernel's Landlock ABI version, read once: the answer
// does not change.
func LandlockABI() (int, error) { return landlockABI() }

// Status reports whether Landlock can confine commands, for `hark doctor`,
// e.g. "Landlock ABI 7: read-only files, no sockets, no capabilities,
// scoped signals".
func Status() (bool, string) {
	abi, err := landlockABI()
	if err != nil || abi < 1 {
		return false, "Landlock is not available in this kernel (it needs Linux 5.13 or later with landlock in the lsm= boot list); commands that could run code from their configuration ask first"
	}
	if nativeAuditArch() == 0 {
		return false, "no seccomp filter for " + runtime.GOARCH + ", so the sandbox would be incomplete; commands that could run code from their configuration ask first"
	}
	detail := fmt.Sprintf("Landlock ABI %d: read-only files, no sockets, no capabilities, no metadata changes", abi)
	if abi >= 6 {
		detail += ", signals and abstract sockets scoped"
	} else {
		detail += "; signals to other processes are not scoped (Landlock needs ABI 6, Linux 6.12)"
	}
	return true, detail
}

// CanConfine says whether commands started with helper ("" for none) can
// be sandboxed: Landlock is applied inside the helper, so without one there
// is no sandbox.
func CanConfine(helper string) bool { return helper != "" }

// Wrap returns the command line that runs argv, and whether it is the
// helper's (which reports on fd 3). It runs argv under the helper whenever
// there is one, sandboxed or not: the helper is also what stops descendants
// that left the process group. memLimit (0 for none) caps a sandboxed
// command's memory, all its processes together (see memory_linux.go);
// diskLimit (0 for none) is its disk quota (Spec.DiskLimit);
// hide are paths a sandboxed command may not read (Spec.Hide).
func Wrap(helper string, argv []string, readOnly bool, tmpDir string, memLimit, diskLimit int64, hide []string, sc *scope.Scope) ([]string, bool) {
	if helper == "" {
		return argv, false
	}
	a := []string{helper, HelperCommand}
	if readOnly {
		a = append(a, "-ro", "-tmp", tmpDir)
		if memLimit > 0 {
			a = append(a, "-mem", strconv.FormatInt(memLimit, 10))
		}
		if diskLimit > 0 {
			a = append(a, "-disk", strconv.FormatInt(diskLimit, 10))
		}
		for _, p := range hide {
			a = append(a, "-hide", p)
		}
		a = append(a, scopeArgs(sc)...)
	}
	return append(append(a, "--"), argv...), true
}

// Helper timings. The helper must finish its SIGKILL round before the
// runner's backstop (KillGrace + 1 s) kills the helper itself, because
// processes it has not yet stopped would then escape to init.
const (
	leftoverGrace = 500 * time.Millisecond // background jobs left when the shell exits
	killRound     = 20 * time.Millisecond  // between SIGKILL rounds for late reparented orphans
	giveUpAfter   = 3 * time.Second        // a descendant that outlives this many SIGKILL rounds is not ours to wait for
)

// HelperMain is the entry point of `hark __sandbox`. args are what follows
// that word; `-server` alone selects the long-lived zygote (see
// serveZygote), anything else runs one command. It returns the exit status
// for the process: the shell's,
// 128+N when the shell died of signal N, or 127 when the helper could not
// start it (after saying why on fd 3).
//
// The helper itself stays unconfined: it supervises and reaps. A sandboxed
// shell confines itself as a whole process between fork and exec (see
// forkConfined), so no thread of the helper ever shares its sandbox.
func HelperMain(args []string) int {
	if len(args) == 1 && args[0] == ZygoteArg {
		return serveZygote(false)
	}
	if len(args) == 2 && args[0] == ZygoteArg && args[1] == ZygoteMountsArg {
		return serveZygote(true)
	}
	if len(args) == 3 && args[0] == ScratchArg {
		return serveScratchMaker(args[1], args[2])
	}
	status := helperStatus()
	HardenProcess(helperStatusFD + 1)
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if status != nil {
			fmt.Fprintln(status, HelperErrPrefix+msg)
			status.Close()
		} else {
			fmt.Fprintln(os.Stderr, "hark "+HelperCommand+": "+msg)
		}
		return 127
	}
	h, err := parseHelperArgs(args)
	if err != nil {
		return fail("%v", err)
	}
	// Every orphan among the command's descendants now reparents to the
	// helper instead of init, so none can escape by double-forking or setsid.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail("could not become a child subreaper: %v", err)
	}
	// Signals are caught before the shell exists, so a SIGTERM to the group
	// that arrives at once is handled, not fatal.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	os.Unsetenv(HelperEnv)
	// The runner started the helper in the folder it holds; the command
	// starts there only while it is still where it was approved.
	var place func() string
	if h.pin != "" {
		dot, err := unix.Open(".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail("the folder to run in cannot be held: %v", err)
		}
		defer unix.Close(dot)
		// The runner's descriptor is of its mount namespace: the command
		// starts in the same folder entered through this one's (see
		// reopenHeld). Where it is not the same, the last look says so.
		if here, why := reopenHeld(h.pin, dot); why == "" {
			err = unix.Fchdir(here)
			unix.Close(here)
			if err != nil {
				return fail("the folder to run in cannot be entered: %v", err)
			}
		}
		place = func() string { return placeMoved(h.pin, dot) }
	}
	var pid int
	if h.readOnly {
		// An approved run (one with a scope) has no process bound of the
		// sandbox's: a build may start many.
		cg := noCgroup
		if !h.scoped {
			cg, _ = newSandboxCgroup()
		}
		defer cg.remove()
		// The runner started the helper in a mount namespace of its own
		// where it could (see scratch_linux.go); the scratch file system
		// goes with the namespace, once the command's last process ends.
		conf := confinement{dir: ".", tmpDir: h.tmpDir, hide: h.hide, scope: h.scope, scoped: h.scoped, fileLimit: h.diskLimit, memCgroup: -1, scratchFS: -1,
			// No memory cgroup here: see noMemfdFilter.
			noMemfd: h.memLimit > 0, place: place}
		env := os.Environ()
		if h.diskLimit > 0 && privateMounts() {
			mountScratch(h.tmpDir, h.diskLimit)
		} else if h.diskLimit > 0 && !CanMountScratch() && scratchFDFits() {
			// Unprivileged: a scratch file system from a maker of its own
			// (see scratch_userns_linux.go), where user namespaces work.
			if fd := helperScratch(h.diskLimit); fd >= 0 {
				defer unix.Close(fd)
				conf.scratchFS = fd
				conf.tmpDir = "/proc/self/fd/" + strconv.Itoa(fd) + "/" + scratchFolder
				env = withScratchEnv(env, h.tmpDir)
			}
		}
		if h.mounts && h.scoped {
			// Kept and hidden places inside writable ones are held by
			// mounts here; Landlock keeps and hides only what is left.
			err := privatize()
			var held []string
			var made madeKept
			if err == nil {
				conf.scope.Keep, made, err = holdKept(h.scope, nil, &held)
				defer unmadeKept(made, true)
			}
			if err == nil {
				conf.hide, err = maskHidden(h.scope, h.hide, nil, &held)
			}
			if err == nil {
				var folders []string
				folders, err = holdFolders(h.scope, held, nil)
				defer unholdFolders(folders) // before unmadeKept
			}
			if err != nil {
				return fail("the kept places could not be held, so the command was not run: %v", err)
			}
			if h.ruleset {
				// Built by the runner for what is left to Landlock here
				// (MountsRuleset), as the kept and hidden places are now.
				if !isRuleset(RulesetFD) {
					return fail("fd %d is not the run's Landlock ruleset (this entry point is internal to hark)", RulesetFD)
				}
				conf.built = &builtRuleset{fd: RulesetFD, flags: h.rulesFlag}
			}
		}
		if pid, err = forkConfined(h.argv, env, [3]int{0, 1, 2}, false, cg.procs, conf); isPlaceMoved(err) {
			return fail("%v", err)
		} else if err != nil {
			return fail("the read-only sandbox could not be applied, so the command was not run: %v", err)
		}
		if h.memLimit > 0 {
			go watchHelperMemory(pid, h.memLimit)
		}
	} else if err = (confinement{place: place}).checkPlace(); err != nil {
		return fail("%v", err)
	} else if pid, err = syscall.ForkExec(h.argv[0], h.argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}); err != nil {
		return fail("could not start %s: %v; set another shell", h.argv[0], err)
	}
	if status != nil {
		fmt.Fprintln(status, HelperOK)
		status.Close()
	}
	return supervise(pid, signals)
}

// helperStatus returns fd 3 when it is the runner's status pipe; run by hand,
// the helper must not write into whatever else fd 3 might be.
func helperStatus() *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(helperStatusFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(helperStatusFD) // the command must not inherit it, or EOF would wait for it
	return os.NewFile(helperStatusFD, "status")
}

// supervise waits for the shell and then makes sure nothing it started
// survives: leftovers get SIGTERM when the shell exits (or when the helper is
// told to stop), then rounds of SIGKILL until the helper has no children.
//
// Reaping stays on this goroutine, with no channel hand-offs in the common
// case (the shell exits and leaves nothing behind): on a busy machine every
// wake-up of another thread costs scheduling latency, and this is the path
// every command takes.
func supervise(shell int, signals <-chan os.Signal) int {
	var code atomic.Int32 // the shell's status, -1 until it is known
	code.Store(-1)
	var once sync.Once
	stop := func(grace time.Duration) {
		once.Do(func() {
			signalDescendants(unix.SIGTERM)
			time.AfterFunc(grace, func() {
				for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
					signalDescendants(unix.SIGKILL)
				}
				// Something outlived every SIGKILL round (a process stuck in
				// the kernel); it is not worth holding the command's result.
				syscall.Exit(exitFor(int(code.Load())))
			})
		})
	}
	go func() {
		<-signals
		stop(KillGrace - 250*time.Millisecond) // done before the runner's backstop
	}()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: with a subreaper, no children means no descendants
			return exitFor(int(code.Load()))
		}
		if pid != shell {
			continue
		}
		if ws.Signaled() {
			code.Store(128 + int32(ws.Signal()))
		} else {
			code.Store(int32(ws.ExitStatus()))
		}
		// Anything left is a background job the shell did not wait for.
		if _, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); errors.Is(err, unix.ECHILD) {
			return exitFor(int(code.Load()))
		}
		stop(leftoverGrace)
	}
}

func exitFor(code int) int {
	if code < 0 { // the shell's status was never seen; report it as stopped
		return 128 + int(unix.SIGTERM)
	}
	return code
}

// signalDescendants sends sig to every descendant of the helper, walking the
// process tree from the helper down. Each process is signalled through a
// pidfd opened after checking that it is still the child of the process it
// was found under, so a recycled PID can never redirect a signal to a
// stranger.
func signalDescendants(sig unix.Signal) {
	signalTree(childrenOf(os.Getpid()), sig, nil)
}

// signalTree signals roots (children of this process) and all their
// descendants, breadth first, calling visit (if not nil) with each. A
// descendant is signalled only after checking it is still the child of the
// process it was found under (see signalChild).
func signalTree(roots []int, sig unix.Signal, visit func(pid int)) {
	type node struct{ pid, parent int }
	self := os.Getpid()
	queue := make([]node, 0, len(roots))
	for _, c := range roots {
		queue = append(queue, node{c, self})
	}
	seen := map[int]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n.pid] {
			continue
		}
		seen[n.pid] = true
		signalChild(n.pid, n.parent, sig)
		if visit != nil {
			visit(n.pid)
		}
		for _, c := range childrenOf(n.pid) {
			queue = append(queue, node{c, n.pid})
		}
	}
}

func signalChild(pid, parent int, sig unix.Signal) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) { // kernel older than 5.3
		if parentOf(pid) == parent {
			_ = unix.Kill(pid, sig)
		}
		return
	}
	if err != nil {
		return // gone already
	}
	defer unix.Close(fd)
	if parentOf(pid) != parent {
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
}

// childrenOf lists pid's children from /proc/PID/task/*/children, which
// the kernel keeps per thread; without that file (CONFIG_PROC_CHILDREN off)
// it scans every process's parent instead.
func childrenOf(pid int) []int {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if err != nil || len(tasks) == 0 {
		return scanChildren(pid)
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func scanChildren(pid int) []int {
	return processes(func(c int) bool { return parentOf(c) == pid })
}

// processes lists the PIDs in /proc, other than this process's, for which
// keep is true.
func processes(keep func(pid int) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self && keep(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// statFields reads fields of /proc/PID/stat as numbers, from one read of
// the file: 0 = state, 1 = parent, 2 = process group, 3 = session, 19 =
// start time. The fields are counted after the command name, which may
// contain spaces and parentheses and so ends at the line's last ')'.
func statFields(pid int, ns ...int) ([]int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := bytes.Fields(b[i+1:])
	out := make([]int64, len(ns))
	for k, n := range ns {
		if len(f) <= n {
			return nil, false
		}
		v, err := strconv.ParseInt(string(f[n]), 10, 64)
		if err != nil {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// statField is one of statFields, or -1.
func statField(pid, n int) int64 {
	v, ok := statFields(pid, n)
	if !ok {
		return -1
	}
	return v[0]
}

// parentOf reads the parent PID, or returns -1.
func parentOf(pid int) int { return int(statField(pid, 1)) }

// helperScratch makes one scratch file system for the per-command helper's
// run and returns its root, or -1 where none can be made. The maker exits
// once asked, before the command starts, so the helper's supervision never
// counts it among the run's processes.
func helperScratch(size int64) int {
	exe, err := os.Executable()
	if err != nil {
		return -1
	}
	m, err := startScratchMaker(exe)
	if err != nil {
		return -1
	}
	fd, err := m.make(size)
	m.close()
	m.wait()
	if err != nil {
		return -1
	}
	return fd
}

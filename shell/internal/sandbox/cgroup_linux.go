package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Linux exempts uid 0 from RLIMIT_NPROC, so as root the process limit that
// holds a fork loop in an unprivileged sandbox does not apply. A pids cgroup
// does: as root the zygote makes one for its sandboxed commands, and each
// child moves itself into it before it executes the shell (writing "0" to
// cgroup.procs moves the writer, so nothing it starts can be outside).
// Where no pids controller can be used (a container without a writable
// cgroup file system, a cgroup v2 root without pids enabled for its
// children) commands run without it, as before, and Status says so.

// sandboxPidsMax is how many processes all sandboxed commands together may
// have at once when the cgroup applies.
const sandboxPidsMax = 512

// sandboxCgroup is the zygote's pids cgroup for sandboxed commands.
type sandboxCgroup struct {
	dir   string
	procs int  // cgroup.procs, open for writing; -1 when there is none
	v1    bool // cgroup v1, where a single thread can join (see joinThread)
}

var noCgroup = sandboxCgroup{procs: -1}

// newSandboxCgroup makes the cgroup, as root only, in the first pids
// hierarchy it finds: cgroup v1's pids controller, or the cgroup v2 root
// where pids is enabled for children. Leftovers of zygotes that died
// without cleaning up are removed first.
func newSandboxCgroup() (sandboxCgroup, error) {
	if os.Geteuid() != 0 {
		return noCgroup, nil // RLIMIT_NPROC holds unprivileged commands
	}
	root := pidsHierarchy()
	if root == "" {
		return noCgroup, fmt.Errorf("no pids cgroup controller can be used here")
	}
	if old, _ := filepath.Glob(filepath.Join(root, "hark-sandbox-*")); len(old) > 0 {
		for _, d := range old {
			// Only a dead zygote's, and only if empty: other zygotes (another
			// Hark, a test) keep theirs open.
			owner, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "hark-sandbox-"))
			if err == nil && unix.Kill(owner, 0) == unix.ESRCH {
				_ = unix.Rmdir(d)
			}
		}
	}
	dir := filepath.Join(root, "hark-sandbox-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return noCgroup, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(sandboxPidsMax)), 0o644); err != nil {
		unix.Rmdir(dir)
		return noCgroup, err
	}
	fd, err := unix.Open(filepath.Join(dir, "cgroup.procs"), unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return noCgroup, err
	}
	return sandboxCgroup{dir: dir, procs: fd, v1: root == "/sys/fs/cgroup/pids"}, nil
}

// joinThread moves the calling thread alone into the cgroup, where cgroup
// v1 allows it (its tasks file takes thread IDs): processes that thread
// forks are then born inside, and no child has to move itself, a move that
// takes a global lock and was a tenth of a short command's cost. It
// reports whether the thread joined; under cgroup v2 each child still
// joins by itself.
func (c sandboxCgroup) joinThread() bool {
	if c.dir == "" || !c.v1 {
		return false
	}
	return os.WriteFile(filepath.Join(c.dir, "tasks"), []byte(strconv.Itoa(unix.Gettid())), 0) == nil
}

// remove deletes the cgroup once it is empty; called as the zygote exits.
func (c sandboxCgroup) remove() {
	if c.dir != "" {
		_ = unix.Rmdir(c.dir)
	}
}

func pidsHierarchy() string {
	if fi, err := os.Stat("/sys/fs/cgroup/pids/cgroup.procs"); err == nil && fi.Mode().IsRegular() {
		return "/sys/fs/cgroup/pids" // cgroup v1
	}
	controllers, err1 := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	subtree, err2 := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
	if err1 == nil && err2 == nil && hasWord(controllers, "pids") && hasWord(subtree, "pids") {
		return "/sys/fs/cgroup" // cgroup v2
	}
	return ""
}

func hasWord(b []byte, w string) bool {
	for _, f := range bytes.Fields(b) {
		if string(f) == w {
			return true
		}
	}
	return false
}

// cgroupOf reads which pids cgroup pid is in, for tests and diagnostics.
func cgroupOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && (strings.Contains(parts[1], "pids") || parts[0] == "0") && strings.Contains(parts[2], "hark-sandbox-") {
			return parts[2]
		}
	}
	return ""
}

// PidsCgroupAvailable names the pids hierarchy the zygote would use as root,
// or "" when there is none; for tests and hark doctor.
func PidsCgroupAvailable() string { return pidsHierarchy() }

// A run's memory as the kernel counts it. As root, where a memory cgroup
// hierarchy can be used, the zygote puts each sandboxed run in a memory
// cgroup of its own, and the memory cap reads what the kernel has charged
// to it: every anonymous and shared page its processes allocated, whoever
// holds it now, a memfd parked in a socket or mapped by a single page
// included. The cap adds up what the processes hold too (runMemory) and
// goes by the larger. Elsewhere (unprivileged, or no memory controller
// that can be delegated) runMemory alone counts.

// memoryCgroups is where the zygote makes its runs' memory cgroups: under
// its own memory cgroup, in cgroup v1's memory hierarchy, or in cgroup v2
// where its own cgroup already enables memory for its children; "" when
// none can be used. Read once.
var memoryCgroups = sync.OnceValue(func() string {
	if os.Geteuid() != 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	base := ""
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if slices.Contains(strings.Split(parts[1], ","), "memory") {
			base = filepath.Join("/sys/fs/cgroup/memory", parts[2]) // v1
			break
		}
		if parts[0] == "0" && parts[1] == "" {
			dir := filepath.Join("/sys/fs/cgroup", parts[2])
			if sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && hasWord(sub, "memory") {
				base = dir // v2, delegated already: nothing of the user's is changed
			}
		}
	}
	if base == "" {
		return ""
	}
	// Try one, as the runs will.
	probe := filepath.Join(base, "hark-probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return ""
	}
	_, err = os.Stat(filepath.Join(probe, "memory.stat"))
	unix.Rmdir(probe)
	if err != nil {
		return ""
	}
	return base
})

// MemoryCgroupAvailable names the memory cgroup under which the zygote
// makes its runs' cgroups, or "" when it cannot; for tests and hark doctor.
func MemoryCgroupAvailable() string { return memoryCgroups() }

// runCgroup is one run's memory cgroup.
type runCgroup struct {
	dir   string
	procs int // cgroup.procs, open for writing, until the run has started; -1 when there is none
}

var noRunCgroup = runCgroup{procs: -1}

// newRunCgroup makes the memory cgroup name for a run, first removing
// those of zygotes that died without cleaning up.
func newRunCgroup(name string) runCgroup {
	base := memoryCgroups()
	if base == "" {
		return noRunCgroup
	}
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return noRunCgroup
	}
	procs, err := unix.Open(filepath.Join(dir, "cgroup.procs"), unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return noRunCgroup
	}
	return runCgroup{dir: dir, procs: procs}
}

// removeDeadRunCgroups removes the empty run cgroups of zygotes that are
// gone; called once as a zygote starts.
func removeDeadRunCgroups() {
	base := memoryCgroups()
	if base == "" {
		return
	}
	old, _ := filepath.Glob(filepath.Join(base, "hark-run-*"))
	for _, d := range old {
		owner, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "hark-run-"), "-")
		if pid, err := strconv.Atoi(owner); err == nil && unix.Kill(pid, 0) == unix.ESRCH {
			_ = unix.Rmdir(d)
		}
	}
}

// started closes cgroup.procs once the run's shell has joined.
func (c *runCgroup) started() {
	if c.procs >= 0 {
		unix.Close(c.procs)
		c.procs = -1
	}
}

// usage is what the kernel has charged to the run and cannot drop:
// anonymous memory and shared memory (tmpfs, shm, memfd), less scratch
// bytes of the run's scratch file system, which the disk quota bounds
// instead; 0 without a cgroup, or once it is removed.
func cgroupUsage(dir string, scratch int64) int64 {
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return 0
	}
	var anon, shmem int64
	for line := range bytes.Lines(b) {
		k, v, _ := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
		switch string(k) {
		case "rss", "anon": // v1, v2
			anon, _ = strconv.ParseInt(string(v), 10, 64)
		case "shmem":
			shmem, _ = strconv.ParseInt(string(v), 10, 64)
		}
	}
	return anon + max(shmem-scratch, 0)
}

// remove deletes the cgroup once the run is over; a process of it that is
// somehow still alive keeps it until the next zygote removes it.
func (c *runCgroup) remove() {
	c.started()
	if c.dir != "" {
		_ = unix.Rmdir(c.dir)
	}
}

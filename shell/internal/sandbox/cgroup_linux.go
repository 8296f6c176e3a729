package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

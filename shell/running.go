package shell

import "sync"

// running holds the process groups of the commands this process started
// itself, without the zygote: every command on macOS, and on Linux those
// run with no zygote. A quit that cannot wait out killGrace ends them with
// KillRunning. (The zygote and the per-command helper stop what they run
// when Hark goes; a group started directly has nothing that outlives Hark
// to stop it, and on macOS no parent-death signal either.)
var running struct {
	sync.Mutex
	groups map[int]bool
}

// track records the group led by pid until the returned func is called.
func track(pid int) (untrack func()) {
	running.Lock()
	defer running.Unlock()
	if running.groups == nil {
		running.groups = map[int]bool{}
	}
	running.groups[pid] = true
	return func() {
		running.Lock()
		defer running.Unlock()
		delete(running.groups, pid)
	}
}

// KillRunning sends SIGKILL to the process group of every command still
// running that this process started itself, and reports how many there
// were. A stopped command gets SIGTERM and killGrace to end; a quit that
// exits sooner (macOS ends the app as soon as its last closer returns)
// calls this first, so that a command that ignores SIGTERM does not
// outlive Hark.
func KillRunning() int {
	running.Lock()
	defer running.Unlock()
	for pid := range running.groups {
		signalGroup(pid, sigKill)
	}
	return len(running.groups)
}

package sandbox

import (
	"encoding/binary"
	"slices"
	"sync"
	"time"
)

// The parts of the run-wide memory cap that do not depend on how an OS
// lists a run's processes or reads their resident size: the poll loop, the
// decision, and (for macOS, where a run has no session that holds it) the
// reckoning of which processes belong to a run. They are here, untagged, so
// that Linux's tests exercise them too.

// memPoll is how often a run's memory is added up. Most commands end before
// the first look.
const memPoll = 50 * time.Millisecond

// memSample is one look at a run: the resident bytes of all its processes,
// and whether the run still exists at all.
type memSample func() (rss int64, alive bool)

// pollMemory looks at a run each time tick fires until done closes or the
// run is gone (false), or one look finds it over limit (true).
func pollMemory(tick <-chan time.Time, done <-chan struct{}, limit int64, sample memSample) bool {
	for {
		select {
		case <-done:
			return false
		case <-tick:
		}
		rss, alive := sample()
		if !alive {
			return false
		}
		if overCap(rss, limit) {
			return true
		}
	}
}

// overCap is the decision: a run holding more than limit bytes is stopped.
// A limit of 0 or less is no cap.
func overCap(rss, limit int64) bool { return limit > 0 && rss > limit }

// proc is one row of a process table, as much as the reckoning needs.
type proc struct {
	pid, ppid, pgid int
	start           int64 // when it started, in any unit that tells two processes with one pid apart
	zombie          bool  // ended, holds no memory, waits for its parent
}

// runSet reckons which processes belong to the run whose shell leads
// process group leader, across looks at the process table. A process
// belongs if it is in that group, descends from a member, or was a member
// at an earlier look (matched by pid and start time, so a reused pid is a
// stranger). The last rule keeps a process that left the group (setpgid,
// setsid) and then lost its parent: it is still counted and still stopped,
// provided one look saw it before it did both.
type runSet struct {
	leader int
	known  map[int]int64 // pid → start of every member seen so far
}

func newRunSet(leader int) *runSet { return &runSet{leader: leader, known: map[int]int64{}} }

// members returns the live members among procs, and remembers them.
func (s *runSet) members(procs []proc) []int {
	children := map[int][]int{}
	byPID := make(map[int]proc, len(procs))
	var queue []int
	for _, p := range procs {
		byPID[p.pid] = p
		children[p.ppid] = append(children[p.ppid], p.pid)
		if start, ok := s.known[p.pid]; p.pgid == s.leader || p.pid == s.leader || ok && start == p.start {
			queue = append(queue, p.pid)
		}
	}
	in := map[int]bool{}
	var out []int
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if in[pid] || pid <= 1 {
			continue // pid 1 (launchd, init) is never a run's, whatever it adopts
		}
		in[pid] = true
		p := byPID[pid]
		s.known[pid] = p.start
		if !p.zombie {
			out = append(out, pid)
		}
		queue = append(queue, children[pid]...)
	}
	for pid := range s.known {
		if !in[pid] {
			delete(s.known, pid) // gone: its pid may be reused by a stranger
		}
	}
	return out
}

// sizeofTaskInfo is the size of macOS's struct proc_taskinfo, which
// proc_pidinfo(pid, PROC_PIDTASKINFO, …) fills: six 64-bit counters, then
// twelve 32-bit ones.
const sizeofTaskInfo = 6*8 + 12*4

// taskResident reads pti_resident_size, the second 64-bit field, from a
// proc_taskinfo that proc_pidinfo reported n bytes of. It is false unless
// the whole struct was filled (a process gone or not ours fills nothing).
// Both macOS architectures are little-endian.
func taskResident(b []byte, n int) (int64, bool) {
	if n != sizeofTaskInfo || len(b) < sizeofTaskInfo {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b[8:16])), true
}

// Timings for stopping a run past its cap from outside, as Linux's helper
// has for its own.
const (
	capKillRound   = 20 * time.Millisecond // between SIGKILL rounds, for processes forked meanwhile
	capGiveUpAfter = 3 * time.Second       // a member that outlives this many rounds is not ours to wait for
)

// runWatch is what watchRun needs of the OS.
type runWatch struct {
	table    func() []proc   // the whole process table; nil when it cannot be read now
	resident func(int) int64 // a process's resident bytes; 0 when gone
	kill     func(pid int)   // SIGKILL; a negative pid is a process group
}

// watchRun keeps a cap of limit bytes on the run whose shell, pid, leads
// its own process group, from outside the run (macOS, where no helper stays
// beside the command): every memPoll it reckons the run's members (runSet)
// and adds up their resident size; past the cap it kills them all, in
// rounds until none is left. end stops watching and reports whether the
// cap stopped the run.
func watchRun(pid int, limit int64, w runWatch) (end func() bool) {
	if limit <= 0 {
		return func() bool { return false }
	}
	done := make(chan struct{})
	var over bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		set := newRunSet(pid)
		t := time.NewTicker(memPoll)
		defer t.Stop()
		over = pollMemory(t.C, done, limit, func() (int64, bool) {
			procs := w.table()
			if procs == nil {
				return 0, true // cannot look now; look again
			}
			var sum int64
			for _, m := range set.members(procs) {
				sum += w.resident(m)
			}
			return sum, true
		})
		if !over {
			return
		}
		// No grace: every moment it keeps running it takes more. The group
		// is signalled only while a member is in it, so that a number
		// reused by a stranger's group is never hit.
		for deadline := time.Now().Add(capGiveUpAfter); time.Now().Before(deadline); time.Sleep(capKillRound) {
			procs := w.table()
			left := set.members(procs)
			if procs != nil && len(left) == 0 {
				return
			}
			if slices.ContainsFunc(procs, func(p proc) bool { return p.pgid == pid && slices.Contains(left, p.pid) }) {
				w.kill(-pid)
			}
			for _, m := range left {
				w.kill(m)
			}
		}
	}()
	return func() bool {
		close(done)
		wg.Wait()
		return over
	}
}

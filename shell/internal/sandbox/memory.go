package sandbox

import (
	"slices"
	"sync"
	"time"
	"unsafe"
)

// The parts of the run-wide memory cap that do not depend on how an OS
// lists a run's processes or reads their resident size: the poll loop, the
// decision, and (for macOS, where a run has no session that holds it) the
// reckoning of which processes belong to a run and what they hold. They are here, untagged, so
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

// runLister is what reckoning a run from outside asks of the OS: the
// members of a process group, the children of a process, and a process's
// memory. Each appends to the buffer it is given and returns it, so that a
// watch that runs every memPoll for minutes reuses the same few slices
// instead of copying the whole process table each time.
type runLister struct {
	group    func(pgid int, buf []int) []int // the processes in group pgid
	children func(pid int, buf []int) []int  // pid's children
	// usage is pid's memory in bytes and when it started (in any unit
	// that tells two processes with one pid apart); gone when there is
	// no such process, zombie when it has ended and holds no memory.
	usage func(pid int) (bytes, start int64, state procState)
}

type procState int

const (
	procLive procState = iota
	procZombie
	procGone
)

// runTree reckons which processes belong to the run whose shell leads
// process group leader, across looks: a process belongs if it is in that
// group, descends from a member, or was a member at an earlier look
// (matched by pid and start time, so a reused pid is a stranger). The last
// rule keeps a process that left the group (setpgid, setsid) and then lost
// its parent: it is still counted and still stopped, provided one look saw
// it before it did both. A look asks only about the run's own processes,
// never the whole table.
type runTree struct {
	leader  int
	known   map[int]int64 // pid → start of every member seen so far
	seen    map[int]bool  // members of the current look
	queue   []treeEntry
	members []int
	buf     []int
}

type treeEntry struct {
	pid   int
	known bool // queued as a member of an earlier look: its start must match
}

func newRunTree(leader int) *runTree {
	return &runTree{leader: leader, known: map[int]int64{}, seen: map[int]bool{}}
}

// look reckons the run's members now, remembers them, and returns the
// memory of the live ones and who they are (valid until the next look).
func (t *runTree) look(l runLister) (sum int64, members []int) {
	clear(t.seen)
	t.queue, t.members = t.queue[:0], t.members[:0]
	t.buf = l.group(t.leader, t.buf[:0])
	for _, pid := range t.buf {
		t.queue = append(t.queue, treeEntry{pid: pid})
	}
	for pid := range t.known {
		t.queue = append(t.queue, treeEntry{pid: pid, known: true})
	}
	for i := 0; i < len(t.queue); i++ {
		e := t.queue[i]
		if e.pid <= 1 || t.seen[e.pid] {
			continue // pid 1 (launchd, init) is never a run's, whatever it adopts
		}
		bytes, start, state := l.usage(e.pid)
		if state == procGone || e.known && t.known[e.pid] != start {
			continue // gone, or a stranger with a member's old pid (it may still be found as a child)
		}
		t.seen[e.pid] = true
		t.known[e.pid] = start
		if state == procLive {
			sum += bytes
			t.members = append(t.members, e.pid)
		}
		t.buf = l.children(e.pid, t.buf[:0])
		for _, c := range t.buf {
			t.queue = append(t.queue, treeEntry{pid: c})
		}
	}
	for pid := range t.known {
		if !t.seen[pid] {
			delete(t.known, pid) // gone: its pid may be reused by a stranger
		}
	}
	return sum, t.members
}

// inGroup says whether any of pids is in the run's process group now, so
// that the group is signalled only while a member is in it and a number
// reused by a stranger's group is never hit.
func (t *runTree) inGroup(l runLister, pids []int) bool {
	t.buf = l.group(t.leader, t.buf[:0])
	return slices.ContainsFunc(t.buf, func(p int) bool { return slices.Contains(pids, p) })
}

// rusageInfoV2 is macOS's struct rusage_info_v2 (<sys/resource.h>), which
// proc_pid_rusage(pid, RUSAGE_INFO_V2, …) fills. ri_phys_footprint is what
// Activity Monitor's Memory column and the kernel's memory limits count: a
// process's own dirty and compressed memory, without the clean pages of
// files it maps (which the kernel drops when it needs the room) and
// without shared pages that another process owns.
type rusageInfoV2 struct {
	UUID                [16]uint8
	UserTime            uint64
	SystemTime          uint64
	PkgIdleWkups        uint64
	InterruptWkups      uint64
	Pageins             uint64
	WiredSize           uint64
	ResidentSize        uint64
	PhysFootprint       uint64
	ProcStartAbstime    uint64
	ProcExitAbstime     uint64
	ChildUserTime       uint64
	ChildSystemTime     uint64
	ChildPkgIdleWkups   uint64
	ChildInterruptWkups uint64
	ChildPageins        uint64
	ChildElapsedAbstime uint64
	DiskioBytesread     uint64
	DiskioByteswritten  uint64
}

// The layout, checked when this compiles: 16 bytes of UUID, then eighteen
// 64-bit counters, 160 bytes in all, with the footprint at 72 and the
// start and exit times after it. A mismatch makes an array length
// negative.
const (
	sizeofRusageInfoV2 = 160
	rusageFlavorV2     = 2 // RUSAGE_INFO_V2
)

var (
	_ [unsafe.Sizeof(rusageInfoV2{}) - sizeofRusageInfoV2]struct{}
	_ [sizeofRusageInfoV2 - unsafe.Sizeof(rusageInfoV2{})]struct{}
	_ [unsafe.Offsetof(rusageInfoV2{}.PhysFootprint) - 72]struct{}
	_ [72 - unsafe.Offsetof(rusageInfoV2{}.PhysFootprint)]struct{}
	_ [unsafe.Offsetof(rusageInfoV2{}.ProcStartAbstime) - 80]struct{}
	_ [80 - unsafe.Offsetof(rusageInfoV2{}.ProcStartAbstime)]struct{}
	_ [unsafe.Offsetof(rusageInfoV2{}.ProcExitAbstime) - 88]struct{}
	_ [88 - unsafe.Offsetof(rusageInfoV2{}.ProcExitAbstime)]struct{}
	_ [unsafe.Offsetof(rusageInfoV2{}.DiskioByteswritten) - 152]struct{}
	_ [152 - unsafe.Offsetof(rusageInfoV2{}.DiskioByteswritten)]struct{}
)

// rusageUsage reads what runLister.usage reports from a filled
// rusage_info_v2: a process that has ended (an exit time) holds nothing.
func rusageUsage(ri *rusageInfoV2) (bytes, start int64, state procState) {
	if ri.ProcExitAbstime != 0 {
		return 0, int64(ri.ProcStartAbstime), procZombie
	}
	return int64(ri.PhysFootprint), int64(ri.ProcStartAbstime), procLive
}

// Timings for stopping a run past its cap from outside, as Linux's helper
// has for its own.
const (
	capKillRound   = 20 * time.Millisecond // between SIGKILL rounds, for processes forked meanwhile
	capGiveUpAfter = 3 * time.Second       // a member that outlives this many rounds is not ours to wait for
)

// runWatch is what watchRun needs of the OS.
type runWatch struct {
	list runLister
	kill func(pid int) // SIGKILL; a negative pid is a process group
}

// watchRun keeps a cap of limit bytes on the run whose shell, pid, leads
// its own process group, from outside the run (macOS, where no helper stays
// beside the command): every memPoll it reckons the run's members
// (runTree) and adds up their memory; past the cap it kills them all, in
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
		tree := newRunTree(pid)
		t := time.NewTicker(memPoll)
		defer t.Stop()
		over = pollMemory(t.C, done, limit, func() (int64, bool) {
			sum, _ := tree.look(w.list)
			return sum, true
		})
		if !over {
			return
		}
		// No grace: every moment it keeps running it takes more.
		for deadline := time.Now().Add(capGiveUpAfter); time.Now().Before(deadline); time.Sleep(capKillRound) {
			_, left := tree.look(w.list)
			if len(left) == 0 {
				return
			}
			if tree.inGroup(w.list, left) {
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

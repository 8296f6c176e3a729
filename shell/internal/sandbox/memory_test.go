package sandbox

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// The poll loop stops at the first look over the cap, never at one at or
// under it, and stops without a verdict when the run is gone or the
// watcher is told to stop. Ticks are fed by hand: no clock.
func TestPollMemory(t *testing.T) {
	t.Parallel()
	type look struct {
		rss   int64
		alive bool
	}
	cases := []struct {
		name  string
		limit int64
		looks []look
		stop  bool // close done after the looks
		want  bool
		seen  int // looks taken
	}{
		{"over at the third look", 100, []look{{10, true}, {100, true}, {101, true}, {500, true}}, false, true, 3},
		{"at the cap is not over", 100, []look{{100, true}, {100, true}}, true, false, 2},
		{"the run ends first", 100, []look{{50, true}, {0, false}, {900, true}}, false, false, 2},
		{"told to stop", 100, []look{{50, true}}, true, false, 1},
		{"no cap", 0, []look{{1 << 40, true}}, true, false, 1},
		{"negative is no cap", -1, []look{{1 << 40, true}}, true, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tick := make(chan time.Time)
			done := make(chan struct{})
			seen := 0
			sample := func() (int64, bool) {
				l := c.looks[seen]
				seen++
				return l.rss, l.alive
			}
			result := make(chan bool)
			go func() { result <- pollMemory(tick, done, c.limit, sample) }()
			for range c.looks {
				select {
				case tick <- time.Time{}:
					continue
				case got := <-result:
					check(t, got, c.want, seen, c.seen)
					return
				}
			}
			if c.stop {
				close(done)
			}
			check(t, <-result, c.want, seen, c.seen)
		})
	}
}

func check(t *testing.T, got, want bool, seen, wantSeen int) {
	t.Helper()
	if got != want || seen != wantSeen {
		t.Errorf("pollMemory = %v after %d looks, want %v after %d", got, seen, want, wantSeen)
	}
}

// proc is one row of a process table, as a fake lister and the old way of
// reckoning (runSet) see it.
type proc struct {
	pid, ppid, pgid int
	start           int64
	zombie          bool
	bytes           int64
}

// tableLister answers runTree's questions from a process table.
func tableLister(procs []proc) runLister {
	return runLister{
		group: func(pgid int, buf []int) []int {
			for _, p := range procs {
				if p.pgid == pgid {
					buf = append(buf, p.pid)
				}
			}
			return buf
		},
		children: func(pid int, buf []int) []int {
			for _, p := range procs {
				if p.ppid == pid {
					buf = append(buf, p.pid)
				}
			}
			return buf
		},
		usage: func(pid int) (int64, int64, procState) {
			for _, p := range procs {
				if p.pid == pid {
					if p.zombie {
						return 0, p.start, procZombie
					}
					return p.bytes, p.start, procLive
				}
			}
			return 0, 0, procGone
		},
	}
}

// A run is its shell's process group, everything descending from it, and
// whatever was a member before; never pid 1, never a stranger that reuses a
// member's pid, never an unrelated process. Its memory is its live
// members' own.
func TestRunTreeMembers(t *testing.T) {
	t.Parallel()
	const shell = 500
	outside := []proc{
		{pid: 1, ppid: 0, pgid: 1, start: 1, bytes: 1 << 30},
		{pid: 80, ppid: 1, pgid: 80, start: 2, bytes: 1 << 30},  // Hark
		{pid: 90, ppid: 80, pgid: 90, start: 3, bytes: 1 << 30}, // another command of Hark's
		{pid: 91, ppid: 1, pgid: 91, start: 4, bytes: 1 << 30},
	}
	table := func(ps ...proc) []proc { return append(slices.Clone(outside), ps...) }
	looks := []struct {
		name  string
		procs []proc
		want  []int
		bytes int64
	}{
		{"the shell and a job in its group", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 501, ppid: shell, pgid: shell, start: 11, bytes: 2},
		), []int{500, 501}, 3},
		{"a child that moved to its own group still counts, and its children", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 501, ppid: shell, pgid: 501, start: 11, bytes: 2},
			proc{pid: 502, ppid: 501, pgid: 501, start: 12, bytes: 4},
			proc{pid: 503, ppid: shell, pgid: shell, start: 13, zombie: true},
		), []int{500, 501, 502}, 7},
		{"left the group and lost its parent: known from before", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 502, ppid: 1, pgid: 502, start: 12, bytes: 4},
		), []int{500, 502}, 5},
		{"a stranger that reuses a member's pid is not counted", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 502, ppid: 1, pgid: 502, start: 99, bytes: 4},
		), []int{500}, 1},
		{"nor once the pid comes back with the old start, since it was forgotten", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 502, ppid: 1, pgid: 502, start: 12, bytes: 4},
		), []int{500}, 1},
		{"a stranger's pid that a member's child now has is the child", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10, bytes: 1},
			proc{pid: 502, ppid: shell, pgid: shell, start: 77, bytes: 4},
		), []int{500, 502}, 5},
		{"the shell is gone; a job left in the group still counts", table(
			proc{pid: 504, ppid: 1, pgid: shell, start: 14, bytes: 8},
		), []int{504}, 8},
	}
	tree := newRunTree(shell)
	for _, l := range looks {
		bytes, got := tree.look(tableLister(l.procs))
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, l.want) || bytes != l.bytes {
			t.Errorf("%s: members = %v holding %d, want %v holding %d", l.name, got, bytes, l.want, l.bytes)
		}
	}
}

// rusage_info_v2 as macOS fills it, written byte by byte at the offsets of
// the C struct: the footprint, not the resident size, is what counts, and
// a process with an exit time holds nothing.
func TestRusageUsage(t *testing.T) {
	t.Parallel()
	fill := func(resident, footprint, start, exit uint64) *rusageInfoV2 {
		var b [sizeofRusageInfoV2]byte
		binary.LittleEndian.PutUint64(b[64:], resident)
		binary.LittleEndian.PutUint64(b[72:], footprint)
		binary.LittleEndian.PutUint64(b[80:], start)
		binary.LittleEndian.PutUint64(b[88:], exit)
		return (*rusageInfoV2)(unsafe.Pointer(&b))
	}
	cases := []struct {
		name         string
		ri           *rusageInfoV2
		bytes, start int64
		state        procState
	}{
		{"a git with 5 GiB of mapped pack files", fill(5<<30, 300<<20, 12345, 0), 300 << 20, 12345, procLive},
		{"ended", fill(1<<30, 1<<30, 12345, 67890), 0, 12345, procZombie},
	}
	for _, c := range cases {
		bytes, start, state := rusageUsage(c.ri)
		if bytes != c.bytes || start != c.start || state != c.state {
			t.Errorf("%s: %d, %d, %v; want %d, %d, %v", c.name, bytes, start, state, c.bytes, c.start, c.state)
		}
	}
}

// runSet is how a run was reckoned before runTree: from a copy of the
// whole process table at every look. It stays as the baseline of
// BenchmarkRunLook.
type runSet struct {
	leader int
	known  map[int]int64
}

func newRunSet(leader int) *runSet { return &runSet{leader: leader, known: map[int]int64{}} }

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
			continue
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
			delete(s.known, pid)
		}
	}
	return out
}

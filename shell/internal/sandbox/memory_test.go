package sandbox

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"
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

// A run is its shell's process group, everything descending from it, and
// whatever was a member before; never pid 1, never a stranger that reuses a
// member's pid, never an unrelated process.
func TestRunSetMembers(t *testing.T) {
	t.Parallel()
	const shell = 500
	outside := []proc{
		{pid: 1, ppid: 0, pgid: 1, start: 1},
		{pid: 80, ppid: 1, pgid: 80, start: 2},  // Hark
		{pid: 90, ppid: 80, pgid: 90, start: 3}, // another command of Hark's
		{pid: 91, ppid: 1, pgid: 91, start: 4},
	}
	table := func(ps ...proc) []proc { return append(slices.Clone(outside), ps...) }
	looks := []struct {
		name  string
		procs []proc
		want  []int
	}{
		{"the shell and a job in its group", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10},
			proc{pid: 501, ppid: shell, pgid: shell, start: 11},
		), []int{500, 501}},
		{"a child that moved to its own group still counts, and its children", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10},
			proc{pid: 501, ppid: shell, pgid: 501, start: 11},
			proc{pid: 502, ppid: 501, pgid: 501, start: 12},
			proc{pid: 503, ppid: shell, pgid: shell, start: 13, zombie: true},
		), []int{500, 501, 502}},
		{"left the group and lost its parent: known from before", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10},
			proc{pid: 502, ppid: 1, pgid: 502, start: 12},
		), []int{500, 502}},
		{"a stranger that reuses a member's pid is not counted", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10},
			proc{pid: 502, ppid: 1, pgid: 502, start: 99},
		), []int{500}},
		{"nor once the pid comes back with the old start, since it was forgotten", table(
			proc{pid: shell, ppid: 80, pgid: shell, start: 10},
			proc{pid: 502, ppid: 1, pgid: 502, start: 12},
		), []int{500}},
		{"the shell is gone; a job left in the group still counts", table(
			proc{pid: 504, ppid: 1, pgid: shell, start: 14},
		), []int{504}},
	}
	set := newRunSet(shell)
	for _, l := range looks {
		got := set.members(l.procs)
		slices.Sort(got)
		if !slices.Equal(got, l.want) {
			t.Errorf("%s: members = %v, want %v", l.name, got, l.want)
		}
	}
}

// proc_taskinfo as macOS fills it: the resident size is the second 64-bit
// field; anything short of the whole struct is no reading.
func TestTaskResident(t *testing.T) {
	t.Parallel()
	full := make([]byte, sizeofTaskInfo)
	binary.LittleEndian.PutUint64(full[0:], 7<<30)   // pti_virtual_size
	binary.LittleEndian.PutUint64(full[8:], 123<<20) // pti_resident_size
	binary.LittleEndian.PutUint64(full[16:], 999)    // pti_total_user
	cases := []struct {
		name   string
		buf    []byte
		n      int
		want   int64
		wantOK bool
	}{
		{"filled", full, sizeofTaskInfo, 123 << 20, true},
		{"gone (0 bytes)", full, 0, 0, false},
		{"refused (-1)", full, -1, 0, false},
		{"a shorter struct", full, sizeofTaskInfo - 4, 0, false},
		{"a short buffer", full[:40], sizeofTaskInfo, 0, false},
	}
	for _, c := range cases {
		got, ok := taskResident(c.buf, c.n)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s: taskResident = %d, %v; want %d, %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
	if sizeofTaskInfo != 96 {
		t.Errorf("sizeof(struct proc_taskinfo) = %d, want 96", sizeofTaskInfo)
	}
}

//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
	"golang.org/x/sys/unix"
)

// procTable reads Linux's whole process table, as kern.proc.all gave
// macOS's watcher before it asked about a run's processes only; the
// baseline of BenchmarkRunLook, and what running() searches.
func procTable() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 20 {
			continue
		}
		n := func(k int) int64 { v, _ := strconv.ParseInt(string(f[k]), 10, 64); return v }
		out = append(out, proc{pid: pid, ppid: int(n(1)), pgid: int(n(2)), start: n(19), zombie: string(f[0]) == "Z"})
	}
	return out
}

// procLister answers runTree's questions from /proc, through procFS's
// buffers, so that the watcher macOS uses runs here on real processes.
// Linux has no call that lists a process group (macOS's PROC_PGRP_ONLY),
// so group stands in with the leader alone while it leads the group: a
// member that leaves the group and loses its parent between two looks is
// missed here and on macOS alike, one that keeps the group but loses its
// parent is missed here only. Children are those of the main thread, the
// usage its resident size.
type procLister struct{ fs procFS }

func (l *procLister) runLister() runLister {
	return runLister{
		group: func(pgid int, buf []int) []int {
			if st, ok := l.fs.stat(pgid); ok && st.pgid == int64(pgid) {
				buf = append(buf, pgid)
			}
			return buf
		},
		children: func(pid int, buf []int) []int {
			l.fs.setPath(pid, "/task/")
			l.fs.path = append(appendInt(l.fs.path[:len(l.fs.path)-1], int64(pid)), "/children\x00"...)
			for b := l.fs.readPath(); len(b) > 0; {
				f, rest, _ := bytes.Cut(bytes.TrimLeft(b, " \n"), []byte(" "))
				if n, ok := digits(bytes.TrimSpace(f)); ok {
					buf = append(buf, int(n))
				}
				b = rest
			}
			return buf
		},
		usage: func(pid int) (int64, int64, procState) {
			st, ok := l.fs.stat(pid)
			switch {
			case !ok:
				return 0, 0, procGone
			case st.state == 'Z' || st.state == 'X':
				return 0, st.start, procZombie
			}
			return l.fs.resident(pid), st.start, procLive
		},
	}
}

// The watcher that keeps the cap from outside (macOS's way) stops a run
// whose processes together pass it, including one that moved to a session
// of its own, and leaves alone a run below it. Real processes, Linux's
// process table: the same code path as on a Mac but for where the numbers
// come from.
func TestWatchRunKeepsTheCap(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const capBytes = 160 << 20
	alloc := func(mib, secs int) string { return fmt.Sprintf("'%s' %s %d %d", exe, allocCommand, mib, secs) }
	// Each case's allocators have arguments of their own, by which it finds
	// what outlived it: a case looking for another's would stop that one's
	// run in the middle (the two run in parallel).
	cases := []struct {
		name    string
		command string
		args    [2]string
		over    bool
	}{
		{"four past the cap together", alloc(60, 60) + " & " + alloc(60, 60) + " & setsid " + alloc(60, 60) + " & " + alloc(60, 60) + " & wait", [2]string{"60", "60"}, true},
		{"one below it", alloc(40, 1), [2]string{"40", "1"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("/bin/sh", "-c", c.command)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			var l procLister
			end := watchRun(pid, capBytes, runWatch{list: l.runLister(), kill: func(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }})
			err := cmd.Wait()
			over := end()
			left := running(exe, allocCommand, c.args[0], c.args[1])
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL) // leave nothing behind, whatever happened
			}
			if over != c.over {
				t.Errorf("stopped for the cap: %v, want %v (shell: %v)", over, c.over, err)
			}
			if c.over && len(left) > 0 {
				t.Errorf("processes %v of the run outlived the cap", left)
			}
			if !c.over && err != nil {
				t.Errorf("the run below the cap failed: %v", err)
			}
		})
	}
}

// running lists the processes whose argv is exactly argv.
func running(argv ...string) []int {
	want := []byte(strings.Join(argv, "\x00") + "\x00")
	var out []int
	for _, p := range procTable() {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline"); err == nil && bytes.Equal(b, want) && !p.zombie {
			out = append(out, p.pid)
		}
	}
	return out
}

// A memory file a process holds open counts in full, though its pages are
// in no resident set (write() filled it; nothing maps it): a memfd, an
// unlinked file in /dev/shm. Its holes count for nothing.
func TestRunMemoryCountsHeldMemoryFiles(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const mib = 96
	for _, c := range []struct {
		kind     string
		min, max int64
	}{
		{"memfd", mib << 20, mib<<20 + 64<<20},
		{"shm", mib << 20, mib<<20 + 64<<20},
		{"sparse", 0, 64 << 20},
	} {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, memFileCommand, c.kind, strconv.Itoa(mib))
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer in.Close()
			line, _ := bufio.NewReader(out).ReadString('\n')
			if strings.HasPrefix(line, "unavailable:") {
				t.Skipf("no %s here: %s", c.kind, line)
			}
			if line != "ready\n" {
				t.Fatalf("the holder said %q", line)
			}
			var m runMemory
			got := m.of([]int{cmd.Process.Pid}, 0)
			if got < c.min || got > c.max {
				t.Errorf("counted %d MiB, want %d to %d MiB (resident: %d MiB)", got>>20, c.min>>20, c.max>>20, new(procFS).resident(cmd.Process.Pid)>>20)
			}
			// Held twice (a second process with the same file open would
			// be the same): counted once.
			if again := m.of([]int{cmd.Process.Pid, cmd.Process.Pid}, 0); again-got > 64<<20 {
				t.Errorf("one file held in two places counted twice: %d MiB, then %d MiB", got>>20, again>>20)
			}
		})
	}
}

// memFileMain is `EXE __memfile KIND MIB`: it makes a memory file of KIND
// ("memfd", "shm": unlinked in /dev/shm, "sparse": a memfd of MIB with
// nothing written), writes MIB into it through write(), prints "ready" and
// holds it open until its standard input closes.
func memFileMain(kind, mib string) int {
	n, err := strconv.Atoi(mib)
	if err != nil {
		return 2
	}
	var fd int
	switch kind {
	case "memfd", "sparse":
		fd, err = unix.MemfdCreate("hark-test", 0)
	case "shm":
		name := "/dev/shm/hark-test-" + strconv.Itoa(os.Getpid())
		fd, err = unix.Open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
		unix.Unlink(name)
	}
	if err != nil {
		fmt.Println("unavailable:", err)
		return 0
	}
	if kind == "sparse" {
		err = unix.Ftruncate(fd, int64(n)<<20)
	} else {
		chunk := make([]byte, 1<<20)
		for range n {
			if _, err = unix.Write(fd, chunk); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Println("write:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startRun starts a shell in a process group of its own with four
// sleeping children, one of which has left for a session of its own, and
// waits until a look sees all five; the run is stopped at the test's end.
func startRun(tb testing.TB) int {
	tb.Helper()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & sleep 60 & sleep 60 & setsid sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	pid := cmd.Process.Pid
	tb.Cleanup(func() {
		var l procLister
		_, members := newRunTree(pid).look(l.runLister())
		for _, m := range members {
			syscall.Kill(m, syscall.SIGKILL)
		}
		cmd.Wait()
	})
	var l procLister
	for range 1000 {
		if _, members := newRunTree(pid).look(l.runLister()); len(members) == 5 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatal("the run's five processes did not appear")
	return 0
}

// A look at a run that keeps going, the 50 ms poll of a long command,
// allocates nothing once the watch has its buffers: every look at a copy
// of the whole process table (the way before) allocated with every
// process on the machine.
func TestRunTreeLookAllocatesNothing(t *testing.T) {
	pid := startRun(t)
	var l procLister
	list := l.runLister()
	tree := newRunTree(pid)
	tree.look(list)
	if n := testing.AllocsPerRun(50, func() { tree.look(list) }); n != 0 {
		t.Errorf("a look allocates %v times, want none", n)
	}
	set := newRunSet(pid)
	if n := testing.AllocsPerRun(10, func() { set.members(procTable()) }); n == 0 {
		t.Errorf("the whole table was read without allocating; the comparison is void")
	}
}

// BenchmarkRunLook compares one look at a run (the work of each 50 ms poll
// while a command runs) the way before, a copy of the whole process table
// reckoned afresh, with runTree's, which asks about the run's processes
// only, in buffers it keeps. Real processes; the table is Linux's, where
// macOS's was kern.proc.all, 648 bytes a process.
func BenchmarkRunLook(b *testing.B) {
	pid := startRun(b)
	b.Run("whole table", func(b *testing.B) {
		var l procLister
		list := l.runLister()
		set := newRunSet(pid)
		b.ReportAllocs()
		for b.Loop() {
			var sum int64
			for _, m := range set.members(procTable()) {
				n, _, _ := list.usage(m)
				sum += n
			}
		}
	})
	b.Run("run only", func(b *testing.B) {
		var l procLister
		list := l.runLister()
		tree := newRunTree(pid)
		b.ReportAllocs()
		for b.Loop() {
			tree.look(list)
		}
	})
}

// BenchmarkSessionMemory is what one 50 ms look at a sandboxed run costs
// the zygote: adding up resident sizes (before), the bound runMemory takes
// while a run is under its cap (resident sizes and the memory files its
// processes hold), and the exact count it takes once that bound passes the
// cap (proportional sets too). A real session of a shell and three sleeps.
func BenchmarkSessionMemory(b *testing.B) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & sleep 60 & sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sid := cmd.Process.Pid
	defer func() {
		syscall.Kill(-sid, syscall.SIGKILL)
		cmd.Wait()
	}()
	for range 1000 {
		if n := len(processes(func(pid int) bool { return sessionOf(pid) == sid })); n == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Run("resident sizes (before)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var sum int64
			processes(func(pid int) bool {
				if sessionOf(pid) == sid {
					sum += residentBytes(pid)
				}
				return false
			})
		}
	})
	b.Run("under the cap", func(b *testing.B) {
		var m runMemory
		b.ReportAllocs()
		for b.Loop() {
			m.session(sid, 4<<30)
		}
	})
	b.Run("over the cap", func(b *testing.B) {
		var m runMemory
		b.ReportAllocs()
		for b.Loop() {
			m.session(sid, 0)
		}
	})
}

// residentBytes is how the watch read a resident size before procFS, a
// fresh file read each time: the baseline of BenchmarkSessionMemory.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return n * pageSize
}

// A look at a sandboxed run (the zygote's and the helper's 50 ms poll)
// allocates nothing, however many processes the machine runs: Linux has no
// call that lists a session, so every look reads the stat line of every
// process, but into procFS's buffers, not into fresh copies of the table
// (the way before allocated with every process on the machine, about
// 300 KB a look on a quiet desktop).
func TestSessionLookAllocatesNothing(t *testing.T) {
	start := func(attr *syscall.SysProcAttr, script string) int {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.SysProcAttr = attr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		t.Cleanup(func() {
			syscall.Kill(-pid, syscall.SIGKILL)
			cmd.Wait()
		})
		return pid
	}
	sid := start(&syscall.SysProcAttr{Setsid: true}, "sleep 60 & sleep 60 & sleep 60 & wait")
	var m runMemory
	for range 1000 {
		if m.session(sid, 4<<30); len(m.pids) == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(m.pids) != 4 || m.session(sid, 4<<30) <= 0 {
		t.Fatalf("a look found %v in the session, want its shell and three sleeps holding memory", m.pids)
	}
	before := testing.AllocsPerRun(20, func() { m.session(sid, 4<<30) })
	// Forty processes more on the machine, none of them the run's.
	others := start(&syscall.SysProcAttr{Setsid: true}, strings.Repeat("sleep 60 & ", 40)+"wait")
	var n int
	for range 1000 {
		var fs procFS
		n = 0
		fs.pids(func(pid int) {
			if st, ok := fs.stat(pid); ok && st.sid == int64(others) {
				n++
			}
		})
		if n == 41 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n != 41 {
		t.Fatalf("the other session has %d processes, want 41", n)
	}
	after := testing.AllocsPerRun(20, func() { m.session(sid, 4<<30) })
	if before != 0 || after != 0 {
		t.Errorf("a look allocates %v times, and %v with 41 more processes running; want none", before, after)
	}
	if m.session(sid, 4<<30); len(m.pids) != 4 {
		t.Errorf("the look counted %v, want the run's four processes only", m.pids)
	}
	if oldWay := testing.AllocsPerRun(5, func() {
		processes(func(pid int) bool { return sessionOf(pid) == sid })
	}); oldWay < 41 {
		t.Errorf("the old way allocated %v times over more than 45 processes; the comparison is void", oldWay)
	}
}

// procFS reads a stat line whose command name holds spaces and
// parentheses, and refuses a cut one.
func TestProcFSStatLine(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep to copy: ", err)
	}
	src, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "a) 1 (2 3")
	exectest.WriteProgram(t, exe, src, 0o755)
	cmd := exec.Command(exe, "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var fs procFS
	if b := fs.read(cmd.Process.Pid, "/stat"); !bytes.Contains(b, []byte("(a) 1 (2 3)")) {
		t.Fatalf("the stat line %q does not hold the awkward name", b)
	}
	st, ok := fs.stat(cmd.Process.Pid)
	if !ok || st.ppid != int64(os.Getpid()) || st.pgid != int64(cmd.Process.Pid) || st.sid != int64(sessionOf(os.Getpid())) || st.start <= 0 {
		t.Errorf("stat %+v (%v), want parent %d, group %d, session %d", st, ok, os.Getpid(), cmd.Process.Pid, sessionOf(os.Getpid()))
	}
	if _, ok := fs.stat(-1); ok {
		t.Error("a stat line of no process was read")
	}
}

// What a process has in swap counts toward the cap: VmSwap is read out of
// a status text wherever it stands, in kB, and a text without it is 0.
// (No test machine here has swap, so the kernel's side is not tried.)
func TestStatusSwap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want int64
	}{
		{"Name:\tcat\nVmRSS:\t    1000 kB\nVmSwap:\t   20480 kB\nHugetlbPages:\t       0 kB\n", 20480 << 10},
		{"Name:\tcat\nVmSwap:\t       0 kB\n", 0},
		{"Name:\tkthreadd\nUmask:\t0000\n", 0},
		{"Name:\tVmSwap: 99 kB\nVmSwap:\t 7 kB\n", 7 << 10}, // a command name that looks like the field
		{"", 0},
	}
	for _, c := range cases {
		if got := statusSwap([]byte(c.text)); got != c.want {
			t.Errorf("%q: %d, want %d", c.text, got, c.want)
		}
	}
	var fs procFS
	if b := fs.read(os.Getpid(), "/status"); !bytes.Contains(b, []byte("\nVmSwap:")) {
		t.Skip("this kernel's status has no VmSwap")
	} else if got, want := fs.swapped(os.Getpid()), statusSwap(b); got != want || got < 0 {
		t.Errorf("swapped: %d, status says %d", got, want)
	}
}

//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// procTable reads Linux's process table into the rows watchRun reckons
// with, so that the watcher macOS uses runs here on real processes; only
// the table and the resident sizes come from another source there.
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
	w := runWatch{table: procTable, resident: residentBytes, kill: func(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }}
	cases := []struct {
		name    string
		command string
		over    bool
	}{
		{"four past the cap together", alloc(60, 60) + " & " + alloc(60, 60) + " & setsid " + alloc(60, 60) + " & " + alloc(60, 60) + " & wait", true},
		{"one below it", alloc(40, 1), false},
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
			end := watchRun(pid, capBytes, w)
			err := cmd.Wait()
			over := end()
			left := running(exe, allocCommand, "60", "60")
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
				t.Errorf("counted %d MiB, want %d to %d MiB (resident: %d MiB)", got>>20, c.min>>20, c.max>>20, residentBytes(cmd.Process.Pid)>>20)
			}
			// Held twice (a second process with the same file open would
			// be the same): counted once.
			if again := m.of([]int{cmd.Process.Pid, cmd.Process.Pid}, 0); again-got > 64<<20 {
				t.Errorf("one file held in two places counted twice: %d MiB, then %d MiB", got>>20, again>>20)
			}
		})
	}
}

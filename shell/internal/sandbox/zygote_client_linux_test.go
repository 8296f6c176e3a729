//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testZygote starts a zygote of the calling test's own: the helper is a
// link to the test binary under a new name, and zygotes are kept per helper
// path, so a test that counts its runs shares it with no other.
func testZygote(t *testing.T) *Zygote {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(t.TempDir(), "hark")
	if err := os.Symlink(exe, helper); err != nil {
		t.Fatal(err)
	}
	z, err := ZygoteFor(helper, func() []string { return append(os.Environ(), HelperEnv+"=1") })
	if err != nil {
		t.Fatalf("the zygote did not start: %v", err)
	}
	t.Cleanup(func() {
		if err := StopZygote(helper, 10*time.Second); err != nil {
			t.Error(err)
		}
	})
	return z
}

// testEnv is a command's environment in these tests.
func testEnv() []string { return []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"} }

// requireLandlock skips on kernels without Landlock; on CI (CI=true), whose
// kernel has it, a missing sandbox fails instead of hiding the tests.
func requireLandlock(t *testing.T) {
	t.Helper()
	if ok, detail := Status(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is nothing to test: " + detail)
	}
}

// The zygote keeps no copy of a command's pipes: output reaches EOF when
// the command's own processes close it, exactly as when Hark starts the
// shell itself.
func TestZygoteHoldsNoPipes(t *testing.T) {
	t.Parallel()
	z := testZygote(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWatcher{lines: 2, ready: make(chan struct{})}
	done := make(chan Outcome, 1)
	go func() {
		o, _ := z.Run(ctx, Spec{Argv: []string{"/bin/sh", "-c", "readlink /proc/$$/fd/1 /proc/$$/fd/2; exec sleep 30"}, Dir: "/", Env: testEnv()}, out, out)
		done <- o
	}()
	select {
	case <-out.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the command printed nothing")
	}
	pipes := strings.Fields(out.String())
	if len(pipes) != 2 || !strings.HasPrefix(pipes[0], "pipe:") || pipes[0] == pipes[1] {
		t.Fatalf("the command's stdout and stderr: %q", pipes)
	}
	// The zygote closes its copies just after the fork, while the command
	// may already be running, so a busy machine can show them for a moment:
	// they must go long before the command ends.
	held := func() []string {
		fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", z.PID()))
		if err != nil || len(fds) == 0 {
			t.Fatalf("cannot list the zygote's descriptors: %v", err)
		}
		var got []string
		for _, fd := range fds {
			if target, _ := os.Readlink(fd); target == pipes[0] || target == pipes[1] {
				got = append(got, fd+" ("+target+")")
			}
		}
		return got
	}
	deadline := time.Now().Add(10 * time.Second)
	for h := held(); len(h) > 0; h = held() {
		if time.Now().After(deadline) {
			t.Fatalf("the zygote still holds the command's pipes 10 s after it started: %v", h)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if o := <-done; !o.Started || !o.Stopped {
		t.Errorf("want a started, stopped run: %+v", o)
	}
}

// A zygote that cannot apply the sandbox does not run the command.
func TestZygoteSandboxFailsClosed(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	z := testZygote(t)
	marker := filepath.Join(t.TempDir(), "ran")
	spec := Spec{Argv: []string{"/bin/sh", "-c", "touch " + marker}, Dir: "/", Env: testEnv(), ReadOnly: true, TmpDir: filepath.Join(t.TempDir(), "missing")}
	o, ok := z.Run(context.Background(), spec, &strings.Builder{}, &strings.Builder{})
	if !ok || o.Started || !strings.Contains(o.Err, "sandbox could not be applied") {
		t.Errorf("reached %v, started %v, err %q", ok, o.Started, o.Err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without its sandbox")
	}
}

// lineWatcher is an io.Writer that closes ready once it has seen lines
// newlines.
type lineWatcher struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines int
	ready chan struct{}
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.lines > 0 && strings.Count(w.buf.String(), "\n") >= w.lines {
		w.lines = 0
		close(w.ready)
	}
	return len(p), nil
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Runs reuse the wake-up eventfd of earlier runs; a run that was cancelled
// must not hand a written one to the next, which would then stop at once.
func TestZygoteWakeReuseAfterCancel(t *testing.T) {
	z := testZygote(t)
	spec := Spec{Argv: []string{"/bin/sh", "-c", "sleep 0.3; echo done"}, Dir: "/", Env: testEnv()}
	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		if i == 0 {
			cancel() // stopped: its eventfd was written
		}
		out := &strings.Builder{}
		o, ok := z.Run(ctx, spec, out, &strings.Builder{})
		cancel()
		if !ok || !o.Started {
			t.Fatalf("run %d did not start: %+v", i, o)
		}
		if i == 0 {
			if !o.Stopped {
				t.Errorf("the cancelled run was not stopped: %+v", o)
			}
			continue
		}
		if o.Stopped || o.ExitCode != 0 || out.String() != "done\n" {
			t.Errorf("run %d after a cancelled one: %+v, output %q", i, o, out.String())
		}
	}
	spareWakes.mu.Lock()
	defer spareWakes.mu.Unlock()
	if len(spareWakes.fds) == 0 {
		t.Fatal("no eventfd was kept for reuse")
	}
	for _, fd := range spareWakes.fds {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		for errors.Is(err, unix.EINTR) { // a signal to the test process, not an answer
			n, err = unix.Poll(pfd, 0)
		}
		if err != nil || n != 0 {
			t.Errorf("a kept eventfd is readable (%d, %v): a run would wake for nothing", n, err)
		}
	}
}

// A zygote that dies between forking a command and saying it started
// leaves a shell nobody knows of: the runner finds it, and what it started,
// by the run's marker, and stops them all; processes of other runs, whose
// markers only begin alike, are left alone.
func TestStopUnconfirmedRun(t *testing.T) {
	t.Parallel()
	marker := RunMarker + "=" + strconv.Itoa(os.Getpid()) + ".1"
	start := func(marker, script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(testEnv(), marker)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		return cmd
	}
	// The shell, a job in its group, and one in a session of its own, each
	// with a job that dropped the marker: in the shell's group, and in a
	// group of its own in the other session.
	unmarked := filepath.Join(t.TempDir(), "unmarked")
	run := start(marker, fmt.Sprintf(`sleep 300 &
env -u %[1]s sleep 300 & echo $! >> %[2]s
setsid sh -c 'env -u %[1]s perl -e "setpgrp(0, 0); exec @ARGV" sleep 300 & echo $! >> %[2]s; exec sleep 300' &
exec sleep 300`, RunMarker, unmarked))
	other := start(marker+"0", "exec sleep 300")
	// Until each env has run sleep, it still carries the marker.
	var pids, jobs []int
	settled := func() bool {
		pids, jobs = runProcesses(marker), nil
		for _, f := range strings.Fields(readFile(unmarked)) {
			pid, err := strconv.Atoi(f)
			if err != nil || slices.Contains(pids, pid) || !strings.Contains(readFile(fmt.Sprintf("/proc/%d/cmdline", pid)), "sleep") {
				return false
			}
			jobs = append(jobs, pid)
		}
		return len(pids) == 3 && len(jobs) == 2
	}
	for deadline := time.Now().Add(10 * time.Second); !settled(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run's processes: %v, want 3, and unmarked %q, want 2", pids, readFile(unmarked))
		}
	}
	if !slices.Contains(pids, run.Process.Pid) || slices.Contains(pids, other.Process.Pid) {
		t.Fatalf("the run's processes %v: want %d in and %d out", pids, run.Process.Pid, other.Process.Pid)
	}
	pids = append(pids, jobs...)
	if !stopUnconfirmed(marker) {
		t.Fatal("found nothing to stop")
	}
	_ = run.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var alive []int
		for _, pid := range pids {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %v", alive)
		}
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("another run's process was stopped: %v", err)
	}
	if stopUnconfirmed(marker) {
		t.Error("found the run again once it was stopped")
	}
}

func readFile(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

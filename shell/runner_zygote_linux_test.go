//go:build linux

package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
	"github.com/hark-sh/hark/shell/internal/sandbox"
	"github.com/hark-sh/hark/shell/scope"
)

// zygoteRunner is a test Runner with a zygote of its own: the helper is a
// link to the test binary under a new name, and zygotes are kept per helper
// path. Tests that kill their zygote or count its runs must not share the
// one every other test uses.
func zygoteRunner(t *testing.T, o RunnerOptions) (*Runner, *sandbox.Zygote) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.HelperPath = filepath.Join(t.TempDir(), "hark")
	if err := os.Symlink(exe, o.HelperPath); err != nil {
		t.Fatal(err)
	}
	r := testRunner(t, o)
	z, err := sandbox.ZygoteFor(r.helper, zygoteEnviron)
	if err != nil {
		t.Fatalf("the zygote did not start: %v", err)
	}
	t.Cleanup(func() {
		// As Hark's exit would.
		if err := sandbox.StopZygote(r.helper, 10*time.Second); err != nil {
			t.Error(err)
		}
	})
	return r, z
}

// The zygote runs commands by default, once per process, with the run marker
// in each command's environment.
func TestZygoteIsTheDefault(t *testing.T) {
	t.Parallel()
	r, z := zygoteRunner(t, RunnerOptions{})
	for i := range 3 {
		res := r.Run(context.Background(), Request{Command: `echo "$PPID $` + sandbox.RunMarker + `"`, Verdict: confirmed})
		want := fmt.Sprintf("%d %d.%d\n", z.PID(), z.PID(), i+1)
		if !res.Success || res.Output != want {
			t.Errorf("run %d: output %q, want %q (the zygote's child): %s", i, res.Output, want, res.JSON())
		}
	}
}

// A killed zygote is replaced on the next Run; the command it was running
// is stopped and reported as such.
func TestZygoteRestartsAfterKill(t *testing.T) {
	t.Parallel()
	r, z := zygoteRunner(t, RunnerOptions{Timeout: 20 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan Result, 1)
	started := filepath.Join(t.TempDir(), "started")
	go func() {
		done <- r.Run(ctx, Request{Command: "sleep 300 & echo $!; touch " + started + "; wait", Verdict: confirmed})
	}()
	waitFor(t, "the command to start", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	if err := syscall.Kill(z.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if ctx.Err() != nil || res.Success || !res.Executed || !strings.Contains(res.Error, "stopped unexpectedly") {
		t.Errorf("want a run stopped with its zygote: %s", res.JSON())
	}
	waitGone(t, pidsFrom(t, res.Output))
	<-z.Done()

	res = r.Run(context.Background(), Request{Command: "echo $PPID", Verdict: confirmed})
	pids := pidsFrom(t, res.Output)
	if !res.Success || len(pids) != 1 || pids[0] == z.PID() {
		t.Fatalf("after the restart: %s", res.JSON())
	}
	z2, err := sandbox.ZygoteFor(r.helper, zygoteEnviron)
	if err != nil || z2.PID() != pids[0] {
		t.Errorf("the new zygote is %v (%v); the command's parent was %d", z2, err, pids[0])
	}
}

const harkExitTest = "__hark_exit_test"

// harkExitMain plays Hark: it starts the zygote, writes its PID to
// DIR/zygote, and runs a command that starts escaping descendants, writes
// their PIDs to DIR/pids and DIR/ready last, then blocks until killed.
//
// `EXE __hark_exit_test DIR per-command` and `… DIR direct` run the command
// the fallback ways instead, with a helper process per command or with no
// helper at all, and start no zygote.
func harkExitMain(args []string) int {
	dir := args[0]
	r := NewRunner(RunnerOptions{Home: dir, Timeout: time.Minute})
	switch mode := append(args[1:], "")[0]; mode {
	case "per-command":
		r.perCommand = true
	case "direct":
		r.direct = true
	case "":
		z, err := sandbox.ZygoteFor(r.helper, zygoteEnviron)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(filepath.Join(dir, "zygote"), []byte(strconv.Itoa(z.PID())), 0o600); err != nil {
			return 1
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		return 2
	}
	pids := filepath.Join(dir, "pids")
	r.Run(context.Background(), Request{Verdict: confirmed, Command: fmt.Sprintf(`
sleep 300 & echo $! >> %[1]s
setsid sleep 300 & echo $! >> %[1]s
(setsid sleep 300 & echo $! >> %[1]s) ; :
echo $$ >> %[1]s
touch %[2]s
sleep 300`, pids, filepath.Join(dir, "ready"))})
	return 0
}

// When Hark dies, its zygote stops every command it runs, escaped
// descendants included, and exits.
func TestZygoteDiesWithHark(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hark := exec.Command(exe, harkExitTest, dir)
	if err := hark.Start(); err != nil {
		t.Fatal(err)
	}
	defer hark.Process.Kill()
	waitFor(t, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "ready"))
		return err == nil
	})
	b, _ := os.ReadFile(filepath.Join(dir, "zygote"))
	zpid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("zygote PID %q: %v", b, err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "pids"))
	pids := pidsFrom(t, string(b))
	if len(pids) != 4 {
		t.Fatalf("want 4 PIDs, got %v", pids)
	}
	for _, pid := range append([]int{zpid}, pids...) {
		if !alive(pid) {
			t.Fatalf("process %d is not running before Hark dies", pid)
		}
	}
	hark.Process.Kill()
	hark.Wait()
	waitGone(t, append([]int{zpid}, pids...))
}

// Without the zygote, a command still dies with Hark, even when Hark dies
// of SIGKILL: through the per-command helper, which gets SIGTERM from the
// kernel and stops every descendant, escaped ones included; run with no
// helper at all, only the shell gets SIGKILL, and what it started stays.
func TestCommandDiesWithHarkWithoutZygote(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"per-command", "direct"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			hark := exec.Command(exe, harkExitTest, dir, mode)
			if err := hark.Start(); err != nil {
				t.Fatal(err)
			}
			defer hark.Process.Kill()
			waitFor(t, "the command to start", func() bool {
				_, err := os.Stat(filepath.Join(dir, "ready"))
				return err == nil
			})
			b, _ := os.ReadFile(filepath.Join(dir, "pids"))
			pids := pidsFrom(t, string(b))
			if len(pids) != 4 {
				t.Fatalf("want 4 PIDs, got %v", pids)
			}
			for _, pid := range pids {
				if !alive(pid) {
					t.Fatalf("process %d is not running before Hark dies", pid)
				}
			}
			hark.Process.Kill()
			hark.Wait()
			if mode == "direct" {
				waitGone(t, pids[3:]) // the shell
				for _, pid := range pids[:3] {
					syscall.Kill(pid, syscall.SIGKILL) // not ours to stop any more
				}
				return
			}
			waitGone(t, pids)
		})
	}
}

// Runs at the same time, one sandboxed, do not touch each other: stopping
// one run's escaped descendants leaves the others' alone, and each run's
// output is its own.
func TestZygoteConcurrentRunsIsolated(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Timeout: 30 * time.Second})
	goFile := filepath.Join(t.TempDir(), "go")
	// Each survivor starts an escaped process and an orphan, waits until the
	// stopped run is over, checks both still live, and exits, which stops
	// them. A sandboxed command cannot leave its session (setsid is
	// refused), so its two are a background job and an orphan.
	survivor := func(token string, sandboxed bool) string {
		leave := "setsid "
		if sandboxed {
			leave = ""
		}
		return fmt.Sprintf(`%[3]ssleep 300 & a=$!; echo $a
b=$( (%[3]ssleep 300 >/dev/null 2>&1 & echo $!) ); echo $b
i=0; while [ ! -e %[1]s ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done
kill -0 $a && kill -0 $b && echo %[2]s`, goFile, token, leave)
	}
	type run struct {
		name string
		req  Request
		res  Result
	}
	runs := []*run{
		{name: "stopped", req: Request{Command: escapingCommand, Verdict: confirmed, Timeout: 3 * time.Second}},
		{name: "sandboxed", req: Request{Command: survivor("token-b", true), Verdict: confirmed, Sandbox: SandboxReadOnly}},
		{name: "c", req: Request{Command: survivor("token-c", false), Verdict: confirmed}},
		{name: "d", req: Request{Command: survivor("token-d", false), Verdict: confirmed}},
	}
	var wg sync.WaitGroup
	for _, ru := range runs[1:] {
		wg.Go(func() { ru.res = r.Run(context.Background(), ru.req) })
	}
	runs[0].res = r.Run(context.Background(), runs[0].req)
	stopped := runs[0].res
	if !stopped.TimedOut {
		t.Errorf("want a timeout: %s", stopped.JSON())
	}
	for _, pid := range pidsFrom(t, stopped.Output) {
		if alive(pid) {
			t.Errorf("process %d of the stopped run survived", pid)
		}
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, ru := range runs[1:] {
		token := fmt.Sprintf("token-%c", 'b'+i)
		if !ru.res.Success || !strings.HasSuffix(ru.res.Output, "\n"+token+"\n") {
			t.Errorf("%s: its processes did not survive the other run's stop, or its output is not its own: %s", ru.name, ru.res.JSON())
		}
		if want := map[bool]string{true: SandboxApplied, false: SandboxNotApplied}[ru.req.Sandbox == SandboxReadOnly]; ru.res.Sandbox != want {
			t.Errorf("%s: sandbox %q, want %q", ru.name, ru.res.Sandbox, want)
		}
		pids := pidsFrom(t, ru.res.Output)
		if len(pids) != 2 {
			t.Errorf("%s: want 2 PIDs, got %v", ru.name, pids)
		}
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("%s: process %d outlived its command", ru.name, pid)
			}
		}
		waitGone(t, pids)
	}
	waitGone(t, pidsFrom(t, stopped.Output))
}

// An orphan without the run marker, in a session of its own, cannot be
// traced to a run; with no other run active it is the finished run's, and
// is stopped with it.
func TestZygoteStopsUnattributableOrphans(t *testing.T) {
	t.Parallel()
	r, _ := zygoteRunner(t, RunnerOptions{})
	res := r.Run(context.Background(), Request{Command: "(setsid env -i sleep 300 >/dev/null 2>&1 & echo $!); :", Verdict: confirmed})
	if !res.Success {
		t.Fatalf("%s", res.JSON())
	}
	pids := pidsFrom(t, res.Output)
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("orphan %d outlived the command", pid)
		}
	}
	waitGone(t, pids)
}

// Sandboxed runs confine only their own command: unsandboxed runs after
// them, from the same zygote, can still write.
func TestZygoteSandboxDoesNotLeak(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{})
	dir := t.TempDir()
	for i := range 4 {
		sandboxed := filepath.Join(dir, fmt.Sprintf("sandboxed-%d", i))
		res := r.Run(context.Background(), Request{Command: "touch " + sandboxed, Verdict: confirmed, Sandbox: SandboxReadOnly})
		if res.Sandbox != SandboxApplied || res.Success {
			t.Errorf("round %d: the sandboxed write was not blocked: %s", i, res.JSON())
		}
		free := filepath.Join(dir, fmt.Sprintf("free-%d", i))
		res = r.Run(context.Background(), Request{Command: "touch " + free, Verdict: confirmed, Sandbox: SandboxOff})
		if _, err := os.Stat(free); err != nil || !res.Success {
			t.Errorf("round %d: an unsandboxed run after a sandboxed one could not write: %s", i, res.JSON())
		}
	}
}

// A helper that cannot serve as zygote leaves the Runner on the per-command
// helper, sandbox included.
func TestZygoteFallback(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(t.TempDir(), "old-hark")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$2\" = %s ] && exit 1\nexec %q \"$@\"\n", sandbox.ZygoteArg, exe)
	exectest.WriteScript(t, helper, script)
	r := testRunner(t, RunnerOptions{HelperPath: helper})
	target := filepath.Join(t.TempDir(), "f")
	res := r.Run(context.Background(), Request{Command: "echo ran; touch " + target, Verdict: confirmed, Sandbox: SandboxReadOnly})
	if _, err := os.Stat(target); err == nil || res.Sandbox != SandboxApplied || res.Output != "ran\n" {
		t.Errorf("want the command run, sandboxed, by the per-command helper: %s", res.JSON())
	}
	if _, err := sandbox.ZygoteFor(helper, zygoteEnviron); err == nil {
		t.Error("a zygote started from a helper that cannot serve one")
	}
}

// waitFor polls cond every 10 ms for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// The zygote's own environment carries no secrets: it never needs them, and
// its environment outlives any one command.
func TestZygoteEnv(t *testing.T) {
	t.Parallel()
	got := zygoteEnv([]string{"PATH=/bin", "GITHUB_TOKEN=x", "PGPASSWORD=y", "GOMAXPROCS=2"})
	want := []string{"PATH=/bin", "GOMAXPROCS=2", helperEnv + "=1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("zygoteEnv = %q, want %q", got, want)
	}
}

// A zygote holds an approved run's kept and hidden places itself (as
// root the zygote, otherwise one in a user namespace of its own), by
// mounts in a namespace the run's shell makes its own: the run
// sees them held by full names and by names relative to its folder, a
// hidden folder inside another hidden one is masked with it, a kept folder
// that did not exist is made to be held and taken away again, and none of
// the run's mounts is left in the zygote's namespace for the next run.
func TestEscapeZygoteHoldsKeptPlacesByMounts(t *testing.T) {
	requireLandlock(t)
	if !sandbox.ZygoteMounts() {
		t.Skip("no zygote can hold mounts here (no user namespace for this user): the per-command helper does, or Landlock alone")
	}
	// A lock of its own: another package's runs, under the same home,
	// would keep the made folder (see keeplock_linux.go).
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
	z, err := sandbox.MountsZygoteFor(r.helper, zygoteEnviron)
	if err != nil {
		t.Fatal(err)
	}
	home, _ := layHome(t)
	os.MkdirAll(filepath.Join(home, ".ssh/sub"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh/sub/k"), []byte("KEY\n"), 0o600)
	sc := scope.Build(scope.Input{Dir: home, Home: home, Programs: [][]string{{"make"}}, Own: []string{filepath.Join(home, ".config/hark")}})
	newKept := filepath.Join(home, "proj/.git/newkept") + "/"
	sc.Keep = append(sc.Keep, newKept)
	hide := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".ssh/sub"), filepath.Join(home, ".ssh/id_rsa")}
	const script = `cat .ssh/id_rsa "$HOME/.ssh/id_rsa" .ssh/sub/k 2>/dev/null && echo READ
echo evil >> .bashrc 2>/dev/null && echo WROTE-bashrc
echo evil >> "$PWD/proj/.git/config" 2>/dev/null && echo WROTE-config
touch proj/.git/newkept/x 2>/dev/null && echo WROTE-newkept
echo made > made.txt && echo "done $PPID"`
	res := r.Run(context.Background(), Request{Command: script, WorkingDirectory: home, Verdict: confirmed, Scope: &sc, Hide: hide})
	if want := "done " + strconv.Itoa(z.PID()) + "\n"; !res.Executed || res.Sandbox != SandboxScoped || res.Output != want {
		t.Fatalf("want only the new file made, by a shell the zygote started (%q): %s", want, res.JSON())
	}
	for p, want := range map[string]string{".bashrc": "orig\n", "proj/.git/config": "orig\n", "made.txt": "made\n"} {
		if b, _ := os.ReadFile(filepath.Join(home, p)); string(b) != want {
			t.Errorf("%s holds %q, want %q", p, b, want)
		}
	}
	if _, err := os.Stat(newKept); err == nil {
		t.Error("the kept folder made to be held was left behind")
	}
	mounts, err := os.ReadFile("/proc/" + strconv.Itoa(z.PID()) + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), home) {
		t.Errorf("a run's mount is left in the zygote's namespace:\n%s", mounts)
	}
}

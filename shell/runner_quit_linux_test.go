//go:build linux

package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// quitChildEnv makes the test binary play Hark quitting; see quitChild.
const quitChildEnv = "HARK_TEST_QUIT_CHILD"

// quitChild plays Hark on macOS at an AppKit quit: it runs a command the
// way macOS does (no zygote, no helper) that ignores SIGTERM and leaves a
// child in its group, cancels it as a quit does, waits less than killGrace,
// calls KillRunning as the quit path does, and exits at once, as AppKit's
// exit() does after the app's last closer: the runner's own SIGKILL at
// killGrace never comes.
func quitChild(dir string) {
	r := NewRunner(RunnerOptions{Home: dir, Timeout: time.Minute})
	r.direct = true
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx, Request{Verdict: confirmed, Command: fmt.Sprintf(`trap '' TERM
(trap '' TERM; while :; do sleep 0.1; done) &
echo $! >> %[1]s
echo $$ >> %[1]s
touch %[2]s
wait`, filepath.Join(dir, "pids"), filepath.Join(dir, "ready"))})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			os.Exit(3)
		}
	}
	cancel()
	time.Sleep(killGrace / 10)
	if KillRunning() != 1 {
		os.Exit(4)
	}
	os.Exit(0)
}

// TestKillRunningAtQuit: a command that ignores SIGTERM must not outlive
// a quit that cannot wait for killGrace, on the path macOS runs every
// command by (macOS has no parent-death signal; here the shell gets one,
// so the survivor is the loop it started, as on a Mac both would be).
func TestKillRunningAtQuit(t *testing.T) {
	if dir := os.Getenv(quitChildEnv); dir != "" {
		quitChild(dir)
		return
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hark := exec.Command(exe, "-test.run=^TestKillRunningAtQuit$")
	hark.Env = append(os.Environ(), quitChildEnv+"="+dir)
	out, err := hark.CombinedOutput()
	if err != nil {
		t.Fatalf("the quitting Hark: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	pids := pidsFrom(t, string(b))
	if len(pids) != 2 {
		t.Fatalf("want 2 PIDs, got %v", pids)
	}
	waitGone(t, pids)
}

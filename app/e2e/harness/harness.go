// Package harness starts the pieces of a throwaway Linux desktop for tests:
// a virtual X server, a focusable window, a private D-Bus session bus and a
// PulseAudio server with a null sink. Every process is started by PID and
// killed by PID when the test ends, and every wait is bounded.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Need skips the test when one of the programs is missing, naming it. CI
// installs all of them (.ci/run), so under CI=true a missing one fails the
// test instead: a skip there would hide the main path.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed, but CI must run this test: add its package to .ci/run", p)
			}
			t.Skipf("%s is not installed (CI installs it through .ci/run); skipping", p)
		}
	}
}

// Start runs cmd in its own process group and kills the group when the test
// ends. Output goes to a file in the test's temp dir, shown on failure.
func Start(t testing.TB, name string, cmd *exec.Cmd) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stdout == nil {
		cmd.Stdout = f
	}
	if cmd.Stderr == nil {
		cmd.Stderr = f
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		Kill(cmd.Process.Pid, exited)
		f.Close()
		if t.Failed() {
			if b, _ := os.ReadFile(logPath); len(b) > 0 {
				t.Logf("--- %s output ---\n%s", name, tail(b, 4000))
			}
		}
	})
}

// Kill ends the process group of pid: SIGTERM, then SIGKILL after two
// seconds if it has not exited.
func Kill(pid int, exited <-chan struct{}) {
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(2 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
		}
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Xvfb starts a virtual X server on a display it picks itself (-displayfd,
// so parallel suites never collide) and returns the DISPLAY value. extra
// are more of Xvfb's options.
func Xvfb(t testing.TB, extra ...string) string {
	t.Helper()
	Need(t, "Xvfb")
	args := append([]string{"-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "800x600x24"}, extra...)
	n := startReporting(t, "Xvfb", "its display number", args...)
	return ":" + n
}

// startReporting starts a daemon that writes one line on fd 3 once it is
// ready (a display number, a bus address) and returns that line.
func startReporting(t testing.TB, name, what string, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.ExtraFiles = []*os.File{w}
	Start(t, name, cmd)
	w.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
		r.Close()
	}()
	select {
	case v := <-line:
		if v == "" {
			t.Fatalf("%s exited without reporting %s", name, what)
		}
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not report %s within 20s", name, what)
	}
	return ""
}

// FocusedWindow opens an xmessage window on display and gives it the input
// focus, so injected keys that are not grabbed land there instead of the
// root window.
func FocusedWindow(t testing.TB, display string) {
	t.Helper()
	Need(t, "xmessage", "xdotool")
	cmd := exec.Command("xmessage", "-geometry", "+10+10", "Hark test window")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	Start(t, "xmessage", cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := Run(ctx, display, "xdotool", "search", "--sync", "--onlyvisible", "--class", "xmessage")
	if err != nil {
		t.Fatalf("xmessage window never appeared: %v: %s", err, out)
	}
	win := strings.Fields(out)[0]
	if out, err := Run(ctx, display, "xdotool", "windowfocus", "--sync", win); err != nil {
		t.Fatalf("focusing the xmessage window: %v: %s", err, out)
	}
}

// Run runs a short command against display and returns its combined output.
func Run(ctx context.Context, display string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	return buf.String(), err
}

// Xdotool runs xdotool with args on display, failing the test on error.
func Xdotool(t testing.TB, display string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := Run(ctx, display, "xdotool", args...); err != nil {
		t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// SessionBus starts a private dbus-daemon and returns its address.
func SessionBus(t testing.TB) string {
	t.Helper()
	Need(t, "dbus-daemon")
	return startReporting(t, "dbus-daemon", "its address", "--session", "--nofork", "--nopidfile", "--print-address=3")
}

// Eventually polls cond every 20 ms until it returns nil or the deadline
// passes, then fails with the last error.
func Eventually(t testing.TB, within time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	var err error
	for {
		if err = cond(); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v: %v", what, within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Errorf is fmt.Errorf, re-exported so conditions read naturally.
var Errorf = fmt.Errorf

//go:build e2e && linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// openPTY returns a new pseudo-terminal's master and its slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here (%v); CI has /dev/ptmx", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal("unlocking the pty:", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal("naming the pty:", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal("opening the pty's slave:", err)
	}
	return master, slave
}

// TestModelsPullCtrlC runs `hark models pull` on a terminal, as a person
// does, and presses Ctrl-C mid-download: the terminal's line discipline
// sends SIGINT to the command's process group. The bar's line must be
// ended, the exit code be the shell's interrupted one, Ollama must see
// the client go (it then keeps the finished parts), nothing be installed,
// and the message say that running it again resumes.
func TestModelsPullCtrlC(t *testing.T) {
	const name = "qwen3:8b"
	srv := ollamatest.New(t, ollamatest.Qwen3("other:1b"))
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(name), Layers: []int64{50 << 20}, Step: 1 << 20, Pace: 5 * time.Millisecond, HoldAt: 20 << 20})
	home := t.TempDir()
	master, slave := openPTY(t)
	cmd := exec.Command(harkBin, "models", "pull", name)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HARK_HOME=" + home,
		"XDG_RUNTIME_DIR=" + filepath.Join(home), "OLLAMA_HOST=" + srv.URL, "LANG=C.UTF-8", "TERM=xterm"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// Its own session with the pty as controlling terminal, so the pty's
	// ^C reaches it as it reaches a command run from a shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { harness.Kill(cmd.Process.Pid, exited) })

	var mu sync.Mutex
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once the command and its terminal are gone
			}
		}
	}()
	shown := func() string {
		mu.Lock()
		defer mu.Unlock()
		return screen.String()
	}

	harness.Eventually(t, 30*time.Second, "the pull held mid-way with its bar drawn", func() error {
		if !srv.Held(name) || !strings.Contains(shown(), "40.0%") {
			return fmt.Errorf("held %v, terminal %q", srv.Held(name), shown())
		}
		return nil
	})
	if _, err := master.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("hark models pull still running 30s after Ctrl-C; terminal:\n%q", shown())
	}
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit: %v, want code 130 (interrupted)", waitErr)
	}
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output never ended")
	}
	out := shown()
	t.Logf("terminal:\n%q", out)
	msg := strings.Index(out, "hark models: interrupted;")
	if msg < 0 {
		t.Fatalf("no interrupted message on the terminal:\n%q", out)
	}
	if !strings.HasSuffix(out[:msg], "\n") {
		t.Errorf("the message shares the bar's line; the bar was not ended:\n%q", out)
	}
	if !strings.Contains(out[msg:], "run `hark models pull "+name+"` again to resume") {
		t.Errorf("the message does not say how to resume:\n%q", out[msg:])
	}
	if strings.Contains(out, "pulled into Ollama") {
		t.Error("an interrupted pull says it pulled the model")
	}
	harness.Eventually(t, 10*time.Second, "the server seeing the client leave", func() error {
		if srv.PullsAborted() == 0 {
			return fmt.Errorf("no pull aborted")
		}
		return nil
	})
	if srv.Installed(name) {
		t.Error("an interrupted pull installed the model")
	}
}

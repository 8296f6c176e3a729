//go:build unix

package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hark-sh/hark/shell/internal/sandbox"
)

// Service is a long-lived program that a Runner started inside the
// read-only sandbox and talks to over a socket: the program's stdout is
// the other end of Conn, and its stdin is /dev/null. It is confined
// exactly as a safe command is (on Linux by the per-command sandbox
// helper: Landlock read-only, no network, seccomp, no capabilities, its
// own session and pids cgroup), and the helper stays its parent, so that
// everything it starts is stopped with it. The preview server is one: it
// answers many previews for the price of one process start.
type Service struct {
	conn net.Conn
	pid  int // the helper's (or sandbox-exec's) process group
	done chan struct{}
	once sync.Once
}

// StartService starts argv as a Service. It fails where a sandboxed Run
// would not run: no OS sandbox, or no helper to apply it. The service's
// writable temporary folder is removed as soon as the confinement is in
// place, where the sandbox names it by inode (Linux), so a service can
// write nothing at all; elsewhere it goes when the service ends.
func (r *Runner) StartService(argv []string) (*Service, error) {
	if len(argv) == 0 {
		return nil, errors.New("no program to start")
	}
	if ok, detail := r.probe(); !ok {
		return nil, errors.New("this system has no sandbox (" + detail + ")")
	}
	if !r.canSandbox() {
		return nil, errors.New("Hark could not start its command helper")
	}
	tmp, err := os.MkdirTemp(realTempBase(os.TempDir()), "hark-service-")
	if err != nil {
		return nil, err
	}
	removeTmp := func() { os.RemoveAll(tmp) }
	wrapped, viaHelper := sandbox.Wrap(r.helperPath(), argv, true, tmp, max(r.memoryLimit, 0), max(r.diskQuota, 0), nil, nil)
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		removeTmp()
		return nil, err
	}
	syscall.CloseOnExec(pair[0])
	syscall.CloseOnExec(pair[1])
	ours, theirs := os.NewFile(uintptr(pair[0]), "service"), os.NewFile(uintptr(pair[1]), "service")
	defer theirs.Close()
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		removeTmp()
		return nil, err
	}

	cmd := exec.Command(wrapped[0], wrapped[1:]...)
	cmd.Dir = "/"                            // the service chooses its folders per request
	cmd.Env = sandboxEnv(r.sandboxBase, tmp) // what any command in the sandbox sees
	cmd.Stdout = theirs                      // an *os.File: the process gets the socket itself
	setProcessGroup(cmd)
	var status, statusW *os.File
	if viaHelper {
		if status, statusW, err = os.Pipe(); err != nil {
			conn.Close()
			removeTmp()
			return nil, err
		}
		defer status.Close()
		cmd.ExtraFiles = []*os.File{statusW}
		cmd.Env = append(slices.Clip(cmd.Env), helperEnv+"=1")
	}
	err = cmd.Start()
	if statusW != nil {
		statusW.Close()
	}
	if err != nil {
		conn.Close()
		removeTmp()
		return nil, fmt.Errorf("could not start %s: %v", wrapped[0], err)
	}
	s := &Service{conn: conn, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		signalGroup(s.pid, sigKill) // whatever is left of the group goes with it
		removeTmp()
		close(s.done)
	}()
	if status != nil {
		msg, _ := io.ReadAll(io.LimitReader(status, 4096))
		if msg = bytes.TrimSpace(msg); !bytes.Equal(msg, []byte(sandbox.HelperOK)) {
			s.Close()
			why := strings.TrimPrefix(string(msg), sandbox.HelperErrPrefix)
			if why == "" {
				why = "the sandbox helper stopped before starting the service"
			}
			return nil, errors.New(why)
		}
		// Confined: the Landlock ruleset holds the folder by inode, so
		// once it is gone nothing can be created in it.
		removeTmp()
	}
	return s, nil
}

// Conn is Hark's end of the service's socket.
func (s *Service) Conn() net.Conn { return s.conn }

// Done is closed once the service and everything it started are gone.
func (s *Service) Done() <-chan struct{} { return s.done }

// Close ends the service: its socket closes (a service reading it sees
// EOF and should exit), its group gets SIGTERM, and SIGKILL after the
// usual grace if it is still there.
func (s *Service) Close() {
	s.once.Do(func() {
		s.conn.Close()
		signalGroup(s.pid, sigTerm)
		go func() {
			t := time.NewTimer(killGrace + time.Second)
			defer t.Stop()
			select {
			case <-s.done:
			case <-t.C:
				signalGroup(s.pid, sigKill)
			}
		}()
	})
}

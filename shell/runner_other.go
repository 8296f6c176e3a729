//go:build !unix

package shell

import (
	"os"
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// Hark targets macOS and Linux; elsewhere a command gets no process group
// and only its own process is stopped on timeout.
func setProcessGroup(*exec.Cmd) {}

func signalGroup(pid int, _ syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func exitCode(ps *os.ProcessState) int { return ps.ExitCode() }

// ownedByMe is true where Hark cannot tell owners apart.
func ownedByMe(os.FileInfo) bool { return true }

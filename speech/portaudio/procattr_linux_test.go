//go:build cgo

package portaudio

import "syscall"

// serverProcAttr puts a helper process in its own group and has the kernel
// kill it if this test process dies without cleaning up (a crash, a timeout
// kill), so no server outlives the tests.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

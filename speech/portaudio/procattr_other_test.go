//go:build cgo && !linux

package portaudio

import "syscall"

// serverProcAttr puts a helper process in its own group.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

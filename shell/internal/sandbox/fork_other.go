//go:build linux && !amd64

package sandbox

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// forkChild is a plain fork: the child gets its own copy of memory, so it
// can run childConfine on the stack it inherits. Slower than the vfork of
// x86-64 by the page tables it copies, but it needs no assembly.
//
//go:norace
//go:nosplit
//go:nocheckptr
func forkChild(c *childSpec) (uintptr, unix.Errno) {
	r1, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 || r1 != 0 {
		return r1, unix.Errno(e)
	}
	childConfine(c)
	return 0, 0 // not reached: childConfine exits
}

//go:build linux && amd64

package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// childStackSize is the child's stack between vfork and exec: childConfine
// and the raw system calls it makes need well under a kilobyte.
const childStackSize = 8 << 10

// forkChild starts childConfine(c) in a child that shares this process's
// memory until it executes the shell (CLONE_VM|CLONE_VFORK: this thread
// waits meanwhile), on a stack of its own, so that nothing the child does
// can overwrite a frame this thread returns through. The stack is a local
// array, inside this goroutine's stack: the goroutine cannot move while
// this thread is stopped in the system call, and a stack check in the
// child, should one run, sees a pointer within the goroutine's bounds.
//
//go:norace
//go:nocheckptr
func forkChild(c *childSpec) (uintptr, unix.Errno) {
	var stack [childStackSize]byte
	// The top, 16-byte aligned as the x86-64 ABI wants at a call.
	top := (uintptr(unsafe.Pointer(&stack[len(stack)-1])) - 64) &^ 15
	pid, errno := rawVfork(unsafe.Pointer(c), top)
	return pid, unix.Errno(errno)
}

// rawVfork is in fork_amd64.s.
//
//go:noescape
func rawVfork(c unsafe.Pointer, stack uintptr) (pid, errno uintptr)

//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// deniedArchSyscalls are the x86-64 system calls with no arm64 counterpart
// that sandboxSeccomp must refuse: the path-based metadata calls (arm64 has
// only the *at forms) and direct port I/O.
var deniedArchSyscalls = []uintptr{
	unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN, unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT,
	unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB,
}

// metaArchSyscalls are those of deniedArchSyscalls that change metadata,
// which an approved run may (see metaSyscalls).
var metaArchSyscalls = []uintptr{
	unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN, unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT,
}

//go:build linux

package shell

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nativeAuditArch is the seccomp architecture of this build, or 0 where Hark
// has no filter for it (then Landlock alone confines).
func nativeAuditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// denySockets installs a seccomp filter on the calling thread, inherited by
// every process it forks, that makes socket(2) and io_uring_setup(2) fail
// with EACCES. Landlock's network rules cover TCP only (UDP from ABI 10,
// pathname Unix sockets from ABI 9) and never raw sockets, Multipath TCP or
// netlink; a read-only command needs no socket at all, so refusing to create
// one closes every way out through the network or a local daemon (the D-Bus
// session bus could start programs outside the sandbox) on any kernel.
// socketpair(2) stays allowed: it connects nothing outside the process tree.
// Foreign system-call ABIs (32-bit x86, x32) are refused as a whole, since
// they reach socket through other numbers.
func denySockets() error {
	arch := nativeAuditArch()
	if arch == 0 {
		return nil
	}
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
		x32Bit  = 0x40000000
	)
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	prog := []unix.SockFilter{
		{Code: ldAbs, K: offArch},
		{Code: jeq, K: arch, Jt: 0, Jf: 5}, // foreign ABI → deny
		{Code: ldAbs, K: offNr},
		{Code: jge, K: x32Bit, Jt: 3, Jf: 0}, // x32 → deny
		{Code: jeq, K: uint32(unix.SYS_SOCKET), Jt: 2, Jf: 0},
		{Code: jeq, K: uint32(unix.SYS_IO_URING_SETUP), Jt: 1, Jf: 0},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: deny},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// Without SECCOMP_FILTER_FLAG_TSYNC this applies to the calling thread
	// only, like the Landlock domain; no_new_privs is already set on it.
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	runtime.KeepAlive(prog)
	return nil
}

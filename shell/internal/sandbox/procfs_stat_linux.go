//go:build linux && (amd64 || arm64)

package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat stats the file the NUL-terminated name in the open directory dir
// leads to, without the string unix.Fstatat would allocate for the name.
func fstatat(dir int, name *byte, st *unix.Stat_t) error {
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dir), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

//go:build linux && !(amd64 || arm64)

package sandbox

import "golang.org/x/sys/unix"

// fstatat stats the file the NUL-terminated name in the open directory dir
// leads to (unix.Fstatat, which copies the name, where the system call's
// number and layout differ).
func fstatat(dir int, name *byte, st *unix.Stat_t) error {
	return unix.Fstatat(dir, unix.BytePtrToString(name), st, 0)
}

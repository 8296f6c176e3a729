//go:build linux || darwin

package shell

import "syscall"

// freeBytes reports the bytes available to unprivileged users on the file
// system that holds dir.
func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

//go:build !(linux && amd64)

package abitest

// Int80 is not available here: only x86-64 Linux has a 32-bit route.
func Int80(nr, a1, a2, a3 uintptr) int64 { return -38 } // ENOSYS

// Supported reports whether this build can make 32-bit calls: never here.
func Supported() bool { return false }

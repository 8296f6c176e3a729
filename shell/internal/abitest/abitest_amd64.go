//go:build linux && amd64

package abitest

// Int80 makes the 32-bit system call nr with three arguments and returns
// the kernel's raw result (a negative errno on failure).
func Int80(nr, a1, a2, a3 uintptr) int64

// Supported reports whether this build can make 32-bit calls.
const Supported = true

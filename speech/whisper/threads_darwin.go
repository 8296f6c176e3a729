//go:build darwin

package whisper

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// DefaultThreads is the number of performance cores (at most MaxThreads):
// on Apple silicon the efficiency cores would make whisper.cpp's threads wait
// for the slowest one. Intel Macs have no perflevel0, so every core counts.
func DefaultThreads() int {
	n, err := unix.SysctlUint32("hw.perflevel0.physicalcpu")
	if err != nil || n == 0 {
		return clampThreads(runtime.NumCPU())
	}
	return clampThreads(int(n))
}

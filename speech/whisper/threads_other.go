//go:build !darwin

package whisper

import "runtime"

// DefaultThreads is the number of CPUs Go may use, at most MaxThreads. Linux
// does not say which cores are the fast ones in a portable way.
func DefaultThreads() int {
	return clampThreads(runtime.NumCPU())
}

//go:build !darwin && !linux

package whisper

import "runtime"

// DefaultThreads is the number of CPUs Go may use, at most MaxThreads: this
// system does not say which cores are the fast ones.
func DefaultThreads() int {
	return clampThreads(runtime.NumCPU())
}

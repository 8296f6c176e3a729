//go:build !darwin

package sandbox

// WatchMemory has nothing to do here: on Linux the zygote or the helper
// beside the command keeps the run's memory cap (memory_linux.go), and
// other systems have no sandbox to keep one for.
func WatchMemory(int, int64) (end func() bool) {
	return func() bool { return false }
}

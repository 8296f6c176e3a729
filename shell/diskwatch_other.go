//go:build !linux && !darwin

package shell

// freeBytes is unknown here, so watchDisk does not watch: Hark's sandbox
// exists only on Linux and macOS.
func freeBytes(string) (int64, bool) { return 0, false }

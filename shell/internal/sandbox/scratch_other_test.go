//go:build !linux

package sandbox

// scratchCommand is `EXE __scratch BYTES`; only Linux makes scratch file
// systems, so elsewhere the command exists (main_test.go dispatches on it)
// but nothing starts it.
const scratchCommand = "__scratch"

// scratchMain has no scratch file system to make here.
func scratchMain(string) int { return 2 }

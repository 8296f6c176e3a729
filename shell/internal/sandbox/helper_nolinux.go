//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// HelperMain is the entry point of `hark __sandbox`. Only Linux uses the
// helper; elsewhere the OS sandbox wraps the shell directly.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "hark %s: the sandbox helper is only used on Linux, not %s\n", HelperCommand, runtime.GOOS)
	return 2
}

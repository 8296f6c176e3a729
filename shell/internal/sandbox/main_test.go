package sandbox

import (
	"os"
	"syscall"
	"testing"
)

// TestMain lets the test binary serve as the sandbox helper, as hark does:
// the zygote tests start it as `EXE __sandbox -server`. The helper leaves
// through syscall.Exit because os.Exit in a -race build sleeps a second on a
// zero status.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		syscall.Exit(HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

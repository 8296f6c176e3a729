package shell

import (
	"os"
	"syscall"
	"testing"
)

// TestMain lets the test binary serve as the sandbox helper: the Runner
// re-executes os.Executable() as `EXE __sandbox …`, as it does with hark.
// The helper leaves through syscall.Exit because os.Exit in a -race build
// sleeps a second on a zero status, which would slow every run.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		syscall.Exit(SandboxHelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

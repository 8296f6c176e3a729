package preview

import (
	"os"
	"syscall"
	"testing"

	"github.com/hark-sh/hark/shell"
)

// TestMain lets the test binary serve as Hark for the Previewer: the
// runner re-executes it as `EXE __sandbox …` (the sandbox helper and
// zygote) and the preview runs `EXE __preview …` inside the sandbox.
// Helpers leave through syscall.Exit, as in package shell's tests, so a
// -race build does not sleep on exit.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case shell.HelperCommand:
			syscall.Exit(shell.SandboxHelperMain(os.Args[2:]))
		case HelperCommand:
			syscall.Exit(HelperMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

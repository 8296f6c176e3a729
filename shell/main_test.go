package shell

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestMain lets the test binary serve as the sandbox helper: the Runner
// re-executes os.Executable() as `EXE __sandbox …`, as it does with hark.
// The helper leaves through syscall.Exit because os.Exit in a -race build
// sleeps a second on a zero status, which would slow every run.
//
// `EXE __hark_exit_test DIR` plays Hark for the test that kills Hark while
// a command runs (see harkExitMain).
//
// It also serves `EXE __dial NETWORK ADDRESS`, a client that sandboxed test
// commands run to try a connection that no shell tool makes portably (an
// abstract Unix socket, for one).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperCommand:
			HardenProcess(3) // as hark's main does before any command
			syscall.Exit(SandboxHelperMain(os.Args[2:]))
		case "__escape":
			syscall.Exit(escapeMain(os.Args[2:]))
		case harkExitTest:
			syscall.Exit(harkExitMain(os.Args[2:]))
		case "__dial":
			c, err := net.Dial(os.Args[2], os.Args[3])
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				syscall.Exit(1)
			}
			c.Close()
			fmt.Println("connected")
			syscall.Exit(0)
		}
	}
	os.Exit(m.Run())
}

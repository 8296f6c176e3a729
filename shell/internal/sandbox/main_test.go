package sandbox

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the sandbox helper, as hark does:
// the zygote tests start it as `EXE __sandbox -server`. The helper leaves
// through syscall.Exit because os.Exit in a -race build sleeps a second on a
// zero status. As `EXE __alloc MIB SECONDS` it holds MIB of touched memory
// for SECONDS, a run's process of known size.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		HardenProcess(3) // as hark's main does before any command
		syscall.Exit(HelperMain(os.Args[2:]))
	}
	if len(os.Args) == 4 && os.Args[1] == allocCommand {
		syscall.Exit(allocMain(os.Args[2], os.Args[3]))
	}
	if len(os.Args) == 4 && os.Args[1] == memFileCommand {
		syscall.Exit(memFileMain(os.Args[2], os.Args[3]))
	}
	if len(os.Args) == 3 && os.Args[1] == scratchCommand {
		syscall.Exit(scratchMain(os.Args[2]))
	}
	os.Exit(m.Run())
}

const allocCommand = "__alloc"

// memFileCommand is `EXE __memfile KIND MIB` (see memFileMain).
const memFileCommand = "__memfile"

func allocMain(mib, secs string) int {
	m, err1 := strconv.Atoi(mib)
	s, err2 := strconv.Atoi(secs)
	if err1 != nil || err2 != nil {
		return 2
	}
	b := make([]byte, m<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	time.Sleep(time.Duration(s) * time.Second)
	runtime.KeepAlive(b)
	return 0
}

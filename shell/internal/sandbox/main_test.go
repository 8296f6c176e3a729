package sandbox

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain lets the test binary serve as the sandbox helper, as hark does:
// the zygote tests start it as `EXE __sandbox -server`. The helper leaves
// through syscall.Exit because os.Exit in a -race build sleeps a second on a
// zero status. As `EXE __alloc MIB SECONDS` it holds MIB of touched memory
// for SECONDS, a run's process of known size.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		syscall.Exit(HelperMain(os.Args[2:]))
	}
	if len(os.Args) == 4 && os.Args[1] == allocCommand {
		syscall.Exit(allocMain(os.Args[2], os.Args[3]))
	}
	if len(os.Args) == 4 && os.Args[1] == memFileCommand {
		syscall.Exit(memFileMain(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

const allocCommand = "__alloc"

// memFileCommand is `EXE __memfile KIND MIB`: it makes a memory file of
// KIND ("memfd", "shm": unlinked in /dev/shm, "sparse": a memfd of MIB
// with nothing written), writes MIB into it through write(), prints
// "ready" and holds it open until its standard input closes.
const memFileCommand = "__memfile"

func memFileMain(kind, mib string) int {
	n, err := strconv.Atoi(mib)
	if err != nil {
		return 2
	}
	var fd int
	switch kind {
	case "memfd", "sparse":
		fd, err = unix.MemfdCreate("hark-test", 0)
	case "shm":
		name := "/dev/shm/hark-test-" + strconv.Itoa(os.Getpid())
		fd, err = unix.Open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
		unix.Unlink(name)
	}
	if err != nil {
		fmt.Println("unavailable:", err)
		return 0
	}
	if kind == "sparse" {
		err = unix.Ftruncate(fd, int64(n)<<20)
	} else {
		chunk := make([]byte, 1<<20)
		for range n {
			if _, err = unix.Write(fd, chunk); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Println("write:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

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

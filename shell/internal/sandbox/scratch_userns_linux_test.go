//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
	"golang.org/x/sys/unix"
)

// scratchCommand is `EXE __scratch BYTES` (see scratchMain).
const scratchCommand = "__scratch"

// scratchMain is a runner's side of the scratch maker, in a process made
// as Hark makes itself (not dumpable): it asks for a scratch file system of
// BYTES, has eight writers fill it in parallel, each with the whole size,
// and prints what they got, who owns what they wrote, and whether the file
// system shows in this process's mounts.
func scratchMain(size string) int {
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		return 2
	}
	// Can this user make a user namespace at all? Asked the plain way,
	// before this process is made like Hark: a child in a new one, its
	// maps written by this process.
	probe := exec.Command("/bin/sh", "-c", "exit 0")
	probe.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	userns := probe.Run() == nil
	HardenProcess(3)
	exe, err := os.Executable()
	if err != nil {
		fmt.Println("no executable:", err)
		return 1
	}
	m, err := startScratchMaker(exe)
	if err != nil {
		fmt.Printf("unavailable (user namespaces %v): %v\n", userns, err)
		return 0
	}
	defer m.cmd.Wait()
	defer m.close()
	root, err := m.make(n)
	if err != nil {
		fmt.Printf("unavailable (user namespaces %v): %v\n", userns, err)
		return 0
	}
	dir, err := unix.Openat(root, scratchFolder, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Println("no folder:", err)
		return 1
	}
	var total, enospc, other int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	chunk := make([]byte, 64<<10)
	for i := range 8 {
		wg.Go(func() {
			fd, err := unix.Openat(dir, "f"+strconv.Itoa(i), unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
			if err != nil {
				mu.Lock()
				other++
				mu.Unlock()
				return
			}
			defer unix.Close(fd)
			for done := int64(0); done < n; {
				k, err := unix.Write(fd, chunk)
				mu.Lock()
				total += int64(max(k, 0))
				if errors.Is(err, unix.ENOSPC) {
					enospc++
				} else if err != nil {
					other++
				}
				mu.Unlock()
				if err != nil {
					return
				}
				done += int64(k)
			}
		})
	}
	wg.Wait()
	var st unix.Stat_t
	if err := unix.Fstatat(dir, "f0", &st, 0); err != nil {
		fmt.Println("no file:", err)
		return 1
	}
	// Mounted somewhere this process sees: its device is in mountinfo
	// (field 3, MAJOR:MINOR).
	var rst unix.Stat_t
	if err := unix.Fstat(root, &rst); err != nil {
		fmt.Println("no root:", err)
		return 1
	}
	dev := " " + strconv.Itoa(int(unix.Major(rst.Dev))) + ":" + strconv.Itoa(int(unix.Minor(rst.Dev))) + " "
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		fmt.Println("no mountinfo:", err)
		return 1
	}
	fmt.Printf("wrote %d of %d; ENOSPC %d; other errors %d; owner %d, me %d; visible %v\n",
		total, n, enospc, other, st.Uid, os.Geteuid(), bytes.Contains(mounts, []byte(dev)))
	return 0
}

// An unprivileged run's scratch file system holds its size at the call:
// eight writers, each asking for all of it, get no more than it between
// them, and the rest fail with ENOSPC; what they write belongs to the user
// (not to an ID of the maker's namespace); and it is mounted nowhere. The
// maker is started by a process that, like Hark, is not dumpable, as root
// and as nobody.
func TestScratchMakerHoldsItsSize(t *testing.T) {
	t.Parallel()
	users := []string{"this user"}
	if os.Geteuid() == 0 {
		users = append(users, "nobody")
	}
	for _, who := range users {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			exe, _ := os.Executable()
			const size = 8 << 20
			cmd := exec.Command(exe, scratchCommand, strconv.Itoa(size))
			if who == "nobody" {
				bin, work := exectest.NobodyCopy(t, "sandbox.test")
				cmd = exec.Command(bin, scratchCommand, strconv.Itoa(size))
				cmd.Dir = work
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := string(out)
			if strings.HasPrefix(got, "unavailable (user namespaces true)") {
				t.Fatalf("this user can make user namespaces, but the scratch maker could not make a file system: %s", got)
			}
			if strings.HasPrefix(got, "unavailable") {
				// The kernel refuses this user a user namespace (a sysctl,
				// a security module): runs fall back to the disk watch,
				// which TestEscapeDiskQuotaHoldsAtAllocation covers.
				t.Skipf("no user namespace to be had here (see docs/safety.md): %s", got)
			}
			var wrote, of, enospc, other int64
			var owner, me int
			var visible bool
			if _, err := fmt.Sscanf(got, "wrote %d of %d; ENOSPC %d; other errors %d; owner %d, me %d; visible %v", &wrote, &of, &enospc, &other, &owner, &me, &visible); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			if wrote > size || enospc == 0 || other != 0 {
				t.Errorf("eight writers on a scratch file system of %d bytes: %s", size, got)
			}
			if wrote < size*3/4 {
				t.Errorf("the writers got far less than the size: %s", got)
			}
			if owner != me {
				t.Errorf("a file written there belongs to %d, not to the user %d: %s", owner, me, got)
			}
			if visible {
				t.Errorf("the scratch file system is mounted where the runner can see it: %s", got)
			}
			t.Logf("%s: %s", who, strings.TrimSpace(got))
		})
	}
}

// The read rules are kept while / and /dev are unchanged, and what a
// caller appends to them (its temporary folder's rule) never reaches the
// next caller's.
func TestReadRulesCacheIsNotShared(t *testing.T) {
	t.Parallel()
	fresh, err := readRules()
	if err != nil {
		t.Skipf("cannot list /: %v", err)
	}
	a, err := readRulesCached()
	if err != nil {
		t.Fatal(err)
	}
	a = append(a, a[0]) // what sandboxRules does with its own rules
	b, err := readRulesCached()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != len(fresh) || len(a) != len(fresh)+1 {
		t.Errorf("cached rules: %d then %d, read afresh %d", len(a)-1, len(b), len(fresh))
	}
	if &a[0] == &b[0] && cap(b) > len(b) {
		t.Error("the cached rules have room to append into")
	}
}

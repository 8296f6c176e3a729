//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	defer m.wait()
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
	fresh, err := readRules(nil)
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

// A sandboxed command still runs where the open-file limit is too low for
// descriptor 99 (a run then keeps its folder on the disk), or just high
// enough, with a disk quota and without; none fails to set up its
// descriptors.
func TestSandboxUnderALowFileLimit(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	exe, _ := os.Executable()
	for _, limit := range []int{16, 64, 100, 101, scratchFD + 9, 1024} {
		for _, disk := range []string{"", "-disk 1000000"} {
			dir := t.TempDir()
			script := fmt.Sprintf(`ulimit -n %d && exec '%s' %s -ro -tmp '%s' %s -- /bin/sh -c 'echo "ok $TMPDIR" && echo x > "$TMPDIR/f"'`, limit, exe, HelperCommand, dir, disk)
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + dir}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "ok ") {
				t.Errorf("open-file limit %d, %q: %v: %s", limit, disk, err, out)
				continue
			}
			scratch := strings.Contains(string(out), ScratchDir)
			if scratch && limit <= scratchFD+8 {
				t.Errorf("open-file limit %d: the run got descriptor %d anyway: %s", limit, scratchFD, out)
			}
		}
	}
}

// A scratch maker that stops answering (stopped by a signal, on a kernel
// where a command could send one) holds up no run for longer than
// makerPatience: the run goes without, the maker is killed, and the next
// run after makerRetry gets a new one. Not parallel: it shortens both.
func TestScratchMakerThatStopsAnsweringIsReplaced(t *testing.T) {
	exe, _ := os.Executable()
	probe, err := startScratchMaker(exe)
	if err == nil {
		var fd int
		if fd, err = probe.make(1 << 20); err == nil {
			unix.Close(fd)
		}
		probe.close()
		probe.wait()
	}
	if err != nil {
		t.Skipf("no user namespace to be had here: %v", err)
	}
	patience, retry := makerPatience, makerRetry
	makerPatience, makerRetry = 300, 0
	defer func() { makerPatience, makerRetry = patience, retry }()

	z := &Zygote{helper: exe}
	defer func() {
		z.makerMu.Lock()
		z.closed = true
		if z.maker != nil {
			z.maker.close()
		}
		z.makerMu.Unlock()
	}()
	spec := Spec{ReadOnly: true, DiskLimit: 1 << 20}
	first := z.scratchMaker()
	if first == nil {
		t.Fatal("no scratch maker")
	}
	first.ahead = false // no spare: the next run must ask the stopped maker
	if err := first.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if fd, err := first.make(spec.DiskLimit); err == nil || fd >= 0 {
		t.Fatalf("a stopped maker answered: %d, %v", fd, err)
	}
	if err := first.wait(); err == nil {
		t.Error("the maker that did not answer was not killed")
	}
	second := z.scratchMaker()
	if second == nil || second == first {
		t.Fatal("the maker was not replaced")
	}
	fd, err := second.make(spec.DiskLimit)
	if err != nil {
		t.Fatalf("the new maker made no file system: %v", err)
	}
	unix.Close(fd)
}

// The zygote grants writing only to what is a scratch file system: a run
// request that hands it an ordinary folder as one (a project's, say) is
// refused, and nothing runs.
func TestZygoteRefusesAFolderPassedAsScratch(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	z := testZygote(t)
	project := t.TempDir()
	// The folder the run's $TMPDIR would be, shipped by the project.
	if err := os.Mkdir(project+"/"+scratchFolder, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := unix.Open(project, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dir)
	var out, errP [2]int
	if err := unix.Pipe2(out[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := unix.Pipe2(errP[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	reply, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The output's read end is read through an *os.File, which owns it
	// (and closes it once, here): closing its number as well would close
	// whatever another test had opened under it by then.
	outF := os.NewFile(uintptr(out[0]), "out")
	defer outF.Close()
	defer closeAll([]int{errP[0], reply[0]})
	spec := Spec{Argv: []string{"/bin/sh", "-c", `echo ran > "$TMPDIR/f"`}, Dir: project, Env: testEnv(), ReadOnly: true, TmpDir: t.TempDir(), DiskLimit: 1 << 20}
	req := appendRunRequest(nil, 1, spec, true)
	if _, _, err := z.conn.WriteMsgUnix(req, unix.UnixRights(out[1], errP[1], reply[1], dir), nil); err != nil {
		t.Fatal(err)
	}
	closeAll([]int{out[1], errP[1], reply[1]})
	buf := make([]byte, 4096)
	n, err := unix.Read(reply[0], buf)
	if err != nil || !bytes.Contains(buf[:n], []byte("not run")) {
		t.Errorf("the zygote answered %q, %v", buf[:max(n, 0)], err)
	}
	// A refused run never starts; give one that did start the time
	// to write before looking, by waiting for its output to close.
	io.Copy(io.Discard, outF)
	if _, err := os.Stat(project + "/" + scratchFolder + "/f"); err == nil {
		t.Error("the command ran and wrote into the project's folder")
	}
}

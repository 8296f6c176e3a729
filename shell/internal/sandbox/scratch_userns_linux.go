//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Unprivileged, a run can still have a scratch file system of its own,
// where the kernel allows user namespaces: a small process, the scratch
// maker (`hark __sandbox -scratch`), lives in a user namespace and a mount
// namespace of its own, in which it holds CAP_SYS_ADMIN. For each run it
// makes a tmpfs of exactly the disk quota with fsopen and fsmount, mounted
// nowhere, and sends back a descriptor of its root. The command runs in
// the user's own namespaces as always (files keep their real owners) and
// reaches the file system only through that descriptor, which it gets as
// scratchFD: $TMPDIR is ScratchDir, a folder in it. Every write past the
// quota then fails at once with ENOSPC, as it does as root.
//
// What that costs: the folder has no path outside the run, so getcwd(2)
// inside it fails ("No such file or directory"), realpath of $TMPDIR leads
// nowhere, and a child started with every descriptor closed (Python's
// subprocess does that by default) has no temporary folder. The quota
// holding is worth more to a command Hark runs unasked.
//
// The maker runs no command and reads nothing but the size it is asked
// for; only the process that started it holds its socket.

const (
	// ScratchArg, after HelperCommand, selects the scratch maker.
	ScratchArg = "-scratch"
	// scratchFD is the descriptor a run's scratch file system has in every
	// process of the run: high enough that scripts' own numbers (3–9, 200)
	// and the shells' saved descriptors (10 up) leave it alone.
	scratchFD = 99
	// scratchFolder is the folder in the scratch file system that is the
	// run's $TMPDIR. A folder, not the root: through the descriptor's
	// /proc link, tools that do not follow links given as arguments (du,
	// find) would see a link, not a folder.
	scratchFolder = "hark-scratch"
	makerFD       = 3
)

// makerPatience is how long a run waits for the maker, in milliseconds.
var makerPatience = 5000

// scratchFDFits says whether this process's open-file limit lets a child
// hold scratchFD, with room to move its other descriptors past it.
func scratchFDFits() bool {
	var l unix.Rlimit
	return unix.Getrlimit(unix.RLIMIT_NOFILE, &l) == nil && l.Cur > scratchFD+8
}

// ScratchDir is $TMPDIR in a run with a scratch file system from the maker.
var ScratchDir = "/proc/self/fd/" + strconv.Itoa(scratchFD) + "/" + scratchFolder

// scratchMaker is the runner's side of a scratch maker.
type scratchMaker struct {
	mu   sync.Mutex
	conn int // SOCK_SEQPACKET; -1 once the maker is gone
	cmd  *exec.Cmd
	err  error // why no scratch can be made, once known: runs then go without
	// spare is a file system made ahead, of spareSize bytes, or -1: the
	// next run takes it, so only the first run of a size waits for the
	// maker (about a tenth of a millisecond).
	spare     int
	spareSize int64
	ahead     bool          // make spares: a long-lived maker's owner, which runs many
	exited    chan struct{} // closed once the maker has exited and been waited for
	exitErr   error         // how it exited, once exited is closed
}

// wait waits for the maker to exit (it does once its socket closes, or
// once killed) and says how it did.
func (m *scratchMaker) wait() error {
	<-m.exited
	return m.exitErr
}

// startScratchMaker starts helper as a scratch maker in new user and mount
// namespaces. It fails where the kernel refuses unprivileged user
// namespaces; a maker that starts but cannot mount (a namespace without
// the capability, as some security modules make it) fails its first make.
func startScratchMaker(helper string) (*scratchMaker, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(pair[1]), "scratch maker")
	defer theirs.Close()
	cmd := exec.Command(helper, HelperCommand, ScratchArg, strconv.Itoa(os.Geteuid()), strconv.Itoa(os.Getegid()))
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		// The maker maps its own IDs (see mapSelf): Hark and the helpers
		// are not dumpable, so their /proc files, and a child's before it
		// executes, are root's, and only the child itself can write its
		// maps once it has executed. It keeps, as ambient capabilities
		// across that exec, what writing them and mounting take in its
		// own namespace, and nothing anywhere else.
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID},
		Setpgid:     true, // not in Hark's group: a ^C to Hark's terminal is Hark's to handle
	}
	if err := cmd.Start(); err != nil {
		unix.Close(pair[0])
		return nil, fmt.Errorf("no user namespace for a scratch file system: %w", err)
	}
	m := &scratchMaker{conn: pair[0], cmd: cmd, spare: -1, exited: make(chan struct{})}
	go func() {
		m.exitErr = cmd.Wait()
		close(m.exited)
	}()
	return m, nil
}

// make asks for a scratch file system of size bytes and returns the
// descriptor of its root, close-on-exec.
func (m *scratchMaker) make(size int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return -1, m.err
	}
	if m.spare >= 0 && m.spareSize == size {
		fd := m.spare
		m.spare = -1
		go m.makeSpare(size)
		return fd, nil
	}
	if m.spare >= 0 { // made for another quota
		unix.Close(m.spare)
		m.spare = -1
	}
	fd, err := m.ask(size)
	if err != nil {
		// Whatever failed fails again: runs go on without, at no cost.
		m.err = err
		m.closeLocked()
		return -1, err
	}
	if m.ahead {
		go m.makeSpare(size)
	}
	return fd, nil
}

// makeSpare makes the next run's file system ahead, unless one is there.
func (m *scratchMaker) makeSpare(size int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil || m.spare >= 0 {
		return
	}
	if fd, err := m.ask(size); err == nil {
		m.spare, m.spareSize = fd, size
	}
}

func (m *scratchMaker) ask(size int64) (int, error) {
	var req [8]byte
	binary.LittleEndian.PutUint64(req[:], uint64(size))
	if _, err := unix.Write(m.conn, req[:]); err != nil {
		return -1, fmt.Errorf("the scratch maker is gone: %w", err)
	}
	buf := make([]byte, 512)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		// The maker answers in a tenth of a millisecond; one that does
		// not answer at all (stopped, on a kernel where a command could
		// signal it) must not hold up the run, which then goes without.
		pfd := []unix.PollFd{{Fd: int32(m.conn), Events: unix.POLLIN}}
		if k, err := unix.Poll(pfd, makerPatience); errors.Is(err, unix.EINTR) {
			continue
		} else if err != nil || k == 0 {
			m.cmd.Process.Kill()
			return -1, errors.New("the scratch maker did not answer")
		}
		n, oobn, _, _, err := unix.Recvmsg(m.conn, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, fmt.Errorf("the scratch maker is gone: %w", err)
		}
		if oobn > 0 {
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
				if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
					return fds[0], nil
				}
			}
			return -1, errors.New("the scratch maker sent something else than one descriptor")
		}
		if n == 0 {
			return -1, errors.New("the scratch maker exited")
		}
		return -1, errors.New(string(buf[:n]))
	}
}

// failed says whether the maker can make no more file systems.
func (m *scratchMaker) failed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err != nil
}

func (m *scratchMaker) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = errors.New("closed")
	}
	m.closeLocked()
}

func (m *scratchMaker) closeLocked() {
	if m.spare >= 0 {
		unix.Close(m.spare)
		m.spare = -1
	}
	if m.conn >= 0 {
		unix.Close(m.conn)
		m.conn = -1
	}
}

// serveScratchMaker is the maker: one tmpfs per request until EOF. uid and
// gid are the user's, outside its namespace.
func serveScratchMaker(uid, gid string) int {
	var st unix.Stat_t
	if err := unix.Fstat(makerFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		fmt.Fprintf(os.Stderr, "hark %s %s: fd %d is not the runner's socket (this entry point is internal to hark)\n", HelperCommand, ScratchArg, makerFD)
		return 127
	}
	unix.CloseOnExec(makerFD)
	// hark's main made this process non-dumpable before it got here, and
	// a non-dumpable process's /proc files are root's (of the initial
	// namespace), so it could not write its own maps. It holds nothing
	// yet, and nothing but its parent knows of it; HardenProcess below
	// makes it non-dumpable again once the maps are written.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	err := mapSelf(uid, gid)
	HardenProcess(makerFD + 1)
	if err != nil {
		// Every request then says why.
		for {
			n, err2 := unix.Read(makerFD, make([]byte, 8))
			if errors.Is(err2, unix.EINTR) {
				continue
			}
			if err2 != nil || n == 0 {
				return 0
			}
			unix.Write(makerFD, []byte("no scratch file system: "+err.Error()))
		}
	}
	var req [8]byte
	for {
		n, err := unix.Read(makerFD, req[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return 0
		}
		if n != len(req) {
			unix.Write(makerFD, []byte("malformed request to the scratch maker"))
			continue
		}
		size := int64(binary.LittleEndian.Uint64(req[:]))
		fd, err := newScratchFS(size)
		if err != nil {
			unix.Write(makerFD, []byte("no scratch file system: "+err.Error()))
			continue
		}
		err = unix.Sendmsg(makerFD, []byte{0}, unix.UnixRights(fd), nil, 0)
		unix.Close(fd)
		if err != nil {
			return 0
		}
	}
}

// mapSelf maps root in the maker's user namespace to the user outside,
// writing its own maps: one ID each, its own, which the kernel lets the
// namespace's creator map without privilege outside.
func mapSelf(uid, gid string) error {
	if _, err := strconv.ParseUint(uid, 10, 32); err != nil {
		return fmt.Errorf("user ID %q", uid)
	}
	if _, err := strconv.ParseUint(gid, 10, 32); err != nil {
		return fmt.Errorf("group ID %q", gid)
	}
	for _, w := range [][2]string{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", "0 " + gid + " 1"},
		{"/proc/self/uid_map", "0 " + uid + " 1"},
	} {
		if err := os.WriteFile(w[0], []byte(w[1]), 0); err != nil {
			return err
		}
	}
	return nil
}

// newScratchFS makes a tmpfs of size bytes, mounted nowhere, with the
// folder scratchFolder in it, and returns its root. Owned by the maker's
// root, which is the user outside.
func newScratchFS(size int64) (int, error) {
	if size <= 0 {
		return -1, errors.New("no size")
	}
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen: %w", err)
	}
	defer unix.Close(fs)
	for _, o := range [][2]string{
		{"size", strconv.FormatInt(size, 10)},
		{"nr_inodes", strconv.Itoa(scratchInodes)},
		{"mode", "0700"},
	} {
		if err := unix.FsconfigSetString(fs, o[0], o[1]); err != nil {
			return -1, fmt.Errorf("tmpfs %s: %w", o[0], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	root, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("fsmount: %w", err)
	}
	if err := unix.Mkdirat(root, scratchFolder, 0o700); err != nil {
		unix.Close(root)
		return -1, fmt.Errorf("mkdir: %w", err)
	}
	return root, nil
}

// isTmpfsRoot says whether fd is a folder on a tmpfs, as a scratch file
// system's root from the maker is: the zygote checks what it is handed
// before it grants writing there.
func isTmpfsRoot(fd int) bool {
	var fs unix.Statfs_t
	var st unix.Stat_t
	return unix.Fstatfs(fd, &fs) == nil && fs.Type == unix.TMPFS_MAGIC &&
		unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// withScratchEnv returns env with TMPDIR, and TMPPREFIX under it, moved
// from tmpDir to ScratchDir.
func withScratchEnv(env []string, tmpDir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		for _, name := range [...]string{"TMPDIR=", "TMPPREFIX="} {
			v, ok := strings.CutPrefix(kv, name)
			if !ok {
				continue
			}
			if rest, ok := strings.CutPrefix(v, tmpDir); ok && (rest == "" || rest[0] == '/') {
				kv = name + ScratchDir + rest
			}
		}
		out = append(out, kv)
	}
	return out
}

var scratchProbe struct {
	sync.Mutex
	byHelper map[string]string
}

// ScratchAvailable says how a sandboxed run started through helper gets a
// scratch file system of the disk quota's size here, or "" when it cannot
// and the quota is the disk watch's. For tests and diagnostics: it starts
// a scratch maker once per helper to find out.
func ScratchAvailable(helper string) string {
	if CanMountScratch() {
		return "a mount namespace of the command runner's own"
	}
	scratchProbe.Lock()
	defer scratchProbe.Unlock()
	if how, ok := scratchProbe.byHelper[helper]; ok {
		return how
	}
	how := ""
	if m, err := startScratchMaker(helper); err == nil {
		if fd, err := m.make(1 << 20); err == nil {
			unix.Close(fd)
			how = "a user namespace of its own"
		}
		m.close()
		m.wait()
	}
	if scratchProbe.byHelper == nil {
		scratchProbe.byHelper = map[string]string{}
	}
	scratchProbe.byHelper[helper] = how
	return how
}

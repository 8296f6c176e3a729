//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// zygoteStartTimeout bounds how long a new zygote may take to say it is
// ready; Hark with its audio libraries starts slowly on a busy machine.
const zygoteStartTimeout = 10 * time.Second

// zygoteRetryAfter is how long ZygoteFor fails at once after a zygote
// failed to start, instead of trying again on every command; the Runner
// uses the per-command helper meanwhile.
const zygoteRetryAfter = 5 * time.Second

// Zygote is the runner's end of one zygote.
type Zygote struct {
	pid    int
	conn   *net.UnixConn
	dead   chan struct{} // closed when the zygote is gone
	nextID atomic.Uint64

	helper  string
	makerMu sync.Mutex
	maker   *scratchMaker // nil until the first run that needs one, and where none could start
	makerAt time.Time     // when the last maker was started
	closed  bool          // the zygote is gone: no maker starts
}

// makerRetry is how long after a maker failed or could not start another
// is tried: a machine that refuses user namespaces refuses them again, and
// a maker that was killed can be replaced.
var makerRetry = 30 * time.Second

// scratchFor returns the descriptor of a new scratch file system for a run
// of spec from the scratch maker (see scratch_userns_linux.go), or -1: the
// run is not sandboxed or has no disk quota, the zygote mounts scratch file
// systems itself (as root), or no maker can make one here.
func (z *Zygote) scratchFor(spec Spec) int {
	if !spec.ReadOnly || spec.DiskLimit <= 0 || CanMountScratch() {
		return -1
	}
	m := z.scratchMaker()
	if m == nil {
		return -1
	}
	fd, err := m.make(spec.DiskLimit)
	if err != nil {
		return -1
	}
	return fd
}

// scratchMaker returns the zygote's scratch maker, starting one where
// there is none or the last failed, at most every makerRetry; nil while
// none can be had.
func (z *Zygote) scratchMaker() *scratchMaker {
	z.makerMu.Lock()
	defer z.makerMu.Unlock()
	if z.maker != nil && !z.maker.failed() {
		return z.maker
	}
	if z.closed || (!z.makerAt.IsZero() && time.Since(z.makerAt) < makerRetry) {
		return nil
	}
	if z.maker != nil {
		z.maker.close()
	}
	z.makerAt = time.Now()
	m, err := startScratchMaker(z.helper)
	if err != nil {
		z.maker = nil
		return nil
	}
	m.ahead = true
	z.maker = m
	return m
}

// zygotes holds one zygote per helper executable, started on first use and
// replaced when it dies.
var zygotes struct {
	mu       sync.Mutex
	byHelper map[string]*Zygote
	failedAt map[string]time.Time
}

// ZygoteFor returns the live zygote for helper, starting one if needed with
// the environment that env returns (called only then).
func ZygoteFor(helper string, env func() []string) (*Zygote, error) {
	return zygoteFor(helper, env, false)
}

// ZygoteMountsArg, after ZygoteArg, says the zygote was started in a user
// and a mount namespace of its own (see MountsZygoteFor).
const ZygoteMountsArg = "-userns"

// MountsZygoteFor returns the live zygote that holds approved runs' kept
// places by mounts (Spec.Mounts) for helper: as root the zygote itself;
// otherwise a second one, started in a user and a mount namespace of its
// own as the per-command helper is (HoldMounts), where it may mount. Only
// runs with mounts go there: a user namespace shows other users' files as
// nobody's and ignores setuid, which an unconfined command may need.
func MountsZygoteFor(helper string, env func() []string) (*Zygote, error) {
	if CanMountScratch() {
		return ZygoteFor(helper, env)
	}
	if !CanHoldMounts() {
		return nil, errors.New("no user namespace to hold mounts in")
	}
	return zygoteFor(helper, env, true)
}

func zygoteFor(helper string, env func() []string, userns bool) (*Zygote, error) {
	key := helper
	if userns {
		key += "\x00" + ZygoteMountsArg
	}
	helper, original := key, helper
	zygotes.mu.Lock()
	defer zygotes.mu.Unlock()
	if z := zygotes.byHelper[helper]; z != nil {
		select {
		case <-z.dead:
		default:
			return z, nil
		}
	}
	if t, ok := zygotes.failedAt[helper]; ok && time.Since(t) < zygoteRetryAfter {
		return nil, errors.New("the command runner failed to start recently")
	}
	z, err := startZygote(original, env(), userns)
	if zygotes.byHelper == nil {
		zygotes.byHelper = map[string]*Zygote{}
		zygotes.failedAt = map[string]time.Time{}
	}
	if err != nil {
		zygotes.failedAt[helper] = time.Now()
		delete(zygotes.byHelper, helper)
		return nil, err
	}
	delete(zygotes.failedAt, helper)
	zygotes.byHelper[helper] = z
	return z, nil
}

func startZygote(helper string, env []string, userns bool) (*Zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote")
	defer theirs.Close()
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	conn := c.(*net.UnixConn)
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		conn.Close()
		return nil, err
	}
	defer devNull.Close()

	z := &Zygote{conn: conn, dead: make(chan struct{}), helper: helper}
	started := make(chan error, 1)
	var proc *os.Process
	go func() {
		// The zygote gets SIGTERM when the thread that started it ends
		// (PR_SET_PDEATHSIG follows the thread, not the process), so this
		// goroutine keeps that thread for as long as the zygote lives.
		runtime.LockOSThread()
		attr := &os.ProcAttr{
			Env: env,
			// Not Hark's stdout or stderr: a caller reading them to EOF
			// would wait for the zygote too.
			Files: []*os.File{devNull, devNull, devNull, theirs},
			// As root, in a mount namespace of its own, where it may give
			// each run a scratch file system (see scratch_linux.go) that
			// nobody else sees. Cloned, not unshared: Go would make every
			// mount in an unshared one private, and the zygote would no
			// longer see a disk mounted after it started.
			Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM},
		}
		args := []string{helper, HelperCommand, ZygoteArg}
		switch {
		case userns:
			HoldMounts(attr.Sys)
			args = append(args, ZygoteMountsArg)
		case CanMountScratch():
			attr.Sys.Cloneflags = syscall.CLONE_NEWNS
		}
		p, err := os.StartProcess(helper, args, attr)
		if err != nil && attr.Sys.Cloneflags != 0 && !userns {
			// No new namespace to be had (a container without
			// CAP_SYS_ADMIN): start it as before.
			attr.Sys.Cloneflags = 0
			p, err = os.StartProcess(helper, args, attr)
		}
		proc = p
		started <- err
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		p.Wait()
		runtime.UnlockOSThread()
		conn.Close()
		z.makerMu.Lock()
		z.closed = true // none starts after this
		if z.maker != nil {
			z.maker.close()
		}
		z.makerMu.Unlock()
		close(z.dead)
	}()
	if err := <-started; err != nil {
		conn.Close()
		return nil, fmt.Errorf("could not start the command runner %s: %v", helper, err)
	}
	theirs.Close()

	// The first packet says the helper serves the zygote; an executable
	// that does not (an old hark) exits or says something else.
	conn.SetReadDeadline(time.Now().Add(zygoteStartTimeout))
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	var m zygoteMsg
	if err == nil {
		m, err = decodeMsg(buf[:n])
	}
	if err != nil || m.Op != "ready" {
		proc.Kill()
		return nil, fmt.Errorf("the command runner %s did not start: %v", helper, err)
	}
	conn.SetReadDeadline(time.Time{})
	z.pid = m.PID
	return z, nil
}

// PID is the zygote's process ID.
func (z *Zygote) PID() int { return z.pid }

// Done is closed when the zygote is gone.
func (z *Zygote) Done() <-chan struct{} { return z.dead }

// StopZygote ends helper's zygote, as Hark's exit would, and forgets it, so
// the next ZygoteFor starts another. It waits up to timeout for the zygote
// to exit on SIGTERM, and kills it if it did not.
func StopZygote(helper string, timeout time.Duration) error {
	zygotes.mu.Lock()
	z := zygotes.byHelper[helper]
	delete(zygotes.byHelper, helper)
	mz := zygotes.byHelper[helper+"\x00"+ZygoteMountsArg]
	delete(zygotes.byHelper, helper+"\x00"+ZygoteMountsArg)
	zygotes.mu.Unlock()
	if mz != nil {
		stopZygote(mz, timeout)
	}
	if z == nil {
		return nil
	}
	return stopZygote(z, timeout)
}

func stopZygote(z *Zygote, timeout time.Duration) error {
	syscall.Kill(z.pid, syscall.SIGTERM)
	select {
	case <-z.dead:
		return nil
	case <-time.After(timeout):
		syscall.Kill(z.pid, syscall.SIGKILL)
		return fmt.Errorf("zygote %d did not exit on SIGTERM", z.pid)
	}
}

// Run runs the command in the zygote. ok is false when the request never
// reached it, so the caller can start the per-command helper.
func (z *Zygote) Run(ctx context.Context, spec Spec, stdout, stderr io.Writer) (Outcome, bool) {
	var outP, errP [2]int
	if err := unix.Pipe2(outP[:], unix.O_CLOEXEC); err != nil {
		return Outcome{Err: "could not create a pipe: " + err.Error()}, true
	}
	if err := unix.Pipe2(errP[:], unix.O_CLOEXEC); err != nil {
		closeAll(outP[:])
		return Outcome{Err: "could not create a pipe: " + err.Error()}, true
	}
	replyP, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		closeAll(append(outP[:], errP[:]...))
		return Outcome{Err: "could not create a socket: " + err.Error()}, true
	}
	// Created before the request goes: once it has, the command runs, and
	// nothing may fail before the loop that watches it.
	wake, err := getWake()
	if err != nil {
		closeAll([]int{outP[0], outP[1], errP[0], errP[1], replyP[0], replyP[1]})
		return Outcome{Err: "could not create an eventfd: " + err.Error()}, true
	}
	id := z.nextID.Add(1)
	bp := zygoteBufs.Get().(*[]byte)
	defer zygoteBufs.Put(bp)
	scratch := z.scratchFor(spec)
	req := appendRunRequest((*bp)[:0], id, spec, scratch >= 0)
	rights := []int{outP[1], errP[1], replyP[1]}
	if spec.DirFile != nil {
		rights = append(rights, int(spec.DirFile.Fd())) // the zygote starts the command in it
	}
	if scratch >= 0 {
		rights = append(rights, scratch)
	}
	_, _, err = z.conn.WriteMsgUnix(req, unix.UnixRights(rights...), nil)
	if scratch >= 0 {
		unix.Close(scratch) // the zygote's copy, and then the run's, keep it
	}
	if cap(req) <= zygoteBufSize {
		*bp = req[:cap(req)]
	}
	// The zygote's ends now travel in the packet (or the send failed); ours
	// must go, or the output would never reach EOF.
	closeAll([]int{outP[1], errP[1], replyP[1]})
	if err != nil {
		closeAll([]int{outP[0], errP[0], replyP[0], wake})
		return Outcome{}, false
	}
	// The descriptors stay blocking: this thread is the only reader of the
	// pipes and reads one only when poll says it has data or hung up, and
	// the reply socket is read with MSG_DONTWAIT. Three fewer F_SETFL round
	// trips per run.

	// On timeout or cancellation the zygote is asked to stop the run, and
	// the loop below learns of it through wake.
	var stopped atomic.Bool
	var wakeMu sync.Mutex
	wakeOpen := true
	stopWatch := context.AfterFunc(ctx, func() {
		stopped.Store(true)
		var a [16]byte
		_, _ = z.conn.Write(appendMsg(a[:0], zygoteMsg{Op: "term", ID: id}))
		wakeMu.Lock()
		if wakeOpen {
			_, _ = unix.Write(wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		}
		wakeMu.Unlock()
	})
	defer func() {
		// When the stop never ran, nothing was written to wake and it can
		// serve the next run as it is.
		clean := stopWatch()
		wakeMu.Lock()
		wakeOpen = false
		wakeMu.Unlock()
		putWake(wake, clean)
	}()
	marker := RunMarker + "=" + strconv.Itoa(z.pid) + "." + strconv.FormatUint(id, 10)
	out := z.wait(&stopped, marker, outP[0], errP[0], replyP[0], wake, (*bp)[:zygoteBufSize], stdout, stderr)
	closeAll([]int{outP[0], errP[0], replyP[0]})
	if !out.Started && out.Err == errNoMounts {
		return Outcome{}, false // nothing ran: the helper holds the mounts
	}
	return out, true
}

// wait collects the run's output and replies in one loop on this goroutine's
// thread: poll(2) on the two pipes, the reply socket and wake. Every event
// of a run costs one thread wake-up and no hand-off between goroutines,
// which is what keeps a short command as cheap as starting it directly.
func (z *Zygote) wait(stopped *atomic.Bool, marker string, outFD, errFD, replyFD, wake int, buf []byte, stdout, stderr io.Writer) Outcome {
	pfd := []unix.PollFd{
		{Fd: int32(outFD), Events: unix.POLLIN},
		{Fd: int32(errFD), Events: unix.POLLIN},
		// Not POLLIN: "started" must not wake this thread while the shell
		// is starting. The zygote closes its end after the last reply
		// (exit or error) or when it dies, and the hang-up wakes us.
		{Fd: int32(replyFD), Events: unix.POLLRDHUP},
		{Fd: int32(wake), Events: unix.POLLIN},
	}
	sinks := [2]io.Writer{stdout, stderr}
	open := 2
	pid := 0
	var result *Outcome
	// drainBy bounds the wait for output once the exit is known: the
	// zygote has stopped the run's processes, but a pipe may have been
	// passed to a process beyond its reach. backstopBy bounds the wait for
	// the zygote to stop the run.
	var drainBy, backstopBy time.Time
	for {
		if result != nil && open == 0 {
			return *result
		}
		timeout := -1
		for _, t := range []time.Time{drainBy, backstopBy} {
			if !t.IsZero() {
				ms := int(time.Until(t)/time.Millisecond) + 1
				if timeout < 0 || ms < timeout {
					timeout = max(ms, 0)
				}
			}
		}
		n, err := unix.Poll(pfd, timeout)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return Outcome{Err: "waiting for the command: " + err.Error()}
		}
		if n == 0 {
			now := time.Now()
			switch {
			case result != nil && !now.Before(drainBy):
				return *result
			case result == nil && !backstopBy.IsZero() && !now.Before(backstopBy):
				// The zygote did not finish stopping the run in time; stop
				// what can be reached from here and give it up.
				if pid, _ = readReplies(replyFD, pid, buf); pid > 0 {
					_ = unix.Kill(-pid, unix.SIGKILL)
				}
				return Outcome{Started: true, ExitCode: 128 + int(unix.SIGKILL), Stopped: true, Note: "hark: the command runner did not confirm the command stopped"}
			}
			continue
		}
		for i := range 2 {
			if pfd[i].Fd < 0 || pfd[i].Revents == 0 {
				continue
			}
			k, err := unix.Read(int(pfd[i].Fd), buf)
			switch {
			case k > 0:
				_, _ = sinks[i].Write(buf[:k])
			case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			default: // EOF, or an error that ends the stream alike
				pfd[i].Fd = -1
				open--
			}
		}
		if pfd[3].Revents != 0 {
			var b [8]byte
			_, _ = unix.Read(wake, b[:])
			pfd[3].Fd = -1
			backstopBy = time.Now().Add(KillGrace + giveUpAfter + time.Second)
		}
		if pfd[2].Fd >= 0 && pfd[2].Revents != 0 {
			pfd[2].Fd = -1
			var m zygoteMsg
			pid, m = readReplies(replyFD, pid, buf)
			switch m.Op {
			case "error":
				result = &Outcome{Err: m.Err}
			case "exit":
				result = &Outcome{Started: true, ExitCode: m.Code, Stopped: stopped.Load(), MemoryCapped: m.Reason == exitMemory}
			default: // the zygote died
				switch {
				case pid == 0 && stopUnconfirmed(marker):
					result = &Outcome{Started: true, ExitCode: 128 + int(unix.SIGKILL), Stopped: stopped.Load(), Note: "hark: the command runner stopped unexpectedly; the command was stopped"}
				case pid == 0:
					// Whether the command ran is unknown; say so rather
					// than have it run twice.
					result = &Outcome{Err: "the command runner stopped before confirming the command started; check the command's effects before trying again"}
				default:
					killSession(pid)                  // a sandboxed run: its session
					_ = unix.Kill(-pid, unix.SIGKILL) // an unsandboxed one: its group
					result = &Outcome{Started: true, ExitCode: 128 + int(unix.SIGKILL), Stopped: stopped.Load(), Note: "hark: the command runner stopped unexpectedly; the command was stopped"}
				}
			}
			drainBy = time.Now().Add(PipeGrace)
		}
	}
}

// readReplies reads the packets waiting on a run's reply socket, without
// blocking, and returns the shell's PID (or pid if none said it) and the
// last reply after "started", whose Op is "" when there was none.
func readReplies(fd, pid int, buf []byte) (int, zygoteMsg) {
	var last zygoteMsg
	for {
		k, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || k <= 0 {
			return pid, last
		}
		m, err := decodeReply(buf[:k])
		if err != nil {
			continue
		}
		if m.Op == "started" {
			pid = m.PID
			continue
		}
		last = m
		if m.Op == "exit" || m.Op == "error" {
			return pid, last // the last reply of a run: nothing follows it
		}
	}
}

// zygoteBufSize is the size of the buffer a run reads its output through,
// which also holds its request on the way out.
const zygoteBufSize = 32 << 10

// zygoteBufs keeps those buffers between runs: one per run would make the
// garbage collector run every hundred commands for bytes thrown away.
var zygoteBufs = sync.Pool{New: func() any {
	b := make([]byte, zygoteBufSize)
	return &b
}}

// spareWakes keeps a few eventfds of finished runs for the next ones,
// saving an eventfd2 and a close per run. Not a sync.Pool: a descriptor it
// dropped would never be closed.
var spareWakes struct {
	mu  sync.Mutex
	fds []int
}

const maxSpareWakes = 8

func getWake() (int, error) {
	spareWakes.mu.Lock()
	if n := len(spareWakes.fds); n > 0 {
		fd := spareWakes.fds[n-1]
		spareWakes.fds = spareWakes.fds[:n-1]
		spareWakes.mu.Unlock()
		return fd, nil
	}
	spareWakes.mu.Unlock()
	return unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
}

// putWake keeps wake for another run if clean (never written to, so its
// counter is zero), and closes it otherwise.
func putWake(fd int, clean bool) {
	if clean {
		spareWakes.mu.Lock()
		if len(spareWakes.fds) < maxSpareWakes {
			spareWakes.fds = append(spareWakes.fds, fd)
			spareWakes.mu.Unlock()
			return
		}
		spareWakes.mu.Unlock()
	}
	unix.Close(fd)
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// killSession stops every process in the session that a run's shell leads,
// after the zygote that supervised it died: its processes now belong to
// init, and no other record of them is left. A sandboxed command cannot
// leave its session (setsid is refused), and the session's number stays
// allocated while any member lives, so the sweep can neither miss one nor
// hit a stranger. An unsandboxed, approved command that started its own
// session is beyond it.
func killSession(sid int) {
	for round := 0; round < 50; round++ {
		members := processes(func(pid int) bool { return sessionOf(pid) == sid })
		if len(members) == 0 {
			return
		}
		for _, pid := range members {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(killRound)
	}
}

// runProcesses lists the processes whose environment holds marker
// (RunMarker=ZYGOTE.ID): the run's shell and what it started, save those
// that dropped the variable.
func runProcesses(marker string) []int {
	key := []byte(marker)
	return processes(func(pid int) bool {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		return err == nil && slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, key) })
	})
}

// stopUnconfirmed stops a run whose zygote died before it said the command
// started, which it says just after the fork: the shell may be running all
// the same. It kills the processes that carry the run's marker, with the
// sessions and process groups they lead (the shell leads one or both, and
// so does a process of the run that left them). It reports whether there
// were any.
func stopUnconfirmed(marker string) bool {
	pids := runProcesses(marker)
	for _, pid := range pids {
		if sessionOf(pid) == pid {
			killSession(pid)
		}
		if st, ok := procStat(pid); ok && st.pgid == pid {
			_ = unix.Kill(-pid, unix.SIGKILL)
		}
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	return len(pids) > 0
}

// sessionOf reads the session from /proc/PID/stat, or returns -1.
func sessionOf(pid int) int { return int(statField(pid, 3)) }

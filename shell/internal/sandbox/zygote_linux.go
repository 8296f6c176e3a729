//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// The zygote is the long-lived form of the helper: `hark __sandbox -server`,
// started once per Hark process, which forks every command on request
// instead of paying a second process start per command. It is the child
// subreaper of every command, so descendants that leave the process group
// (setsid, double fork) become its children and can still be stopped.
//
// Protocol, over a SOCK_SEQPACKET socket pair inherited as fd 3, one message
// (zygoteMsg) per packet, in one binary encoding (see appendRunRequest and
// appendMsg):
//
//	zygote → runner  ready{pid}                  once, when it serves
//	runner → zygote  run{id, argv, env, dir, ro, tmp} with three descriptors
//	                 by SCM_RIGHTS: the command's stdout and stderr, and the
//	                 run's own reply socket
//	runner → zygote  term{id}                    on timeout or cancellation
//
// and on the run's reply socket:
//
//	zygote → runner  started{pid} or error{err} (nothing ran)
//	zygote → runner  exit{code}                  once the shell and everything
//	                                            it left behind are gone
//
// A reply socket per run lets the waiting Run read its own replies with no
// dispatcher in between, and see EOF if the zygote dies. The zygote closes
// its copies of the pipes as soon as the shell is forked, so EOF on the
// output means the command's processes closed them.
const (
	// ZygoteArg, after HelperCommand, selects the zygote.
	ZygoteArg = "-server"
	zygoteFD  = 3
	// RunMarker names the environment variable that tags every process of a
	// run, so that an orphan the zygote adopts can be traced to its run.
	RunMarker = "HARK_RUN_ID"
	// zygoteMaxPacket bounds one request: the command and its environment.
	zygoteMaxPacket = 1 << 20
)

type zygoteMsg struct {
	Op        string
	ID        uint64
	Argv      []string
	Env       []string
	Dir       string
	ReadOnly  bool
	TmpDir    string
	PID       int
	Code      int
	Err       string
	MemLimit  int64       // run: the cap on the run's memory, 0 for none
	DiskLimit int64       // run: the run's disk quota, 0 for none (Spec.DiskLimit)
	Hide      []string    // run: paths the command may not read (Spec.Hide)
	Reason    int         // exit: why the zygote stopped the run, if it did (exitMemory)
	Scratch   bool        // run: the last descriptor is the run's scratch file system (see scratch_userns_linux.go)
	Scope     scope.Scope // run: an approved run's scope (Spec.Scope), with Scoped
	Scoped    bool        // run: an approved run, held to Scope, not a read-only one
	Mounts    bool        // run: with Scoped, kept and hidden places inside writable ones are held by mounts (Spec.Mounts)
}

// zrun is one command the zygote started.
type zrun struct {
	id      uint64
	reply   int // the run's reply socket
	pid     int // the shell, also its process group
	marker  string
	reaped  bool // the shell has exited and been collected
	code    int
	stop    bool           // SIGTERM sent; SIGKILL rounds follow
	done    bool           // exit reported
	members map[int]uint64 // descendants seen, by PID → start time, to attribute them once orphaned
	over    chan struct{}  // closed when done
	memOver bool           // stopped for passing its memory cap (see watchMemory)
	scratch string         // the temporary folder on which a scratch file system is mounted, or ""
	memCg   runCgroup      // the run's memory cgroup (see cgroup_linux.go)
	made    madeKept       // folders made to hold kept ones by mounts, taken away after (see unmadeKept)
}

type zserver struct {
	conn     *net.UnixConn
	launcher *launcher      // the thread sandboxed commands are forked on
	launched chan launchRes // its answers; forks are one at a time
	devNull  int
	nonce    string
	kick     chan struct{} // a child was forked: the reaper may wait again

	mu      sync.Mutex // guards the fields below, and every fork and reap
	runs    map[uint64]*zrun
	byPid   map[int]*zrun // unreaped shells
	closing bool
	scratch bool // runs can have scratch file systems of their own (see scratch_linux.go)
	quit    sync.Once
}

// serveZygote runs the zygote until the runner's end of the socket closes
// (Hark exited) or a signal arrives, then stops every command and exits.
//
// userns says it was started in a user namespace of its own (ZygoteMountsArg).
func serveZygote(userns bool) int {
	// The main goroutine keeps its thread, so that the launcher's thread
	// (see launcher), which carries restrictions for good, is never the
	// process's main thread, whose state tools read as the process's.
	runtime.LockOSThread()
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "hark %s %s: %s\n", HelperCommand, ZygoteArg, fmt.Sprintf(format, a...))
		return 127
	}
	var st unix.Stat_t
	if err := unix.Fstat(zygoteFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return fail("fd %d is not the runner's socket (this entry point is internal to hark)", zygoteFD)
	}
	f := os.NewFile(zygoteFD, "zygote")
	c, err := net.FileConn(f) // a close-on-exec duplicate: commands never see it
	f.Close()
	if err != nil {
		return fail("%v", err)
	}
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return fail("fd %d is not a Unix socket", zygoteFD)
	}
	HardenProcess(zygoteFD)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail("could not become a child subreaper: %v", err)
	}
	// One processor: the zygote's work is a chain of short steps (read a
	// request, fork, reap, reply), and a second one only adds threads that
	// spin looking for work while the machine's cores start the command.
	runtime.GOMAXPROCS(1)
	devNull, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("%v", err)
	}
	s := &zserver{
		launcher: startLauncher(),
		launched: make(chan launchRes, 1),
		conn:     conn,
		devNull:  devNull,
		nonce:    strconv.Itoa(os.Getpid()),
		kick:     make(chan struct{}, 1),
		runs:     map[uint64]*zrun{},
		byPid:    map[int]*zrun{},
		scratch:  privateMounts() || userns && ownUserNamespace() && unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, "") == nil,
	}
	removeDeadRunCgroups()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		<-signals
		s.shutdown()
	}()
	go s.reap()
	s.send(zygoteMsg{Op: "ready", PID: os.Getpid()})
	eof := make(chan struct{})
	go s.serve(make([]byte, zygoteMaxPacket), make([]byte, unix.CmsgSpace(8*4)), eof)
	<-eof
	s.shutdown()
	select {} // the reaper exits the process once every child is gone
}

// sendTo writes one packet to a run's reply socket. A runner that went
// away (its Run returned) makes this fail, which is fine.
func sendTo(fd int, m zygoteMsg) {
	var a [32]byte
	_, _ = unix.Write(fd, appendReply(a[:0], m))
}

func (s *zserver) send(m zygoteMsg) {
	var a [32]byte
	_, _ = s.conn.Write(appendMsg(a[:0], m)) // a runner that went away gets EOF on its side; ours follows
}

// serve reads requests until EOF. Forks happen here, one at a time, so a
// request's descriptors are never inherited by another request's command.
func (s *zserver) serve(buf, oob []byte, eof chan struct{}) {
	for {
		n, oobn, flags, _, err := s.conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			close(eof)
			return
		}
		var fds []int
		if oobn > 0 {
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					if got, err := unix.ParseUnixRights(&m); err == nil {
						fds = append(fds, got...)
					}
				}
			}
		}
		m, err := decodeMsg(buf[:n])
		if flags&unix.MSG_CTRUNC != 0 {
			// Some of the request's descriptors did not arrive (the
			// zygote's open-file limit): which is which cannot be told.
			err = errors.New("not all of its descriptors arrived")
		}
		switch {
		case err != nil && len(fds) >= 3:
			sendTo(fds[2], zygoteMsg{Op: "error", Err: "the command runner could not read the request: " + err.Error()})
			closeAll(fds)
		case err != nil:
			closeAll(fds)
		case m.Op == "run":
			s.start(m, fds)
		case m.Op == "term":
			closeAll(fds)
			s.mu.Lock()
			r := s.runs[m.ID]
			s.mu.Unlock()
			if r != nil {
				s.stopRun(r, KillGrace)
			}
		default:
			closeAll(fds)
		}
	}
}

// start forks the shell for a run request, with the received pipes as its
// stdout and stderr, and closes the zygote's copies at once. A sandboxed
// shell confines itself between fork and exec (see forkConfined); the
// zygote itself is never confined, in any thread.
func (s *zserver) start(m zygoteMsg, fds []int) {
	scratchFS := -1
	if m.Scratch && len(fds) >= 4 {
		// The run's scratch file system, made by the runner's scratch
		// maker: it goes to the child as scratchFD, and the zygote's copy
		// closes once the child has it.
		scratchFS = fds[len(fds)-1]
		unix.CloseOnExec(scratchFS)
		fds = fds[:len(fds)-1]
		defer unix.Close(scratchFS)
		if !isTmpfsRoot(scratchFS) {
			sendTo(fds[2], zygoteMsg{Op: "error", ID: m.ID, Err: "the command runner got something other than a scratch file system; the command was not run"})
			closeAll(fds)
			return
		}
	}
	if len(fds) != 3 && len(fds) != 4 {
		closeAll(fds)
		return // no reply socket: nobody to answer
	}
	reply := fds[2]
	held, approved := -1, ""
	if len(fds) == 4 {
		// The folder the command was approved in, held open by the runner:
		// the child changes into this descriptor, not into the path, which
		// may lead elsewhere by now. It goes with the pipes after the fork.
		// Dir is where it was approved; it must still be there when the
		// command starts (see placeMoved).
		unix.CloseOnExec(fds[3])
		held, approved = fds[3], m.Dir
		m.Dir = "/proc/self/fd/" + strconv.Itoa(fds[3])
		// Entered through this namespace's mounts (see reopenHeld); where
		// it is not the folder held, the last look says so.
		if here, why := reopenHeld(approved, held); why == "" {
			defer unix.Close(here)
			m.Dir = "/proc/self/fd/" + strconv.Itoa(here)
		}
		fds[2] = fds[3]
		fds = fds[:3]
	} else {
		fds = fds[:2]
	}
	defer func() { closeAll(fds) }() // on the early returns; nil once closed
	fail := func(why string) {
		sendTo(reply, zygoteMsg{Op: "error", ID: m.ID, Err: why})
		unix.Close(reply)
	}
	if len(m.Argv) == 0 {
		fail("malformed request to the command runner")
		return
	}
	r := &zrun{id: m.ID, reply: reply, marker: s.nonce + "." + strconv.FormatUint(m.ID, 10), members: map[int]uint64{}, over: make(chan struct{}), memCg: noRunCgroup}
	env := make([]string, 0, len(m.Env)+1)
	for _, kv := range m.Env {
		if !strings.HasPrefix(kv, RunMarker+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, RunMarker+"="+r.marker)
	attr := &syscall.ProcAttr{
		Dir:   m.Dir,
		Env:   env,
		Files: []uintptr{uintptr(s.devNull), uintptr(fds[0]), uintptr(fds[1])},
		// An approved, unsandboxed command keeps a process group of its
		// own; a new session costs measurably more on every command, and
		// what it guards against (the terminal) is the sandbox's concern.
		Sys: &syscall.SysProcAttr{Setpgid: true},
	}

	if m.ReadOnly && m.DiskLimit > 0 && s.scratch && scratchFS < 0 && mountScratch(m.TmpDir, m.DiskLimit) {
		r.scratch = m.TmpDir
	}
	if m.ReadOnly && m.MemLimit > 0 {
		r.memCg = newRunCgroup("hark-run-" + s.nonce + "-" + strconv.FormatUint(m.ID, 10))
	}
	conf := confinement{dir: m.Dir, tmpDir: m.TmpDir, hide: m.Hide, scope: m.Scope, scoped: m.Scoped, fileLimit: m.DiskLimit, memCgroup: r.memCg.procs, scratchFS: -1,
		// Without a memory cgroup nothing counts a memfd that no process
		// holds (see memory.go): none can be made.
		noMemfd: m.MemLimit > 0 && r.memCg.procs < 0}
	if held >= 0 {
		conf.place = func() string { return placeMoved(approved, held) }
	}
	if m.Mounts {
		// Held by the shell's own mounts, made between fork and exec in
		// a mount namespace of its own: only where the zygote has one of
		// its own to copy, and may mount (root). Otherwise the runner
		// starts a helper that holds them.
		if !m.Scoped || !s.scratch {
			fail(errNoMounts)
			return
		}
		var err error
		if conf.mounts, conf.scope.Keep, conf.hide, r.made, err = holdPlan(m.Scope, m.Hide); err != nil {
			fail("the kept places could not be held, so the command was not run: " + err.Error())
			return
		}
	}
	if m.ReadOnly && scratchFS >= 0 && scratchFDFits() {
		conf.scratchFS = scratchFS
		conf.tmpDir = "/proc/self/fd/" + strconv.Itoa(scratchFS) + "/" + scratchFolder
		env = withScratchEnv(env, m.TmpDir)
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		if r.scratch != "" {
			unmountScratch(r.scratch)
		}
		r.memCg.remove()
		unmadeKept(r.made, false)
		fail("the command runner is shutting down; try again")
		return
	}
	// The fork and the registration happen under the lock that the reaper
	// takes before collecting a child, so a shell that exits at once is
	// still recognised as this run's.
	var pid int
	var err error
	if m.ReadOnly && m.Scoped {
		// An approved run confines itself from a thread of the zygote's
		// own: the launcher's thread carries the read-only filter for good.
		if pid, err = forkConfined(m.Argv, env, [3]int{s.devNull, fds[0], fds[1]}, false, -1, conf); err != nil && !isPlaceMoved(err) {
			err = fmt.Errorf("the command's approved scope could not be applied, so it was not run: %v", err)
		}
	} else if m.ReadOnly {
		// Asked here: the launcher's thread has no capabilities to reach
		// a folder that only root's would.
		if err = conf.checkPlace(); err == nil {
			pid, err = s.launcher.fork(m.Argv, env, [3]int{s.devNull, fds[0], fds[1]}, conf, r.scratch != "" || conf.scratchFS >= 0, s.launched)
			if err != nil {
				err = fmt.Errorf("the read-only sandbox could not be applied, so the command was not run: %v", err)
			}
		}
	} else if err = conf.checkPlace(); err == nil {
		if pid, err = syscall.ForkExec(m.Argv[0], m.Argv, attr); err != nil {
			err = fmt.Errorf("could not start %s: %v; set another shell", m.Argv[0], err)
		}
	}
	if err == nil {
		r.pid = pid
		s.runs[r.id] = r
		s.byPid[pid] = r
		// Before the lock goes: the reaper may report the exit, and close
		// the reply socket, as soon as it can take it.
		sendTo(reply, zygoteMsg{Op: "started", ID: r.id, PID: pid})
	}
	s.mu.Unlock()
	closeAll(fds)
	fds = nil
	r.memCg.started()
	if err != nil {
		if r.scratch != "" {
			unmountScratch(r.scratch)
		}
		r.memCg.remove()
		unmadeKept(r.made, false)
		fail(err.Error())
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
	if m.ReadOnly && m.MemLimit > 0 {
		go s.watchMemory(r, m.MemLimit)
	}
}

// reap collects every child of the zygote: shells, and the orphans it
// adopted as subreaper. Nothing else in the zygote waits for processes.
func (s *zserver) reap() {
	for {
		pid, err := peekChild(0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: no children
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				s.launcher.cgroup.remove() // empty now: no children are left
				syscall.Exit(0)
			}
			<-s.kick
			continue
		}
		s.mu.Lock()
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		r := s.byPid[pid]
		if r != nil {
			delete(s.byPid, pid)
			r.reaped = true
			r.code = int(ws.ExitStatus())
			if ws.Signaled() {
				r.code = 128 + int(ws.Signal())
			}
		}
		var stopping []*zrun
		for _, o := range s.runs {
			if o.stop && o != r {
				stopping = append(stopping, o)
			}
		}
		s.mu.Unlock()
		if r != nil {
			s.shellExited(r)
		}
		for _, o := range stopping {
			s.finishIfClean(o)
		}
	}
}

// shellExited reports the run's exit at once when it left nothing behind;
// otherwise its leftovers are stopped first, as the per-command helper does.
func (s *zserver) shellExited(r *zrun) {
	if _, err := peekChild(unix.WNOHANG); errors.Is(err, unix.ECHILD) {
		s.finishWith(r, true) // no children at all: the common case, without reading /proc
		return
	}
	s.mu.Lock()
	stopping := r.stop
	s.mu.Unlock()
	if stopping {
		s.finishIfClean(r)
		return
	}
	s.mu.Lock()
	left := len(s.leftovers(r))
	s.mu.Unlock()
	if left == 0 {
		s.finish(r)
		return
	}
	s.stopRun(r, leftoverGrace)
}

func (s *zserver) finishIfClean(r *zrun) {
	s.mu.Lock()
	clean := r.reaped && len(s.leftovers(r)) == 0
	s.mu.Unlock()
	if clean {
		s.finish(r)
	}
}

func (s *zserver) finish(r *zrun) { s.finishWith(r, false) }

// finishWith reports r's exit. childless says the zygote just found it had
// no children at all, so there are no orphans to sweep either: any child
// since is a newer run's shell.
func (s *zserver) finishWith(r *zrun, childless bool) {
	s.mu.Lock()
	if r.done {
		s.mu.Unlock()
		return
	}
	r.done = true
	close(r.over)
	delete(s.runs, r.id)
	if !r.reaped { // given up on: report it stopped
		r.code = 128 + int(unix.SIGKILL)
	}
	idle := len(s.runs) == 0
	reason := 0
	if r.memOver {
		reason = exitMemory
	}
	s.mu.Unlock()
	// Before the reply: the runner may hand the folder to its next run,
	// which gets a scratch file system of its own there.
	if r.scratch != "" {
		unmountScratch(r.scratch)
	}
	r.memCg.remove()
	// Every process of the run is gone, and its mount namespace with it:
	// the folders made for its mounts go if it left them empty.
	unmadeKept(r.made, false)
	sendTo(r.reply, zygoteMsg{Op: "exit", ID: r.id, Code: r.code, Reason: reason})
	unix.Close(r.reply)
	if idle && !childless {
		s.sweepOrphans()
	}
}

// stopRun sends SIGTERM to everything of the run, then after grace rounds
// of SIGKILL until it is all gone.
func (s *zserver) stopRun(r *zrun, grace time.Duration) {
	s.mu.Lock()
	if r.stop || r.done {
		s.mu.Unlock()
		return
	}
	r.stop = true
	s.signalRun(r, unix.SIGTERM)
	s.mu.Unlock()
	go func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-r.over:
			return
		case <-t.C:
		}
		for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
			s.mu.Lock()
			if r.done {
				s.mu.Unlock()
				return
			}
			s.signalRun(r, unix.SIGKILL)
			s.mu.Unlock()
			s.finishIfClean(r)
		}
		// Something outlived every SIGKILL round (a process stuck in the
		// kernel); it is not worth holding the command's result.
		s.finish(r)
	}()
}

// sweepOrphans stops adopted orphans that no run claims once no run is
// active: nothing else could own them.
func (s *zserver) sweepOrphans() {
	if _, err := peekChild(unix.WNOHANG); errors.Is(err, unix.ECHILD) {
		return // no children at all, the common case
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.runs) > 0 || s.closing {
		return
	}
	var roots []int
	for _, c := range childrenOf(os.Getpid()) {
		if s.byPid[c] == nil {
			roots = append(roots, c)
		}
	}
	if len(roots) == 0 {
		return
	}
	s.signalTree(nil, roots, unix.SIGTERM)
	go func() {
		time.Sleep(leftoverGrace)
		for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
			s.mu.Lock()
			var left []int
			if len(s.runs) == 0 {
				for _, c := range childrenOf(os.Getpid()) {
					if s.byPid[c] == nil && s.owner(c) == nil {
						left = append(left, c)
					}
				}
			}
			s.signalTree(nil, left, unix.SIGKILL)
			s.mu.Unlock()
			if len(left) == 0 {
				return
			}
		}
	}()
}

// shutdown stops every command; the reaper exits once none is left.
func (s *zserver) shutdown() {
	s.quit.Do(func() {
		s.mu.Lock()
		s.closing = true
		signalDescendants(unix.SIGTERM)
		s.mu.Unlock()
		select {
		case s.kick <- struct{}{}:
		default:
		}
		go func() {
			time.Sleep(KillGrace)
			for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
				s.mu.Lock()
				signalDescendants(unix.SIGKILL)
				s.mu.Unlock()
			}
			s.launcher.cgroup.remove() // fails, harmlessly, if a process outlived every round
			syscall.Exit(0)
		}()
	})
}

// leftovers lists the zygote's children that belong to r and are not its
// shell: orphans it adopted. An orphan no run claims counts as r's when r is
// the only run. Called with s.mu held.
func (s *zserver) leftovers(r *zrun) []int {
	var out []int
	only := len(s.runs) == 1 && s.runs[r.id] == r
	for _, c := range childrenOf(os.Getpid()) {
		if s.byPid[c] != nil {
			continue // a shell, of r while it lives or of another run
		}
		if o := s.owner(c); o == r || (o == nil && only) {
			out = append(out, c)
		}
	}
	return out
}

// owner attributes an adopted process to an active run: by the run marker in
// its environment, by having been seen in the run's tree, or by its process
// group. Called with s.mu held.
func (s *zserver) owner(pid int) *zrun {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil {
		key := []byte(RunMarker + "=" + s.nonce + ".")
		for _, kv := range bytes.Split(b, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, key); ok {
				if id, err := strconv.ParseUint(string(v), 10, 64); err == nil {
					if r := s.runs[id]; r != nil {
						return r
					}
				}
				break
			}
		}
	}
	st, ok := procStat(pid)
	if !ok {
		return nil
	}
	for _, r := range s.runs {
		if start, seen := r.members[pid]; seen && start == st.start {
			return r
		}
	}
	for _, r := range s.runs {
		if st.pgid == r.pid {
			return r
		}
	}
	return nil
}

// signalRun signals r's process group while its shell lives, and every
// process in the trees of its shell and of its adopted orphans. Called with
// s.mu held, so no child of the zygote is collected (and its PID reused)
// meanwhile.
func (s *zserver) signalRun(r *zrun, sig unix.Signal) {
	roots := s.leftovers(r)
	if !r.reaped {
		_ = unix.Kill(-r.pid, sig)
		roots = append(roots, r.pid)
	}
	s.signalTree(r, roots, sig)
}

// signalTree signals roots (children of the zygote) and all their
// descendants, recording each in r's members. A descendant is signalled
// only after checking it is still the child of the process it was found
// under (see signalChild).
func (s *zserver) signalTree(r *zrun, roots []int, sig unix.Signal) {
	var visit func(pid int)
	if r != nil {
		visit = func(pid int) {
			if st, ok := procStat(pid); ok {
				r.members[pid] = st.start
			}
		}
	}
	signalTree(roots, sig, visit)
}

type pstat struct {
	pgid  int
	start uint64
}

// procStat reads the process group and start time from /proc/PID/stat.
func procStat(pid int) (pstat, bool) {
	v, ok := statFields(pid, 2, 19) // process group, start time
	if !ok {
		return pstat{}, false
	}
	return pstat{pgid: int(v[0]), start: uint64(v[1])}, true
}

// peekChild waits for a child to exit without collecting it, so that the
// caller can take s.mu first: a PID is only freed under the lock.
func peekChild(flags int) (int, error) {
	var info struct { // the start of siginfo_t for SIGCHLD
		signo, errno, code, _ int32
		pid                   int32
		_                     [128 - 20]byte
	}
	_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_ALL, 0, uintptr(unsafe.Pointer(&info)), uintptr(unix.WEXITED|unix.WNOWAIT|flags), 0, 0)
	if e != 0 {
		return 0, e
	}
	if info.pid == 0 {
		return 0, errNoneExited
	}
	return int(info.pid), nil
}

var errNoneExited = errors.New("no child has exited")

//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A run's memory is bounded as a whole: RLIMIT_DATA holds each process, but
// a command that starts several (four `tail /dev/zero` in parallel) could
// still take their sum. The zygote adds up the memory of every process of a
// sandboxed run while it runs and stops the run once the sum passes its
// cap. A sandboxed run is exactly the session its shell leads: its
// processes cannot leave it (setsid is refused), and its number stays
// allocated while any member lives, so the sum misses none and counts no
// stranger. This works for every user and needs no cgroup; the price is that
// a run may overshoot the cap by what it allocates within one poll.
//
// What is added up is what the run keeps the kernel from giving to anyone
// else (see runMemory): anonymous and shared memory, shared pages once
// rather than once per process that maps them, and memory files (memfd,
// tmpfs) a member holds open, mapped or not. Clean pages of mapped files
// are not counted: the kernel drops them when it needs the room.
//
// Nor does any process show what the kernel holds in a socket's or a
// pipe's buffers, which no memory cgroup of cgroup v1 counts either: each
// socket and pipe a member holds counts as the most it can hold (see
// bufferBytes). A read-only run's sockets keep the default buffer size
// (the seccomp filter refuses SO_SNDBUF and SO_RCVBUF), and each of its
// processes holds at most ReadOnlyFileLimit descriptors, which also
// bounds how many can be parked in flight, held by no process.

// exitMemory, as an exit reply's Reason, says the zygote stopped the run
// for passing its memory cap.
const exitMemory = 1

// watchMemory stops r once its processes together hold more than limit
// bytes, and marks it so the exit reply says why.
func (s *zserver) watchMemory(r *zrun, limit int64) {
	t := time.NewTicker(memPoll)
	defer t.Stop()
	var m runMemory
	if !pollMemory(t.C, r.over, limit, func() (int64, bool) {
		return max(m.session(r.pid, limit), cgroupUsage(r.memCg.dir, scratchUsed(r.scratch))), true
	}) {
		return
	}
	s.mu.Lock()
	r.memOver = !r.done
	s.mu.Unlock()
	// No grace: every moment it keeps running it takes more.
	s.stopRun(r, 0)
}

var pageSize = int64(os.Getpagesize())

// scratchUsed is what the scratch file system on dir holds ("" for none),
// which a run's memory cgroup is charged with but the disk quota bounds.
func scratchUsed(dir string) int64 {
	var fs unix.Statfs_t
	if dir == "" || unix.Statfs(dir, &fs) != nil {
		return 0
	}
	return int64(fs.Blocks-fs.Bfree) * fs.Bsize
}

// runMemory adds up the memory of a run's processes, one look at a time;
// its zero value is ready to use, and it keeps what it learnt between
// looks (which devices hold memory files) and its buffers (procFS), so a
// look allocates nothing for the processes it passes over.
//
// Each look first takes a cheap upper bound: every member's resident size
// (statm, which counts a shared page in each process that maps it) and
// what it has in swap (status), plus the memory files members hold open.
// Only when that passes the cap does it read each member's proportional
// set (smaps_rollup's Pss_Anon, Pss_Shmem and SwapPss: a page that n
// processes map counts 1/n in each, and clean file pages not at all),
// which costs a walk of the process's page tables.
// A memory file that is both held open and mapped counts twice, which can
// only stop a run early, never late.
type runMemory struct {
	fs      procFS
	fsTypes map[uint64]int64 // st_dev → its file system's type (to tell tmpfs, ramfs and hugetlbfs)
	held    map[fileID]bool  // memory files counted in this look
	buffers map[uint64]bool  // sockets and pipes counted in this look, by inode (one numbering for both)
	socket  int64            // what one socket counts, once known (bufferBytes)
	pids    []int
}

type fileID struct{ dev, ino uint64 }

// session is the memory of the processes in session sid, in bytes: the
// exact sum when it passes limit, else at most that.
func (m *runMemory) session(sid int, limit int64) int64 {
	m.pids = m.pids[:0]
	m.fs.pids(func(pid int) {
		if l, ok := m.fs.stat(pid); ok && l.sid == int64(sid) {
			m.pids = append(m.pids, pid)
		}
	})
	return m.of(m.pids, limit)
}

// leads reports whether pid still leads its session (the run's shell has
// not ended).
func (m *runMemory) leads(pid int) bool {
	l, ok := m.fs.stat(pid)
	return ok && l.sid == int64(pid)
}

// of is session's sum over the processes pids.
func (m *runMemory) of(pids []int, limit int64) int64 {
	if m.held == nil {
		m.held, m.fsTypes, m.buffers = map[fileID]bool{}, map[uint64]int64{}, map[uint64]bool{}
	}
	clear(m.held)
	clear(m.buffers)
	var files, resident int64
	for _, pid := range pids {
		files += m.heldFiles(pid)
		resident += m.fs.resident(pid) + m.fs.swapped(pid)
	}
	if files+resident <= limit {
		return files + resident
	}
	var proportional int64
	for _, pid := range pids {
		proportional += m.proportional(pid)
	}
	return files + proportional
}

// heldFiles is the memory, in bytes, of the memory files pid holds open
// that no earlier process of this look held: a memfd, a file on tmpfs, an
// unlinked one included. Their pages are in no process's resident set
// unless mapped, and stay allocated while a descriptor is open. The
// sockets and pipes it holds count too, as the most each can hold.
func (m *runMemory) heldFiles(pid int) int64 {
	var sum int64
	buffer := func(kind bufferKind, ino uint64) {
		if m.buffers[ino] {
			return
		}
		m.buffers[ino] = true
		if kind == bufferPipe {
			sum += pipeBytes
			return
		}
		if m.socket == 0 {
			m.socket = socketBytes(readSysctl("/proc/sys/net/core/wmem_default", 212992))
		}
		sum += m.socket
	}
	m.fs.openFiles(pid, func(f openFile) {
		st := f.st
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return
		}
		id := fileID{uint64(st.Dev), st.Ino}
		if m.held[id] {
			return
		}
		switch m.fsType(f, uint64(st.Dev)) {
		case unix.TMPFS_MAGIC, unix.HUGETLBFS_MAGIC:
			sum += st.Blocks * 512 // what is allocated: a sparse file's holes hold nothing
		case unix.RAMFS_MAGIC:
			sum += st.Size // ramfs counts no blocks, and has no holes
		default:
			return
		}
		m.held[id] = true
	}, buffer)
	return sum
}

// pipeBytes is the most a pipe holds at its default size: 16 pages. A
// larger one (F_SETPIPE_SZ) counts as this too; the kernel lets a user's
// pipes grow only while all of them together hold less than
// fs.pipe-user-pages-soft (64 MiB by default).
var pipeBytes = 16 * pageSize

// socketBytes is the most a socket with a send buffer of sndbuf bytes
// holds: what it has sent that waits in its peer's queue, and what its
// peer sent that waits in its own (its peer may be closed or in flight,
// held by no process). Each is bounded by the sender's buffer, which the
// kernel lets one last message overrun by half, plus bookkeeping. A pair
// whose ends a run both holds counts twice, which can only stop a run
// early.
func socketBytes(sndbuf int64) int64 {
	return 2 * (sndbuf + sndbuf/2 + 4096)
}

// readSysctl reads a number from a /proc/sys file, or def.
func readSysctl(path string, def int64) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n <= 0 {
		return def
	}
	return n
}

// fsType is the type (statfs's magic number) of the file system of the
// open file f, on device dev, which it remembers: only a device not seen
// before costs a statfs (and a path to ask it of).
func (m *runMemory) fsType(f openFile, dev uint64) int64 {
	if v, ok := m.fsTypes[dev]; ok {
		return v
	}
	var fs unix.Statfs_t
	if unix.Statfs(f.path(), &fs) != nil {
		return 0
	}
	m.fsTypes[dev] = fs.Type
	return fs.Type
}

// proportional reads pid's proportional share of anonymous and shared
// memory from /proc/PID/smaps_rollup; where a kernel splits no Pss_Anon out
// (before 5.8), its whole proportional set; where the file cannot be read,
// its resident size.
func (m *runMemory) proportional(pid int) int64 {
	b := m.fs.read(pid, "/smaps_rollup")
	if b == nil {
		return m.fs.resident(pid)
	}
	var pss, anon, shmem, swap int64
	split := false
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(k) {
		case "Pss":
			pss = kB(v)
		case "Pss_Anon":
			anon, split = kB(v), true
		case "Pss_Shmem":
			shmem = kB(v)
		case "SwapPss": // its share of what was moved to swap
			swap = kB(v)
		}
	}
	if !split {
		return pss + swap
	}
	return anon + shmem + swap
}

// kB reads smaps' "   1234 kB" as bytes.
func kB(v []byte) int64 {
	n, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
	return n << 10
}

// watchHelperMemory is watchMemory for the per-command helper, whose one
// run is the session the shell at pid leads: past the cap it says so on
// the command's standard error and kills every descendant, which ends the
// helper's wait for the shell.
func watchHelperMemory(pid int, limit int64) {
	t := time.NewTicker(memPoll)
	defer t.Stop()
	var m runMemory
	over := pollMemory(t.C, nil, limit, func() (int64, bool) {
		if !m.leads(pid) {
			return 0, false // the shell is gone
		}
		return m.session(pid, limit), true
	})
	if !over {
		return
	}
	os.Stderr.WriteString("\n" + MemoryCapNote(limit) + "\n")
	for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
		signalDescendants(unix.SIGKILL)
	}
}

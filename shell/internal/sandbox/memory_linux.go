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
// still take their sum. The zygote adds up the resident memory of every
// process of a sandboxed run while it runs and stops the run once the sum
// passes its cap. A sandboxed run is exactly the session its shell leads:
// its processes cannot leave it (setsid is refused), and its number stays
// allocated while any member lives, so the sum misses none and counts no
// stranger. This works for every user and needs no cgroup; the price is that
// a run may overshoot the cap by what it allocates within one poll.

// exitMemory, as an exit reply's Reason, says the zygote stopped the run
// for passing its memory cap.
const exitMemory = 1

// watchMemory stops r once its processes together hold more than limit
// bytes, and marks it so the exit reply says why.
func (s *zserver) watchMemory(r *zrun, limit int64) {
	t := time.NewTicker(memPoll)
	defer t.Stop()
	if !pollMemory(t.C, r.over, limit, func() (int64, bool) { return sessionRSS(r.pid), true }) {
		return
	}
	s.mu.Lock()
	r.memOver = !r.done
	s.mu.Unlock()
	// No grace: every moment it keeps running it takes more.
	s.stopRun(r, 0)
}

var pageSize = int64(os.Getpagesize())

// sessionRSS is the resident memory, in bytes, of the processes in session
// sid.
func sessionRSS(sid int) int64 {
	var sum int64
	processes(func(pid int) bool {
		if sessionOf(pid) == sid {
			sum += residentBytes(pid)
		}
		return false
	})
	return sum
}

// residentBytes reads a process's resident set from /proc/PID/statm (its
// second field, in pages), or 0 when it is gone.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return n * pageSize
}

// watchHelperMemory is watchMemory for the per-command helper, whose one
// run is the session the shell at pid leads: past the cap it says so on
// the command's standard error and kills every descendant, which ends the
// helper's wait for the shell.
func watchHelperMemory(pid int, limit int64) {
	t := time.NewTicker(memPoll)
	defer t.Stop()
	over := pollMemory(t.C, nil, limit, func() (int64, bool) {
		if sessionOf(pid) != pid {
			return 0, false // the shell is gone
		}
		return sessionRSS(pid), true
	})
	if !over {
		return
	}
	os.Stderr.WriteString("\n" + MemoryCapNote(limit) + "\n")
	for deadline := time.Now().Add(giveUpAfter); time.Now().Before(deadline); time.Sleep(killRound) {
		signalDescendants(unix.SIGKILL)
	}
}

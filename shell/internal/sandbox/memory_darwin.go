//go:build darwin

package sandbox

import (
	"errors"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// On macOS no helper stays beside a sandboxed command, so Hark itself keeps
// the run-wide memory cap: every memPoll it reckons the run's members
// (runTree: the shell's process group, its descendants, and members seen
// before that left it) and adds up their physical footprint. It asks only
// about the run's own processes: proc_listpids for the group
// (PROC_PGRP_ONLY) and for each member's children (PROC_PPID_ONLY), and
// proc_pid_rusage(RUSAGE_INFO_V2) for each member's footprint and start
// time, all into buffers the watch keeps, so a long command costs a few
// calls per member per look and no garbage. These are libSystem's; purego
// calls them without cgo. Hark runs outside the sandbox, so the Seatbelt
// profile has no say in either call: it governs what the command may ask
// about others, not what others may ask about it.

const (
	procPGRPOnly = 2 // PROC_PGRP_ONLY in <sys/proc_info.h>
	procPPIDOnly = 6 // PROC_PPID_ONLY
)

// libproc holds the calls, or is nil where they could not be found
// (memoryErr says why).
var libproc, memoryErr = func() (*libprocCalls, error) {
	lib, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, err
	}
	var c libprocCalls
	for name, f := range map[string]any{"proc_listpids": &c.listpids, "proc_pid_rusage": &c.rusage} {
		sym, err := purego.Dlsym(lib, name)
		if err != nil {
			return nil, err
		}
		purego.RegisterFunc(f, sym)
	}
	if c.listpids == nil || c.rusage == nil {
		return nil, errors.New("libproc's calls are missing")
	}
	return &c, nil
}()

type libprocCalls struct {
	// int proc_listpids(uint32_t type, uint32_t typeinfo, void *buffer, int buffersize):
	// the bytes of pids written.
	listpids func(kind, arg uint32, buf unsafe.Pointer, size int32) int32
	// int proc_pid_rusage(int pid, int flavor, rusage_info_t *buffer): 0 or -1.
	rusage func(pid, flavor int32, buf unsafe.Pointer) int32
}

// darwinLister answers runTree's questions for one watch, in buffers it
// keeps between looks.
type darwinLister struct {
	pids []int32
	ri   rusageInfoV2
}

// list appends the pids proc_listpids reports for kind and arg to out,
// growing its buffer while the kernel fills all of it.
func (d *darwinLister) list(kind, arg uint32, out []int) []int {
	if len(d.pids) == 0 {
		d.pids = make([]int32, 64)
	}
	for {
		size := int32(len(d.pids) * 4)
		n := libproc.listpids(kind, arg, unsafe.Pointer(&d.pids[0]), size)
		if n <= 0 {
			return out
		}
		if n >= size && len(d.pids) < 1<<16 {
			d.pids = make([]int32, 2*len(d.pids))
			continue
		}
		for _, p := range d.pids[:n/4] {
			if p > 0 {
				out = append(out, int(p))
			}
		}
		return out
	}
}

func (d *darwinLister) usage(pid int) (int64, int64, procState) {
	if libproc.rusage(int32(pid), rusageFlavorV2, unsafe.Pointer(&d.ri)) == 0 {
		return rusageUsage(&d.ri)
	}
	// proc_pid_rusage wants the same effective user: a setuid program
	// such as ps or top refuses it yet is still the run's to stop, so it
	// is a member that counts as nothing.
	if errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
		return 0, 0, procGone
	}
	return 0, 0, procLive
}

func (d *darwinLister) runLister() runLister {
	return runLister{
		group:    func(pgid int, buf []int) []int { return d.list(procPGRPOnly, uint32(pgid), buf) },
		children: func(pid int, buf []int) []int { return d.list(procPPIDOnly, uint32(pid), buf) },
		usage:    d.usage,
	}
}

// WatchMemory keeps the memory cap of limit bytes on the run whose shell,
// pid, leads its own process group: past it the run's processes are
// killed. end stops watching and reports whether the cap stopped the run;
// call it once the shell has been waited for.
func WatchMemory(pid int, limit int64) (end func() bool) {
	if libproc == nil {
		return func() bool { return false }
	}
	var d darwinLister
	return watchRun(pid, limit, runWatch{
		list: d.runLister(),
		kill: func(pid int) { _ = unix.Kill(pid, unix.SIGKILL) },
	})
}

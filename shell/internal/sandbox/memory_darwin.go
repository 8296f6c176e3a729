//go:build darwin

package sandbox

import (
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// On macOS no helper stays beside a sandboxed command, so Hark itself keeps
// the run-wide memory cap: every memPoll it lists the process table
// (sysctl kern.proc.all), reckons the run's members (runSet: the shell's
// process group, its descendants, and members seen before that left it)
// and adds up their resident size from proc_pidinfo(PROC_PIDTASKINFO), the
// call ps and top use. proc_pidinfo is in libSystem; purego calls it
// without cgo. Hark runs outside the sandbox, so the Seatbelt profile has
// no say in either call: it governs what the command may ask about others,
// not what others may ask about it.

const procPIDTaskInfo = 4 // PROC_PIDTASKINFO in <sys/proc_info.h>

// procPidinfo is libSystem's proc_pidinfo, or nil where it could not be
// found (memoryErr says why).
var procPidinfo, memoryErr = func() (func(pid, flavor int32, arg uint64, buf unsafe.Pointer, size int32) int32, error) {
	lib, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, err
	}
	sym, err := purego.Dlsym(lib, "proc_pidinfo")
	if err != nil {
		return nil, err
	}
	var f func(pid, flavor int32, arg uint64, buf unsafe.Pointer, size int32) int32
	purego.RegisterFunc(&f, sym)
	return f, nil
}()

// residentBytes is a process's resident size, or 0 when it is gone or
// cannot be read.
func residentBytes(pid int) int64 {
	if procPidinfo == nil {
		return 0
	}
	var buf [sizeofTaskInfo]byte
	n := procPidinfo(int32(pid), procPIDTaskInfo, 0, unsafe.Pointer(&buf[0]), sizeofTaskInfo)
	rss, _ := taskResident(buf[:], int(n))
	return rss
}

// processTable lists every process, or nil if the table cannot be read.
func processTable() []proc {
	kp, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]proc, 0, len(kp))
	for i := range kp {
		p := &kp[i]
		out = append(out, proc{
			pid:    int(p.Proc.P_pid),
			ppid:   int(p.Eproc.Ppid),
			pgid:   int(p.Eproc.Pgid),
			start:  p.Proc.P_starttime.Sec*1_000_000 + int64(p.Proc.P_starttime.Usec),
			zombie: p.Proc.P_stat == 5, // SZOMB
		})
	}
	return out
}

// WatchMemory keeps the memory cap of limit bytes on the run whose shell,
// pid, leads its own process group: past it the run's processes are
// killed. end stops watching and reports whether the cap stopped the run;
// call it once the shell has been waited for.
func WatchMemory(pid int, limit int64) (end func() bool) {
	if procPidinfo == nil {
		return func() bool { return false }
	}
	return watchRun(pid, limit, runWatch{
		table:    processTable,
		resident: residentBytes,
		kill:     func(pid int) { _ = unix.Kill(pid, unix.SIGKILL) },
	})
}

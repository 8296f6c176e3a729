//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (Linux 5.11), which
// golang.org/x/sys does not name.
const closeRangeCloexec = 1 << 2

// HardenProcess is called once at the start of Hark and of its command
// runners. Every descriptor above from that the process inherited is
// marked close-on-exec, so none reaches a command (a socket left open by
// whatever started Hark would otherwise be usable by every command). The
// process is also made non-dumpable: no core file with its secrets, and its
// /proc files (environ, maps, mem, fd) are closed to other processes of the
// same user unless they hold CAP_SYS_PTRACE, which no command does.
func HardenProcess(from int) {
	if unix.CloseRange(uint(from), ^uint(0), closeRangeCloexec) != nil {
		for fd := from; fd < 1024; fd++ { // kernels before 5.11
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

//go:build darwin

package sandbox

import (
	"os"

	"github.com/hark-sh/hark/shell/scope"
)

// Status reports whether sandbox-exec, the command-line face of the macOS
// sandbox (Seatbelt), is present. It has been on every macOS release since
// 10.5. The profile itself is only compiled when a command runs: a profile
// this macOS refused would fail that command, never run it unconfined.
func Status() (bool, string) {
	if !isExecutable(sandboxExec) {
		return false, sandboxExec + " is missing; commands run unconfined"
	}
	detail := "sandbox-exec (Seatbelt), deny by default: reads anywhere, writes only its own temp folder, no network, few system services; ps and top run unconfined"
	if memoryErr != nil {
		detail += "; no memory cap for a command's processes together (libproc: " + memoryErr.Error() + ")"
	}
	return true, detail
}

// CanConfine is true: sandbox-exec needs no helper.
func CanConfine(string) bool { return true }

// Wrap wraps argv in sandbox-exec when readOnly; there is no helper on
// macOS, so helper is ignored and the result never reports on fd 3.
// sandbox-exec applies seatbeltProfile (seatbelt.go) and execs the shell,
// so the process group and its signals work exactly as without it; Hark
// sends its signals from outside the sandbox, where the profile's
// same-sandbox rule does not apply. TMPDIR is the only writable folder the
// profile knows, and the Runner's environment points TMPDIR and zsh's
// TMPPREFIX into it. macOS has no child subreaper: descendants that leave
// the process group are beyond reach, the sandbox still confines them.
// Seatbelt keeps no account of memory and no helper stays beside the
// command, so the Runner keeps the run-wide memory cap from outside with
// WatchMemory (memory_darwin.go); memLimit is not needed here. Each path of
// hide that exists is refused to the command by its real path (see
// seatbeltHiding).
func Wrap(_ string, argv []string, readOnly bool, tmpDir string, _, _ int64, hide []string, sc *scope.Scope) ([]string, bool) {
	if !readOnly {
		return argv, false
	}
	a := SeatbeltArgs(tmpDir, hide, sc)
	return append(a, argv...), false
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// NeedsMounts is false: Seatbelt keeps a place inside a writable one by a
// later deny rule (seatbeltScope).
func NeedsMounts(*scope.Scope, []string) bool { return false }

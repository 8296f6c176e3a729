//go:build darwin

package shell

const sandboxExec = "/usr/bin/sandbox-exec"

// SandboxStatus reports whether sandbox-exec, the command-line face of the
// macOS sandbox (Seatbelt), is present. It has been on every macOS release
// since 10.5. The profile itself is only compiled when a command runs: a
// profile this macOS refused would fail that command, never run it
// unconfined.
func SandboxStatus() (bool, string) {
	if !isExecutable(sandboxExec) {
		return false, sandboxExec + " is missing; commands run unconfined"
	}
	return true, "sandbox-exec (Seatbelt), deny by default: reads anywhere, writes only its own temp folder, no network, few system services; ps and top run unconfined"
}

func (r *Runner) canSandbox() bool { return true }

// argv wraps the shell in sandbox-exec when sandboxed. sandbox-exec applies
// seatbeltProfile (sandbox_seatbelt.go) and execs the shell, so the process
// group and its signals work exactly as without it; Hark sends its signals
// from outside the sandbox, where the profile's same-sandbox rule does not
// apply. TMPDIR is the only writable folder the profile knows, and the
// environment points TMPDIR and zsh's TMPPREFIX into it (withTmpDir).
// macOS has no child subreaper: descendants that leave the process group are
// beyond reach, the sandbox still confines them.
func (r *Runner) argv(command string, sandboxed bool, tmpDir string) ([]string, bool) {
	shellArgv := []string{r.shell, "-c", command}
	if !sandboxed {
		return shellArgv, false
	}
	return append([]string{sandboxExec, "-p", seatbeltProfile, "-D", "TMPDIR=" + tmpDir}, shellArgv...), false
}

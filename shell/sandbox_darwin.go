//go:build darwin

package shell

const sandboxExec = "/usr/bin/sandbox-exec"

// SandboxStatus reports whether sandbox-exec, the command-line face of the
// macOS sandbox, is present. It has been on every macOS release since 10.5.
func SandboxStatus() (bool, string) {
	if !isExecutable(sandboxExec) {
		return false, sandboxExec + " is missing; commands run unconfined"
	}
	return true, "sandbox-exec (Seatbelt): read-only files, no network"
}

func (r *Runner) canSandbox() bool { return true }

// argv wraps the shell in sandbox-exec when sandboxed. sandbox-exec applies
// the profile and execs the shell, so the process group and its signals work
// exactly as without it. macOS has no child subreaper: descendants that leave
// the process group are beyond reach, the sandbox still confines them.
func (r *Runner) argv(command string, sandboxed bool, tmpDir string) ([]string, bool) {
	shellArgv := []string{r.shell, "-c", command}
	if !sandboxed {
		return shellArgv, false
	}
	return append([]string{sandboxExec, "-p", seatbeltProfile, "-D", "TMPDIR=" + tmpDir}, shellArgv...), false
}

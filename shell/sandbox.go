package shell

import (
	"context"
	"io"
	"os"

	"github.com/hark-sh/hark/shell/internal/sandbox"
	"github.com/hark-sh/hark/shell/scope"
)

// The sandbox's mechanics live in package sandbox; these are the names
// that Hark's entry points and `hark doctor` use.

// HelperCommand is the hidden first argument that selects the sandbox
// helper: the Runner re-executes Hark (RunnerOptions.HelperPath) as `hark
// __sandbox …`, so main, and every test binary that runs commands, must
// dispatch it to SandboxHelperMain.
const HelperCommand = sandbox.HelperCommand

// helperEnv marks the environment of the helper and the zygote; see
// sandbox.HelperEnv.
const helperEnv = sandbox.HelperEnv

// SandboxHelperMain is the entry point of `hark __sandbox`; args are what
// follows that word. It returns the process's exit status.
func SandboxHelperMain(args []string) int { return sandbox.HelperMain(args) }

// SandboxStatus reports whether this OS's sandbox can confine commands, and
// how, in a sentence for `hark doctor`.
func SandboxStatus() (bool, string) { return sandbox.Status() }

// HardenProcess is called once at the start of Hark: every descriptor from
// from up that the process inherited is marked close-on-exec, so none
// reaches a command, and on Linux the process is made non-dumpable.
func HardenProcess(from int) { sandbox.HardenProcess(from) }

// zygoteDefault says whether Linux runs commands through the long-lived
// zygote rather than a helper process per command.
var zygoteDefault = true

// helperPath is the helper the Runner starts commands with, or "" when it
// starts the shell itself.
func (r *Runner) helperPath() string {
	if r.direct {
		return ""
	}
	return r.helper
}

// canSandbox says whether this Runner can apply the OS sandbox; on Linux
// that takes the helper.
func (r *Runner) canSandbox() bool { return sandbox.CanConfine(r.helperPath()) }

// argv is the command line that runs command, wrapped in the helper or in
// the OS sandbox as the OS needs, and whether it is the helper's.
func (r *Runner) argv(command string, sandboxed bool, tmpDir string, hide []string, sc *scope.Scope, disk, mem int64) ([]string, bool) {
	return sandbox.Wrap(r.helperPath(), []string{r.shell, "-c", command}, sandboxed, tmpDir, mem, disk, hide, sc)
}

// runZygote runs the command in the zygote. ok is false when the request
// never reached one (no zygote on this OS, or none could start), so the
// caller can start the command itself.
func (r *Runner) runZygote(ctx context.Context, spec sandbox.Spec, stdout, stderr io.Writer) (sandbox.Outcome, bool) {
	if r.helper == "" || r.direct || r.perCommand || !zygoteDefault {
		return sandbox.Outcome{}, false
	}
	get := sandbox.ZygoteFor
	if spec.Mounts {
		get = sandbox.MountsZygoteFor // as root the same one
	}
	z, err := get(r.helper, zygoteEnviron)
	if err != nil {
		return sandbox.Outcome{}, false
	}
	return z.Run(ctx, spec, stdout, stderr)
}

// zygoteEnviron is the environment a new zygote starts with.
func zygoteEnviron() []string { return zygoteEnv(os.Environ()) }

//go:build !linux && !darwin

package shell

import "runtime"

// SandboxStatus reports that this OS has no sandbox Hark can use.
func SandboxStatus() (bool, string) {
	return false, "no sandbox on " + runtime.GOOS + "; commands run unconfined"
}

func (r *Runner) canSandbox() bool { return false }

func (r *Runner) argv(command string, _ bool, _ string) ([]string, bool) {
	return []string{r.shell, "-c", command}, false
}

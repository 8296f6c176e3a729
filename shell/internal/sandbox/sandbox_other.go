//go:build !linux && !darwin

package sandbox

import (
	"runtime"

	"github.com/hark-sh/hark/shell/scope"
)

// Status reports that this OS has no sandbox Hark can use.
func Status() (bool, string) {
	return false, "no sandbox on " + runtime.GOOS + "; commands run unconfined"
}

// CanConfine is false: there is nothing to confine with.
func CanConfine(string) bool { return false }

// Wrap returns argv as it is: commands start directly.
func Wrap(_ string, argv []string, _ bool, _ string, _, _ int64, _ []string, _ *scope.Scope) ([]string, bool) {
	return argv, false
}

// NeedsMounts is false: no helper holds mounts here.
func NeedsMounts(*scope.Scope, []string) bool { return false }

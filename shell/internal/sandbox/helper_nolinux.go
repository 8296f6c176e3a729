//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/hark-sh/hark/shell/scope"
)

// HelperMain is the entry point of `hark __sandbox`. Only Linux uses the
// helper; elsewhere the OS sandbox wraps the shell directly.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "hark %s: the sandbox helper is only used on Linux, not %s\n", HelperCommand, runtime.GOOS)
	return 2
}

// MountsRuleset is Linux's: no helper holds mounts elsewhere (NeedsMounts
// is false), so this is never called.
func MountsRuleset(string, []string, *scope.Scope) (*os.File, uint32, error) {
	return nil, 0, errors.New("a ruleset for a helper with mounts is Linux's")
}

// ZygoteMounts is false: there is no zygote here.
func ZygoteMounts() bool { return false }

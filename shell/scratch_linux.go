//go:build linux

package shell

import (
	"os"

	"github.com/hark-sh/hark/shell/internal/sandbox"
)

// scratchDetail says, for `hark doctor`, how a sandboxed command's disk
// quota holds here: a file system of the quota's size per run, or the
// disk watch alone (see docs/safety.md).
func scratchDetail() string {
	exe, err := os.Executable()
	how := ""
	if err == nil {
		how = sandbox.ScratchAvailable(exe)
	}
	if how == "" {
		return "; disk quota watched every 50 ms (no mount or user namespace here for a scratch file system of its own)"
	}
	return "; each run's temporary folder is a file system of the disk quota's size, made in " + how
}

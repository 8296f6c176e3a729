//go:build !linux

package shell

import (
	"context"
	"io"
)

// Only Linux has the zygote; elsewhere commands start directly.
type zygoteSpec struct {
	argv     []string
	dir      string
	env      []string
	readOnly bool
	tmpDir   string
}

func (r *Runner) runZygote(context.Context, zygoteSpec, io.Writer, io.Writer) (outcome, bool) {
	return outcome{}, false
}

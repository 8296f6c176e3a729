package shell

import (
	"errors"
	"fmt"
)

// The sandbox helper is Hark's own executable started as
// `hark __sandbox [-ro -tmp DIR] -- SHELL -c COMMAND`, the per-command form
// that Linux falls back to when the long-lived zygote (`hark __sandbox
// -server`, see serveZygote) cannot start. On Linux it stays the
// command's parent: it confines the command with Landlock when asked, and as
// a child subreaper it collects every descendant that leaves the process
// group, so that it can stop them all. It reports on fd 3 whether it started
// the command, so that a failure to confine is never mistaken for the
// command's own exit status.
const (
	// HelperCommand is the hidden first argument that selects the helper.
	HelperCommand   = "__sandbox"
	helperOK        = "ok"
	helperErrPrefix = "error: "
	helperStatusFD  = 3
	// helperEnv marks the helper's own environment. A Runner created inside a
	// process that carries it does not start helpers: that only happens when
	// an executable without the entry point (a test binary that forgot to
	// dispatch HelperCommand) was started as the helper, and it must not
	// recurse. The helper removes it before starting the shell.
	helperEnv = "HARK_SANDBOX_HELPER"
)

type helperArgs struct {
	readOnly bool
	tmpDir   string
	argv     []string // the shell and its arguments
}

func parseHelperArgs(args []string) (helperArgs, error) {
	var h helperArgs
	for len(args) > 0 {
		switch a := args[0]; a {
		case "-ro":
			h.readOnly = true
			args = args[1:]
		case "-tmp":
			if len(args) < 2 {
				return h, errors.New("-tmp needs a folder")
			}
			h.tmpDir, args = args[1], args[2:]
		case "--":
			h.argv = args[1:]
			args = nil
		default:
			return h, fmt.Errorf("unknown argument %q (this entry point is internal to hark exec)", a)
		}
	}
	switch {
	case len(h.argv) == 0:
		return h, errors.New("no command after --")
	case h.readOnly && h.tmpDir == "":
		return h, errors.New("-ro needs -tmp DIR, the only writable folder")
	}
	return h, nil
}

// zygoteDefault says whether Linux runs commands through the long-lived
// zygote (see serveZygote) rather than a helper process per command.
var zygoteDefault = true

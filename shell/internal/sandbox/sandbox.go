// Package sandbox confines and supervises the commands that package shell's
// Runner starts: on Linux the helper and the long-lived zygote that fork
// every command and confine the sandboxed ones between fork and exec
// (Landlock, seccomp, no capabilities), on macOS the Seatbelt profile that
// sandbox-exec applies. Each OS's files define the same functions, so the
// Runner calls them without build tags of its own.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hark-sh/hark/shell/scope"
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
	HelperCommand = "__sandbox"
	// HelperOK, on fd 3, says the helper started the command; a line with
	// HelperErrPrefix says why it did not.
	HelperOK        = "ok"
	HelperErrPrefix = "error: "
	helperStatusFD  = 3
	// HelperEnv marks the helper's own environment. A Runner created inside a
	// process that carries it does not start helpers: that only happens when
	// an executable without the entry point (a test binary that forgot to
	// dispatch HelperCommand) was started as the helper, and it must not
	// recurse. The helper removes it before starting the shell.
	HelperEnv = "HARK_SANDBOX_HELPER"
)

// Timings the Runner and the helper share: the helper must have stopped
// everything before the Runner's own backstop (KillGrace + 1 s after its
// SIGTERM) would kill the helper itself.
const (
	// KillGrace is how long a stopped command gets between SIGTERM and SIGKILL.
	KillGrace = 2 * time.Second
	// PipeGrace bounds how long a run waits for output after the command has
	// exited, when a background job it left behind still holds the pipes.
	PipeGrace = time.Second
)

// ReadOnlyFileLimit is how many descriptors each process of a read-only
// run may hold (RLIMIT_NOFILE, soft and hard): what most systems give a
// program by default, and what find, rg, grep, git and make run well
// under. It bounds the kernel memory a run can hold where no process shows
// it (socket and pipe buffers, descriptors in flight), which the memory
// cap counts only for what a process holds. An approved run keeps the
// user's own limit: it has no memory cap, and a build may need more.
const ReadOnlyFileLimit = 1024

// Spec is one command to run: argv in dir with env, and with ReadOnly the
// read-only, no-network sandbox whose only writable folder is TmpDir.
type Spec struct {
	Argv     []string
	Dir      string
	Env      []string
	ReadOnly bool
	TmpDir   string
	// MemoryLimit caps the resident memory of all the processes of a
	// sandboxed run together, in bytes; 0 is no cap (see memory.go).
	MemoryLimit int64
	// DiskLimit is a sandboxed run's disk quota, in bytes; 0 is none. No
	// file it writes can be larger, and where the run can have a scratch
	// file system of its own (see scratch_linux.go) that file system is
	// this large. The runner's disk watch stays the fallback.
	DiskLimit int64
	// Hide are files and folders a sandboxed run may not read at all, for
	// commands run on behalf of another program: the user's keys and
	// credentials. Paths that do not exist are ignored. See hideRules
	// (Linux) and seatbeltHiding (macOS).
	Hide []string
	// DirFile, when set, is the folder Dir names, held open since the user
	// approved the command: the command starts in it, whatever Dir leads
	// to by then (see shell.DirPin), and only while Dir, every link in it
	// resolved, still leads there following none: else Outcome.Err starts
	// with PlaceChanged.
	DirFile *os.File
	// Mounts, with Scope, holds the scope's kept and hidden places that
	// lie inside its writable ones by mounts in a mount namespace of the
	// run's own (NeedsMounts). On Linux only the zygote that runs as root
	// can (ZygoteMounts); Zygote.Run answers ok false where it cannot, for
	// the per-command helper to hold them.
	Mounts bool
	// Scope, with ReadOnly, is what an approved run may change and reach
	// beyond TmpDir: the places it may write (less those it must keep),
	// the network, local sockets, signals. Nil or empty is the read-only
	// sandbox. See scopeRules (Linux) and seatbeltScope (macOS).
	Scope *scope.Scope
}

// scoped reports whether the run is an approved one, held to its scope
// (which may name no place: chmod, touch of what exists), rather than
// the read-only sandbox.
func (s Spec) scoped() bool { return s.Scope != nil }

// PlaceChanged begins Outcome.Err when a command did not start because
// its approved folder (Spec.DirFile) was no longer where it was approved;
// the rest says how.
const PlaceChanged = "the approved folder moved before the command started: "

// Outcome is what became of a command.
type Outcome struct {
	Started  bool
	Err      string // why it did not start
	ExitCode int
	Stopped  bool   // the run's context ended first and the command was stopped
	Note     string // Hark's remark on a run that ended abnormally
	// MemoryCapped says the run was stopped because its processes together
	// passed Spec.MemoryLimit.
	MemoryCapped bool
}

// MemoryCapNote is Hark's remark on a run stopped for passing its memory
// cap of limit bytes, for the Result the model reads.
func MemoryCapNote(limit int64) string {
	return fmt.Sprintf("hark: stopped: the memory cap was reached: the command's processes together held more than %d MiB; a read-only command should not need that much, so narrow it down (or run it as a command you approve)", limit>>20)
}

type helperArgs struct {
	readOnly  bool
	tmpDir    string
	memLimit  int64    // bytes; 0 for no cap
	diskLimit int64    // bytes; 0 for none (Spec.DiskLimit)
	hide      []string // paths the command may not read (Spec.Hide)
	scope     scope.Scope
	scoped    bool     // an approved run, held to scope (ScopedArg)
	mounts    bool     // started in a mount namespace of its own (MountsArg)
	ruleset   bool     // fd 4 is the run's Landlock ruleset, built by the runner (RulesetArg)
	rulesFlag uint32   // its landlock_restrict_self flags
	pin       string   // where the folder it was started in was approved (PinArg)
	argv      []string // the shell and its arguments
}

// MountsArg tells the helper that the runner started it in a mount
// namespace of its own for this run (see HoldMounts, Linux), where it
// holds the kept places of a scope read-only by bind mounts.
const MountsArg = "-mounts"

// RulesetArg, with the landlock_restrict_self flags, says the helper's
// fd 4 is the Landlock ruleset of its run with mounts, built by the
// runner (see MountsRuleset, Linux): the runner keeps it between runs,
// where a helper, a new process each run, would build it afresh.
const RulesetArg = "-ruleset"

// RulesetFD is the helper's descriptor of the ruleset (RulesetArg).
const RulesetFD = helperStatusFD + 1

// ScopedArg marks an approved run: held to the scope that the arguments
// after it give, rather than the read-only sandbox.
const ScopedArg = "-scoped"

// PinArg, with a path, says the helper was started in a folder approved
// at that path (every link resolved): it starts the command there only
// while the path still leads to it following no link (see placeMoved).
const PinArg = "-pin"

// WithPin adds PinArg and path to the helper's command line argv (as
// Wrap made it); other command lines are returned as they are.
func WithPin(argv []string, path string) []string {
	if len(argv) < 2 || argv[1] != HelperCommand {
		return argv
	}
	return append([]string{argv[0], argv[1], PinArg, path}, argv[2:]...)
}

// scopeArgs are the helper's arguments for sc (see parseHelperArgs).
func scopeArgs(sc *scope.Scope) []string {
	if sc == nil {
		return nil
	}
	a := []string{ScopedArg}
	for _, p := range sc.Write {
		a = append(a, "-write", p)
	}
	for _, p := range sc.Remove {
		a = append(a, "-remove", p)
	}
	for _, p := range sc.Keep {
		a = append(a, "-keep", p)
	}
	for _, p := range sc.NoRemove {
		a = append(a, "-noremove", p)
	}
	if sc.Network {
		a = append(a, "-net")
	}
	if sc.Agent {
		a = append(a, "-agent")
	}
	if sc.Signals {
		a = append(a, "-signals")
	}
	return a
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
		case "-mem":
			if len(args) < 2 {
				return h, errors.New("-mem needs a number of bytes")
			}
			n, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil || n <= 0 {
				return h, fmt.Errorf("-mem %q is not a number of bytes", args[1])
			}
			h.memLimit, args = n, args[2:]
		case "-disk":
			if len(args) < 2 {
				return h, errors.New("-disk needs a number of bytes")
			}
			n, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil || n <= 0 {
				return h, fmt.Errorf("-disk %q is not a number of bytes", args[1])
			}
			h.diskLimit, args = n, args[2:]
		case PinArg:
			if len(args) < 2 || !filepath.IsAbs(args[1]) {
				return h, errors.New(PinArg + " needs an absolute path")
			}
			h.pin, args = args[1], args[2:]
		case "-hide", "-write", "-remove", "-keep", "-noremove":
			if len(args) < 2 {
				return h, errors.New(a + " needs a path")
			}
			list := map[string]*[]string{"-hide": &h.hide, "-write": &h.scope.Write, "-remove": &h.scope.Remove, "-keep": &h.scope.Keep, "-noremove": &h.scope.NoRemove}[a]
			*list, args = append(*list, args[1]), args[2:]
		case MountsArg:
			h.mounts = true
			args = args[1:]
		case RulesetArg:
			if len(args) < 2 {
				return h, errors.New(RulesetArg + " needs its flags")
			}
			n, err := strconv.ParseUint(args[1], 10, 32)
			if err != nil {
				return h, fmt.Errorf(RulesetArg+" %q is not a number", args[1])
			}
			h.ruleset, h.rulesFlag, args = true, uint32(n), args[2:]
		case ScopedArg:
			h.scoped = true
			args = args[1:]
		case "-net", "-agent", "-signals":
			*map[string]*bool{"-net": &h.scope.Network, "-agent": &h.scope.Agent, "-signals": &h.scope.Signals}[a] = true
			args = args[1:]
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
	case len(h.hide) > 0 && !h.readOnly:
		return h, errors.New("-hide needs -ro: only the sandbox can hide files")
	case h.scoped && !h.readOnly:
		return h, errors.New("a scope needs -ro: only the sandbox can hold one")
	case h.ruleset && !(h.scoped && h.mounts):
		return h, errors.New(RulesetArg + " needs " + ScopedArg + " and " + MountsArg)
	}
	return h, nil
}

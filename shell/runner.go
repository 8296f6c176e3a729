package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/shell/internal/sandbox"
	"github.com/hark-sh/hark/shell/scope"
)

// Defaults for RunnerOptions' zero values.
const (
	DefaultTimeout = 30 * time.Second
	// DefaultDiskQuota is how much free disk space a sandboxed command may
	// use up before it is stopped (see watchDisk).
	DefaultDiskQuota = 2 << 30
	// DefaultMemoryLimit is how much memory all the processes of one
	// sandboxed command may hold together before it is stopped.
	DefaultMemoryLimit = 4 << 30
	// killGrace is how long a stopped command gets between SIGTERM and
	// SIGKILL; the helper and the zygote keep the same.
	killGrace = sandbox.KillGrace
	// pipeGrace bounds how long Run waits for output after the command has
	// exited, when a background job it left behind still holds the pipes.
	pipeGrace = sandbox.PipeGrace
)

// RunnerOptions configure a Runner. The zero value gives the defaults.
type RunnerOptions struct {
	Shell       string        // shell run as SHELL -c COMMAND; "" picks one for the OS (see defaultShell)
	Timeout     time.Duration // per command, unless the Request sets its own; 0 means DefaultTimeout
	OutputLimit int           // bytes kept of stdout and of stderr each; 0 means DefaultOutputLimit
	KeepEnv     []string      // secret-looking variables to pass through anyway, by exact name
	HelperPath  string        // the executable that serves HelperCommand; "" means os.Executable(), so test binaries must dispatch it in TestMain or init
	Home        string        // default and base for working directories; "" means the user's home
	Environ     []string      // the environment to derive the command's from; nil means os.Environ()
	DiskQuota   int64         // bytes of free disk a sandboxed command may use up; 0 means DefaultDiskQuota, negative means no bound
	MemoryLimit int64         // bytes of memory all processes of a sandboxed command may hold together; 0 means DefaultMemoryLimit, negative means no cap
}

// Request is one command to run.
type Request struct {
	Command          string
	WorkingDirectory string // "" is home; "~" and "~/x" expand; relative paths are under home
	Purpose          string // what the caller says the command is for; reported, never trusted
	Verdict          Verdict
	Sandbox          SandboxMode   // "" means SandboxAuto
	Timeout          time.Duration // 0 means the Runner's
	// Hide are files and folders a sandboxed run may not read at all, not
	// even through a symbolic link: the user's keys and credentials, for a
	// command run on behalf of another program. It applies only when the
	// command runs in the sandbox; paths that do not exist are ignored. On
	// Linux the folders around them are listed as the run starts, and an
	// entry created there afterwards cannot be read by that run.
	Hide []string
	// OnOutput, when set, is called each time the command writes to stdout
	// or stderr, so a caller can tell a silent command from a busy one. It
	// must return quickly.
	OnOutput func()
	// Pin, when set, is the folder as it was checked and approved (see
	// PinDir): the command runs in that folder or not at all.
	Pin *DirPin
	// Scope is what a command that is not read-only may change and reach,
	// as its approval showed it (see package scope); under SandboxAuto the
	// kernel holds the run to it. Nil: no scope (see SandboxAuto).
	Scope *scope.Scope
}

// Runner runs shell commands carefully: each in its own process group with a
// timeout that stops everything the command started, bounded output capture,
// a non-interactive environment without secrets, and the OS sandbox for
// commands that should only read. It is safe for concurrent use.
type Runner struct {
	shell       string
	timeout     time.Duration
	outputLimit int
	diskQuota   int64
	memoryLimit int64
	keepEnv     []string
	helper      string // "" when no helper executable could be found
	home        string
	environ     []string
	baseEnv     []string // commandEnv of environ without TMPDIR, built once: it never changes
	sandboxBase []string // baseEnv cut down for sandboxed runs (see sandboxBase), built once too

	// probe reports whether the OS sandbox can be applied; tests replace it
	// to take the "unavailable" path on a machine that has a sandbox.
	probe func() (bool, string)
	// direct runs the shell without the helper process even where one is
	// used by default, which is how macOS always runs; tests use it to cover
	// that path on Linux.
	direct bool
	// perCommand starts a helper process per command instead of using the
	// long-lived zygote; the fallback when no zygote can start, and what
	// tests and the benchmark compare against.
	perCommand bool
	// pinChecked, when set, is called for a request with a pinned folder
	// once the runner has made every check of the folder it makes before
	// the process that starts the command takes over (the zygote, the
	// helper), or just before its own last check where it starts the
	// command itself: where tests move the folder, as another process
	// could.
	pinChecked func()
}

// NewRunner returns a Runner with o's zero values replaced by defaults.
func NewRunner(o RunnerOptions) *Runner {
	r := &Runner{
		shell:       o.Shell,
		timeout:     o.Timeout,
		outputLimit: o.OutputLimit,
		diskQuota:   o.DiskQuota,
		memoryLimit: o.MemoryLimit,
		keepEnv:     o.KeepEnv,
		helper:      o.HelperPath,
		home:        o.Home,
		environ:     o.Environ,
		probe:       SandboxStatus,
	}
	if r.environ == nil {
		r.environ = os.Environ()
	}
	if r.shell == "" {
		r.shell = defaultShell(runtime.GOOS, lookupEnv(r.environ, "SHELL"), isExecutable)
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.outputLimit <= 0 {
		r.outputLimit = DefaultOutputLimit
	}
	if r.diskQuota == 0 {
		r.diskQuota = DefaultDiskQuota
	}
	if r.memoryLimit == 0 {
		r.memoryLimit = DefaultMemoryLimit
	}
	if r.home == "" {
		r.home, _ = os.UserHomeDir()
	}
	r.baseEnv = commandEnv(envConfig{goos: runtime.GOOS, environ: r.environ, keep: r.keepEnv, home: r.home})
	r.sandboxBase = sandboxBase(r.baseEnv, r.keepEnv)
	switch {
	case os.Getenv(helperEnv) != "":
		r.helper = ""
	case r.helper == "":
		r.helper, _ = os.Executable()
	}
	return r
}

// NotRun is the Result for a request that Hark decided not to run: refused by
// the policy, declined by the user, or impossible to start. why is the whole
// explanation the model or the user will read.
func NotRun(req Request, why string) Result {
	return Result{
		Command:          req.Command,
		WorkingDirectory: req.WorkingDirectory,
		Purpose:          req.Purpose,
		Tier:             req.Verdict.Tier,
		Reasons:          req.Verdict.Reasons,
		Error:            why,
		Sandbox:          SandboxNotApplied,
	}
}

// Run runs req.Command and reports what happened. It never runs a Forbidden
// verdict. The command's failure is data in the Result (exit code, stderr),
// not an error: the Result's Error is Hark's own message only when Executed
// is false.
func (r *Runner) Run(ctx context.Context, req Request) Result {
	start := time.Now()
	res := r.run(ctx, req)
	res.ExecutionTimeMs = time.Since(start).Milliseconds()
	return res
}

// placeChanged is the Result of a pinned request whose folder changed
// after approval, as why says.
func (r *Runner) placeChanged(req Request, why string) Result {
	named, _ := underHome(req.WorkingDirectory, r.home)
	return NotRun(req, "not run: the folder "+tildeHome(filepath.Clean(named), r.home)+" changed after the command was approved: "+why+". Nothing ran; ask for the command again to have it checked in the folder as it is now")
}

func (r *Runner) run(ctx context.Context, req Request) Result {
	if req.Verdict.Tier == Forbidden {
		return NotRun(req, "not run: the policy forbids this command ("+reasonText(req.Verdict.Reasons)+"); Hark never runs it, so suggest another way")
	}
	if strings.TrimSpace(req.Command) == "" {
		return NotRun(req, "not run: the command is empty; say which command to run")
	}
	if req.Pin != nil {
		// Before the path is looked at again: a pinned folder that is gone
		// or elsewhere changed after approval, whatever the path says now.
		if why := req.Pin.check(); why != "" {
			return r.placeChanged(req, why)
		}
	}
	dir, err := resolveDir(req.WorkingDirectory, r.home)
	if err != nil {
		return NotRun(req, "not run: "+err.Error())
	}
	req.WorkingDirectory = dir
	runDir := dir
	if req.Pin != nil {
		runDir = req.Pin.dirPath()
	}

	want := wantSandbox(req.Sandbox, req.Verdict.Tier) || req.Sandbox != SandboxOff && req.Scope != nil
	// A command that is not read-only is held to its scope: what its
	// approval showed it may change.
	var sc *scope.Scope
	if want && req.Sandbox != SandboxReadOnly && req.Verdict.Tier != Safe {
		sc = req.Scope
	}
	sandboxed, state := false, SandboxNotApplied
	if want {
		state = SandboxUnavailable
		osHasOne, detail := r.probe()
		switch {
		case osHasOne && r.canSandbox():
			sandboxed, state = true, SandboxApplied
			if sc != nil {
				state = SandboxScoped
			}
		case osHasOne:
			// The system has a sandbox, but this runner cannot reach the
			// helper that applies it: never run the command weaker instead.
			return NotRun(req, "not run: the sandbox could not be applied (Hark could not start its command helper); try again, and if it persists run `hark doctor`")
		case req.Sandbox == SandboxReadOnly:
			// Asked for by name: running it unconfined would break the
			// promise. In auto mode the policy already made safe commands
			// that could run code from their configuration ask.
			return NotRun(req, "not run: the read-only sandbox was asked for, but this system has none ("+detail+")")
		}
	}

	var tmpDir string
	if sandboxed {
		// A private, writable temp folder: many read-only tools still want
		// scratch space, and nothing else in the sandbox is writable.
		tmpDir, err = makeRunTemp()
		if err != nil {
			return NotRun(req, "not run: could not create the sandbox's temporary folder: "+err.Error()+"; check that $TMPDIR is writable")
		}
		defer removeRunTemp(tmpDir)
	}

	timeout := r.timeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var diskFull atomic.Bool
	if sandboxed && sc == nil && r.diskQuota > 0 {
		watchCtx, stop := context.WithCancel(runCtx)
		defer stop()
		defer watchDisk(tmpDir, r.diskQuota, diskPoll, func() { diskFull.Store(true); stop() })()
		runCtx = watchCtx
	}

	// A command that runs without the user's approval sees only the
	// allowlisted variables, sandbox or not.
	env := r.baseEnv
	switch {
	case sandboxed && sc != nil:
		// An approved command sees the variables an approved command
		// always saw, and its own temporary folder.
		env = scopedEnv(r.baseEnv, tmpDir)
	case sandboxed:
		env = sandboxEnv(r.sandboxBase, tmpDir)
	case want && sc == nil:
		env = r.sandboxBase
	}
	env = withDirs(env, dir)
	stdout, stderr := newCapture(r.outputLimit), newCapture(r.outputLimit)
	var outW, errW io.Writer = stdout, stderr
	if req.OnOutput != nil {
		outW, errW = activityWriter{stdout, req.OnOutput}, activityWriter{stderr, req.OnOutput}
	}
	spec := sandbox.Spec{Argv: []string{r.shell, "-c", req.Command}, Dir: dir, Env: env, ReadOnly: sandboxed, TmpDir: tmpDir}
	switch {
	case sandboxed && sc != nil:
		spec.Scope = sc
		spec.Hide = req.Hide
	case sandboxed:
		spec.MemoryLimit = max(r.memoryLimit, 0)
		spec.DiskLimit = max(r.diskQuota, 0)
		spec.Hide = req.Hide
	}
	if req.Pin != nil {
		spec.Dir, spec.DirFile = req.Pin.Path, req.Pin.file()
	}
	// A program's own cache that does not exist yet (the first go build,
	// npm install) is made, as it would make it, so that it can be
	// granted: it is on the card by name.
	if sandboxed && sc != nil {
		for p := range sc.Why {
			if _, err := os.Lstat(p); err != nil && ownPlace(p, r.home) {
				os.MkdirAll(p, 0o700)
			}
		}
	}
	// A kept place inside a writable one is held by a mount, which takes
	// a helper of the run's own (the zygote shares one mount namespace).
	mounts := sandboxed && sandbox.NeedsMounts(sc, spec.Hide)
	missing := missingKept(sc)
	var moveHook func()
	if req.Pin != nil {
		moveHook = r.pinChecked
	}
	out, ok := sandbox.Outcome{}, false
	if !mounts || sandbox.ZygoteMounts() {
		spec.Mounts = mounts
		if moveHook != nil && !r.direct && !r.perCommand {
			moveHook()
			moveHook = nil
		}
		out, ok = r.runZygote(runCtx, spec, outW, errW)
	}
	if !ok {
		argv, viaHelper := r.argv(req.Command, sandboxed, tmpDir, spec.Hide, spec.Scope, spec.DiskLimit, spec.MemoryLimit)
		if viaHelper && req.Pin != nil {
			argv = sandbox.WithPin(argv, req.Pin.Path)
		}
		p := process{argv: argv, dir: runDir, env: env, stdout: outW, stderr: errW, viaHelper: viaHelper, memLimit: spec.MemoryLimit, scratch: spec.DiskLimit > 0,
			mounts: mounts && viaHelper, pin: req.Pin, pinChecked: moveHook}
		if p.mounts && sandboxed && sc != nil {
			p.rules = func() (*os.File, uint32, error) { return sandbox.MountsRuleset(tmpDir, spec.Hide, spec.Scope) }
		}
		out = p.run(runCtx)
	}

	res := NotRun(req, "")
	res.Sandbox = state
	if sandboxed {
		res.Scope = sc
	}
	if why, moved := strings.CutPrefix(out.Err, sandbox.PlaceChanged); !out.Started && moved {
		return r.placeChanged(req, why)
	}
	if !out.Started {
		res.Error = "not run: " + out.Err
		if errText, _ := stderr.String(); errText != "" {
			res.Error += "\n" + errText
		}
		return res
	}
	res.Executed = true
	res.ExitCode = out.ExitCode
	var cutOut, cutErr bool
	res.Output, cutOut = stdout.String()
	res.Error, cutErr = stderr.String()
	res.Truncated = cutOut || cutErr
	if out.Note != "" {
		res.Error = appendNote(res.Error, out.Note)
	}
	if out.MemoryCapped {
		res.Error = appendNote(res.Error, sandbox.MemoryCapNote(r.memoryLimit))
	}
	for _, k := range madeKept(missing) {
		res.Error = appendNote(res.Error, "hark: this run made "+tildeHome(k, r.home)+", which runs code when you log in or start a program, and the command did not name it: look at it before you open a new shell")
	}
	switch {
	case !out.Stopped: // finished on its own, even if a deadline passed since
	case diskFull.Load():
		res.Error = appendNote(res.Error, fmt.Sprintf("hark: stopped: the disk lost more than %d MiB while the command ran, and a read-only command only needs scratch space; write large files with a command you approve", r.diskQuota>>20))
	case ctx.Err() == nil:
		res.TimedOut = true
		res.Error = appendNote(res.Error, fmt.Sprintf("hark: timed out after %s; the command and everything it started were stopped", timeout))
	default:
		res.Error = appendNote(res.Error, "hark: cancelled; the command and everything it started were stopped")
	}
	res.Success = res.ExitCode == 0 && !out.Stopped && !out.MemoryCapped
	return res
}

// activityWriter reports every write before passing it on.
type activityWriter struct {
	w  io.Writer
	on func()
}

func (a activityWriter) Write(p []byte) (int, error) {
	a.on()
	return a.w.Write(p)
}

func appendNote(text, note string) string {
	if text == "" || strings.HasSuffix(text, "\n") {
		return text + note
	}
	return text + "\n" + note
}

func reasonText(rs []Reason) string {
	if len(rs) == 0 {
		return "no reason given"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Why
	}
	return strings.Join(parts, "; ")
}

// wantSandbox says whether a request asks for the sandbox.
func wantSandbox(mode SandboxMode, tier Tier) bool {
	switch mode {
	case SandboxReadOnly:
		return true
	case SandboxOff:
		return false
	default: // SandboxAuto and "": the safe tier; others by their scope (Request.Scope)
		return tier == Safe
	}
}

// ResolveDir is the folder a Request's WorkingDirectory names, as Run
// resolves it with home as the home folder, or why Run would refuse it.
func ResolveDir(dir, home string) (string, error) { return resolveDir(dir, home) }

// resolveDir turns a requested working directory into an absolute path to an
// existing directory: "" is home, "~" and "~/x" expand, and relative paths are
// taken under home (the app has no meaningful current directory of its own).
func resolveDir(dir, home string) (string, error) {
	dir, ok := underHome(dir, home)
	if !ok {
		return "", fmt.Errorf("working directory %q: ~user is not supported; give an absolute path or one under your home", dir)
	}
	if dir == "" {
		return "", errors.New("no working directory given and the home folder is unknown; give an absolute path")
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("working directory %s does not exist; choose an existing folder", dir)
	case err != nil:
		return "", fmt.Errorf("working directory %s cannot be used: %v", dir, err)
	case !fi.IsDir():
		return "", fmt.Errorf("working directory %s is a file, not a folder; choose its folder %s", dir, filepath.Dir(dir))
	}
	return dir, nil
}

// tildeHome writes dir under home as ~/x, for messages.
func tildeHome(dir, home string) string {
	h := filepath.Clean(home)
	switch {
	case home == "" || h == "/":
	case dir == h:
		return "~"
	case strings.HasPrefix(dir, h+string(filepath.Separator)):
		return "~" + dir[len(h):]
	}
	return dir
}

// underHome expands a working directory as commands see it: "" and "~" are
// home, "~/x" and relative paths are under home. ok is false for ~user.
func underHome(dir, home string) (string, bool) {
	switch {
	case dir == "" || dir == "~":
		return home, true
	case strings.HasPrefix(dir, "~/"):
		return filepath.Join(home, dir[2:]), true
	case strings.HasPrefix(dir, "~"):
		return dir, false
	case !filepath.IsAbs(dir):
		return filepath.Join(home, dir), true
	}
	return dir, true
}

// defaultShell picks the shell: zsh on macOS, where it is every user's login
// shell; on Linux the user's $SHELL when it is bash or zsh (their startup
// habits are what the model expects), else bash, else sh.
func defaultShell(goos, envShell string, exists func(string) bool) string {
	if goos == "darwin" {
		return "/bin/zsh"
	}
	if filepath.IsAbs(envShell) {
		if base := filepath.Base(envShell); (base == "bash" || base == "zsh") && exists(envShell) {
			return envShell
		}
	}
	if exists("/bin/bash") {
		return "/bin/bash"
	}
	return "/bin/sh"
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// makeRunTemp creates a run's private temporary folder, or reuses an empty
// one a finished run left (see removeRunTemp): creating and deleting a
// folder per command is, on ext4, one of the larger costs of a short
// sandboxed command. Its path has no symbolic links, because sandbox rules
// match real paths (on macOS $TMPDIR lives under /var, a link to
// /private/var); the base is resolved once per $TMPDIR value.
func makeRunTemp() (string, error) {
	base := realTempBase(os.TempDir())
	runTemps.mu.Lock()
	for len(runTemps.dirs) > 0 {
		dir := runTemps.dirs[len(runTemps.dirs)-1]
		runTemps.dirs = runTemps.dirs[:len(runTemps.dirs)-1]
		if filepath.Dir(dir) == base && reusableTemp(dir) {
			runTemps.mu.Unlock()
			return dir, nil
		}
		os.RemoveAll(dir)
	}
	runTemps.mu.Unlock()
	return os.MkdirTemp(base, "hark-run-")
}

// runTemps holds empty folders of finished runs for the next ones.
var runTemps struct {
	mu   sync.Mutex
	dirs []string
}

const maxRunTemps = 4

// reuseRunTemps is false on macOS: there a sandboxed process can outlive
// its run (setsid and a double fork leave the session; no cgroup holds
// them), and it keeps write access to its folder, so a folder handed to the
// next run would be shared with what the last one left running.
const reuseRunTemps = runtime.GOOS != "darwin"

var tempBases sync.Map // os.TempDir() → its real path

func realTempBase(base string) string {
	if real, ok := tempBases.Load(base); ok {
		return real.(string)
	}
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		return base // MkdirTemp reports the problem
	}
	tempBases.Store(base, real)
	return real
}

// removeRunTemp disposes of a run's temporary folder once every process of
// the run is gone. An empty folder with the mode and owner it was made with
// goes back to the pool: nothing of the run is left in it, and a sandboxed
// command can change neither mode, owner nor extended attributes. Anything
// else is removed.
func removeRunTemp(dir string) {
	if reuseRunTemps && reusableTemp(dir) {
		runTemps.mu.Lock()
		if len(runTemps.dirs) < maxRunTemps {
			runTemps.dirs = append(runTemps.dirs, dir)
			runTemps.mu.Unlock()
			return
		}
		runTemps.mu.Unlock()
	}
	if os.Remove(dir) != nil {
		os.RemoveAll(dir)
	}
}

// ReleaseTemps removes the empty temporary folders kept for the next runs.
// Call it once the process runs no more commands (hark's main does before
// it exits), or each process leaves one behind in $TMPDIR.
func ReleaseTemps() {
	runTemps.mu.Lock()
	dirs := runTemps.dirs
	runTemps.dirs = nil
	runTemps.mu.Unlock()
	for _, d := range dirs {
		if os.Remove(d) != nil {
			os.RemoveAll(d)
		}
	}
}

// reusableTemp reports whether dir is still an empty folder of this user's
// with mode 0700.
func reusableTemp(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ownedByMe(fi) {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

// ownPlace says whether a program's place that does not exist yet may be
// made for it: under home, or a folder of its own directly in /tmp or
// XDG_RUNTIME_DIR (pnpm's locks).
func ownPlace(p, home string) bool {
	if home != "" && strings.HasPrefix(p, filepath.Clean(home)+"/") {
		return true
	}
	d := filepath.Dir(p)
	return d == "/tmp" || filepath.IsAbs(d) && d == filepath.Clean(os.Getenv("XDG_RUNTIME_DIR"))
}

// process is one started command: the shell, or the helper that runs it.
type process struct {
	argv           []string
	dir            string
	env            []string
	stdout, stderr io.Writer
	viaHelper      bool // argv[0] is the sandbox helper, which reports on fd 3
	// memLimit is the run-wide memory cap of a sandboxed command, in bytes
	// (0: none). Where no helper stays beside the command to keep it
	// (macOS), run keeps it through sandbox.WatchMemory.
	memLimit int64
	// scratch asks for a helper in a mount namespace of its own, where it
	// can mount a scratch file system of the disk quota (Linux, as root).
	scratch bool
	// mounts asks for a helper in a mount namespace of its own (and a user
	// namespace for a user other than root) that holds the scope's kept
	// places by read-only mounts (sandbox.HoldMounts); where the kernel
	// refuses, the helper runs without and Landlock keeps them alone.
	mounts bool
	// pin, when set, is the folder dir holds: it must still be where it
	// was approved when the process starts (the helper looks again just
	// before it starts the command).
	pin        *DirPin
	pinChecked func() // Runner.pinChecked
	// rules, when set, builds the Landlock ruleset of a helper that holds
	// mounts (sandbox.MountsRuleset), which this process keeps between
	// runs; where it fails, the helper builds its own, and says why.
	rules func() (*os.File, uint32, error)
}

// run starts the process in its own process group and waits for it. When ctx
// ends, the group gets SIGTERM and, killGrace later, SIGKILL. The helper, when
// used, also stops descendants that left the group; the group SIGKILL comes a
// second after its own deadline, as a backstop should it be stuck.
func (p process) run(ctx context.Context) sandbox.Outcome {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdin = nil // /dev/null: nobody can answer a prompt
	cmd.Stdout = p.stdout
	cmd.Stderr = p.stderr
	cmd.WaitDelay = pipeGrace
	setProcessGroup(cmd)
	if p.viaHelper && p.scratch {
		ownMounts(cmd)
	}
	var rules *os.File
	if p.mounts && holdMounts(cmd) {
		extra := []string{sandbox.MountsArg}
		if p.rules != nil && p.viaHelper {
			if f, flags, err := p.rules(); err == nil {
				defer f.Close()
				rules = f
				extra = append(extra, sandbox.RulesetArg, strconv.FormatUint(uint64(flags), 10))
			}
		}
		cmd.Args = append(cmd.Args[:2:2], append(extra, cmd.Args[2:]...)...)
	}
	if p.viaHelper {
		dieWithHark(cmd, sigTerm) // the helper stops every descendant on it
	} else {
		dieWithHark(cmd, sigKill) // only the shell: nothing stays to stop the rest
	}
	defer lockThread()()

	var status, statusW *os.File
	if p.viaHelper {
		var err error
		if status, statusW, err = os.Pipe(); err != nil {
			return sandbox.Outcome{Err: "could not create a pipe: " + err.Error()}
		}
		defer status.Close()
		cmd.ExtraFiles = []*os.File{statusW} // fd 3 in the helper
		if rules != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, rules) // sandbox.RulesetFD
		}
		cmd.Env = append(slices.Clip(p.env), helperEnv+"=1")
	}
	if p.pinChecked != nil && !p.viaHelper {
		p.pinChecked()
	}
	if why := p.pin.Changed(); why != "" {
		if statusW != nil {
			statusW.Close()
		}
		return sandbox.Outcome{Err: sandbox.PlaceChanged + why}
	}
	if p.pinChecked != nil && p.viaHelper {
		p.pinChecked()
	}
	err := cmd.Start()
	if statusW != nil {
		statusW.Close() // only the helper may hold the write end, so EOF means it is done
	}
	if err != nil {
		return sandbox.Outcome{Err: fmt.Sprintf("could not start %s: %v", p.argv[0], err)}
	}
	pid := cmd.Process.Pid
	defer track(pid)()
	endMemory := func() bool { return false }
	if !p.viaHelper && p.memLimit > 0 {
		endMemory = sandbox.WatchMemory(pid, p.memLimit)
	}

	exited := make(chan struct{})
	var stopped atomic.Bool
	go func() {
		select {
		case <-exited:
			return
		case <-ctx.Done():
		}
		stopped.Store(true)
		signalGroup(pid, sigTerm)
		grace := killGrace
		if p.viaHelper {
			grace += time.Second
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-exited:
		case <-t.C:
			signalGroup(pid, sigKill)
		}
	}()

	var helperErr string
	if status != nil {
		msg, _ := io.ReadAll(io.LimitReader(status, 4096))
		msg = bytes.TrimSpace(msg)
		if !bytes.Equal(msg, []byte(sandbox.HelperOK)) {
			helperErr = strings.TrimPrefix(string(msg), sandbox.HelperErrPrefix)
			if helperErr == "" {
				helperErr = "the sandbox helper " + p.argv[0] + " stopped before starting the command"
			}
		}
	}
	waitErr := cmd.Wait()
	close(exited)
	memoryCapped := endMemory()
	if !p.viaHelper {
		// Background jobs still in the group outlive the shell; the command
		// is over, so they go too. The helper already did this itself.
		signalGroup(pid, sigKill)
	}
	if helperErr != "" {
		return sandbox.Outcome{Err: helperErr}
	}
	if cmd.ProcessState == nil {
		return sandbox.Outcome{Err: fmt.Sprintf("waiting for %s: %v", p.argv[0], waitErr)}
	}
	return sandbox.Outcome{Started: true, ExitCode: exitCode(cmd.ProcessState), Stopped: stopped.Load(), MemoryCapped: memoryCapped}
}

// missingKept are the kept files of sc inside its writable places that
// do not exist before the run. (A kept folder that does not exist is made
// empty and held; see sandbox's holdKept.)
func missingKept(sc *scope.Scope) []string {
	if sc == nil {
		return nil
	}
	var out []string
	for _, k := range sc.Keep {
		if strings.HasSuffix(k, "/") {
			continue
		}
		for _, w := range sc.Write {
			if scope.Under(k, w) {
				if _, err := os.Lstat(k); err != nil {
					out = append(out, k)
				}
				break
			}
		}
	}
	return out
}

// madeKept are those of missing that exist now: a kept place that no
// rule could keep from being made (see sandbox's holdKept).
func madeKept(missing []string) []string {
	var out []string
	for _, k := range missing {
		if _, err := os.Lstat(k); err == nil {
			out = append(out, k)
		}
	}
	return out
}

package preview

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/plan"
)

// HelperCommand is the hidden first argument that selects the preview
// helper: the Previewer re-executes Hark (Options.Executable) as `hark
// __preview DEADLINE COMMAND` inside the read-only sandbox, so main, and
// every test binary that computes previews, must dispatch it to HelperMain.
const HelperCommand = "__preview"

// DefaultTimeout bounds one preview, from asking to the answer: an
// approval must not wait for it.
const DefaultTimeout = 300 * time.Millisecond

// reserve is the part of the time bound kept back for the helper to print
// its answer and exit once it stops looking.
const reserve = 60 * time.Millisecond

// OutputLimit is the least output limit (shell.RunnerOptions.OutputLimit)
// a Runner given to a Previewer must keep, so the helper's answer is never
// cut: lines are clipped and counted, so it stays well below.
const OutputLimit = 64 << 10

// Options configure a Previewer.
type Options struct {
	// Runner runs the helper; it must be able to apply the read-only
	// sandbox (the preview is unavailable where it cannot), and keep at
	// least OutputLimit bytes of output. nil: a Runner with the defaults
	// and that limit.
	Runner *shell.Runner
	// Executable serves HelperCommand; "" means os.Executable().
	Executable string
	// Timeout bounds one preview; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Previewer computes previews inside the read-only sandbox: through a
// long-lived preview server where it can start one (see server.go), else
// by running the one-shot helper per preview. It is safe for concurrent
// use. Close ends its servers; one dropped without Close ends them when it
// is collected.
type Previewer struct {
	runner  *shell.Runner
	exe     string
	timeout time.Duration
	servers *servers
	// perRun always runs the one-shot helper: the benchmarks compare it.
	perRun bool
}

// New returns a Previewer; a nil Runner gets one with the default options.
func New(o Options) *Previewer {
	p := &Previewer{runner: o.Runner, exe: o.Executable, timeout: o.Timeout, servers: &servers{}}
	runtime.AddCleanup(p, (*servers).close, p.servers)
	if p.runner == nil {
		p.runner = shell.NewRunner(shell.RunnerOptions{OutputLimit: OutputLimit})
	}
	if p.exe == "" {
		p.exe, _ = os.Executable()
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	return p
}

// Preview says what command, run in workingDirectory (as shell.Request
// takes it: "" is home), would touch. It returns nil when the command does
// nothing a preview covers (no deletions, moves, copies, writes or
// permission changes), and a Preview with Status Unavailable when the
// helper could not answer within the time bound.
func (p *Previewer) Preview(ctx context.Context, command, workingDirectory string) *Preview {
	if !Wants(command) {
		return nil
	}
	if p.exe == "" {
		return unavailable("Hark could not find its own program to look with; check the targets yourself")
	}
	start := time.Now()
	deadline := start.Add(p.timeout - reserve)
	if p.timeout <= 2*reserve {
		deadline = start.Add(p.timeout / 2)
	}
	if !p.perRun {
		if pv, done := p.viaServer(ctx, command, workingDirectory, deadline, start.Add(p.timeout)); done {
			return pv
		}
	}
	timeout := p.timeout - time.Since(start)
	if timeout <= 0 {
		return p.tookTooLong()
	}
	line := "exec " + quote(p.exe) + " " + HelperCommand + " " + strconv.FormatInt(deadline.UnixNano(), 10) + " " +
		base64.StdEncoding.EncodeToString([]byte(command))
	res := p.runner.Run(ctx, shell.Request{
		Command:          line,
		WorkingDirectory: workingDirectory,
		Purpose:          "preview",
		Verdict:          shell.Verdict{Command: line, Tier: shell.Safe},
		Sandbox:          shell.SandboxReadOnly,
		Timeout:          timeout,
	})
	switch {
	case res.TimedOut || ctx.Err() != nil:
		return p.tookTooLong()
	case !res.Executed:
		return unavailable(strings.TrimPrefix(res.Error, "not run: "))
	case res.Sandbox != shell.SandboxApplied:
		return unavailable("the read-only sandbox could not be applied, so Hark did not look")
	case res.Truncated:
		return unavailable(cutShort)
	case res.ExitCode != 0:
		return unavailable("the helper failed (" + firstLine(res.Error, fmt.Errorf("exit status %d", res.ExitCode)) + ")")
	}
	var out struct {
		Preview *Preview `json:"preview"`
	}
	if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
		return unavailable("the helper's answer could not be read (" + err.Error() + ")")
	}
	return out.Preview
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// quote is s as one shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// HelperMain is the entry point of `hark __preview DEADLINE COMMAND`, run
// inside the read-only sandbox in the command's working folder: it prints
// {"preview": …} as JSON. DEADLINE is in Unix nanoseconds; COMMAND is
// base64. `hark __preview -server` is the preview server (see serverMain).
// It returns the process's exit status.
func HelperMain(args []string) int {
	if len(args) == 1 && args[0] == ServerArg {
		return serverMain()
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "hark "+HelperCommand+": want DEADLINE COMMAND; this entry point is internal")
		return 2
	}
	ns, err1 := strconv.ParseInt(args[0], 10, 64)
	cmd, err2 := base64.StdEncoding.DecodeString(args[1])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "hark "+HelperCommand+": bad arguments; this entry point is internal")
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hark "+HelperCommand+": no working folder:", err)
		return 1
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, ns))
	defer cancel()
	p := compute(ctx, string(cmd), dir, os.Environ())
	b, err := json.Marshal(struct {
		Preview *Preview `json:"preview"`
	}{p})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hark "+HelperCommand+":", err)
		return 1
	}
	os.Stdout.Write(append(b, '\n'))
	return 0
}

// Wants says, from the command's text alone, whether a preview could have
// something to say: it calls a program the preview knows or writes
// through a redirection. It reads nothing from disk.
func Wants(command string) bool {
	s, err := plan.Parse(command)
	if err != nil {
		return false
	}
	want := false
	syntax.Walk(s.File, func(n syntax.Node) bool {
		if want {
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrInOut, syntax.AppOut, syntax.AppAll, syntax.DplOut:
				lit := n.Word.Lit()
				want = lit != "/dev/null" && lit != "-" && !isDigits(lit) && !strings.HasPrefix(lit, "/dev/fd/")
			}
		case *syntax.Word:
			// Any word that names a program the preview knows, wherever
			// it stands (after env, xargs, in a loop): Wants only gates
			// the sandboxed look, which decides for itself.
			if lit := n.Lit(); lit != "" && programs[filepath.Base(lit)] != nil {
				want = true
			}
			return false
		}
		return true
	})
	return want
}

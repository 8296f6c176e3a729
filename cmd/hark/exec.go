package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

func init() {
	register(&command{
		name:    "exec",
		usage:   "[--dir DIR] [--timeout DUR] [--sandbox auto|read-only|off] [--yes] -- COMMAND",
		summary: "Classify a shell command, ask when it needs confirmation, run it carefully and print the result as JSON.",
		run:     runExec,
	})
}

// needsConfirmation is the error of a confirm-tier command that nobody could
// approve.
const needsConfirmation = "not run: needs confirmation: re-run with --yes or from a terminal"

func execUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: hark exec [--dir DIR] [--timeout DUR] [--sandbox auto|read-only|off] [--yes] -- COMMAND")
	fmt.Fprintln(w, "Classifies COMMAND like `hark check`, then: forbidden is never run; confirm asks")
	fmt.Fprintln(w, "`Run this? [y/N]` on the terminal (or needs --yes); safe runs at once, in the read-only,")
	fmt.Fprintln(w, "no-network sandbox under --sandbox auto. Prints one JSON result on stdout and exits 0")
	fmt.Fprintln(w, "whenever Hark did its job, even if the command failed; 2 on usage errors.")
	fmt.Fprintln(w, "Defaults for --timeout and --sandbox, the output limit and keepEnv come from the settings.")
	fmt.Fprintln(w)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runExec(ctx context.Context, e *env, args []string) int {
	st, settingsErr := execSettings()
	if settingsErr != nil {
		fmt.Fprintln(e.stderr, "hark exec: warning:", settingsErr)
	}

	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, with the usage
	dir := fs.String("dir", "", "working `directory`: absolute, ~/…, or relative to your home (default: home)")
	timeout := fs.Duration("timeout", st.CommandTimeout.D(), "stop the command and everything it started after this `duration`")
	sandbox := fs.String("sandbox", st.Sandbox, "`mode`: auto (sandbox safe commands), read-only (always), off (never)")
	yes := fs.Bool("yes", false, "run a command that needs confirmation without asking")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			execUsage(e.stdout, fs)
			return exitOK
		}
		fmt.Fprintln(e.stderr, "hark exec:", err)
		execUsage(e.stderr, fs)
		return exitUsage
	}
	command := strings.Join(fs.Args(), " ")
	switch {
	case strings.TrimSpace(command) == "":
		fmt.Fprintln(e.stderr, "hark exec: no command given; try: hark exec -- 'ls -la ~'")
		execUsage(e.stderr, fs)
		return exitUsage
	case *timeout <= 0:
		fmt.Fprintf(e.stderr, "hark exec: --timeout must be positive, like 30s or 2m, not %s\n", *timeout)
		return exitUsage
	}
	mode := shell.SandboxMode(*sandbox)
	if mode != shell.SandboxAuto && mode != shell.SandboxReadOnly && mode != shell.SandboxOff {
		fmt.Fprintf(e.stderr, "hark exec: --sandbox must be auto, read-only or off, not %q\n", *sandbox)
		return exitUsage
	}

	// The policy sees where the command runs (home when --dir is not given,
	// as for the runner), so that `rm -rf *` at home is refused, not asked.
	where := *dir
	if where == "" {
		where = "~"
	}
	verdict := shell.NewPolicyFor(mode).ClassifyIn(command, where)
	req := shell.Request{Command: command, WorkingDirectory: *dir, Verdict: verdict, Sandbox: mode, Timeout: *timeout}
	runner := shell.NewRunner(shell.RunnerOptions{OutputLimit: st.OutputLimit, KeepEnv: st.KeepEnv})
	var res shell.Result
	switch {
	case verdict.Tier == shell.Confirm && !*yes && !e.isTerminal:
		res = shell.NotRun(req, needsConfirmation)
	case verdict.Tier == shell.Confirm && !*yes && !askToRun(e, verdict, preview.New(preview.Options{Runner: shell.NewRunner(shell.RunnerOptions{KeepEnv: st.KeepEnv, OutputLimit: preview.OutputLimit})}).Preview(ctx, command, *dir)):
		res = shell.NotRun(req, "not run: declined at the terminal")
	default: // the runner itself refuses forbidden commands
		res = runner.Run(ctx, req)
	}
	if _, err := fmt.Fprintf(e.stdout, "%s\n", res.JSON()); err != nil {
		fmt.Fprintln(e.stderr, "hark exec: cannot write the result:", err)
		return exitError
	}
	return exitOK
}

// askToRun shows the command, why it needs confirmation and what it would
// touch on stderr, so that stdout stays pure JSON, and reads the answer.
// Only y or yes runs it.
func askToRun(e *env, v shell.Verdict, pv *preview.Preview) bool {
	fmt.Fprintf(e.stderr, "Command: %s\n", v.Command)
	if len(v.Reasons) > 0 {
		fmt.Fprintln(e.stderr, "Needs confirmation because:")
		for _, r := range v.Reasons {
			fmt.Fprintf(e.stderr, "  - %s\n", r.Why)
		}
	}
	fmt.Fprint(e.stderr, previewText(pv, ""))
	fmt.Fprint(e.stderr, "Run this? [y/N] ")
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(e.stderr)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// execSettings reads the settings for exec's defaults. A broken file is not
// fatal here: the command still runs with the defaults, after a warning.
func execSettings() (settings.Settings, error) {
	paths, err := settings.DefaultPaths()
	if err != nil {
		return settings.Defaults(), err
	}
	st, err := settings.Load(paths.Settings)
	if err != nil {
		return settings.Defaults(), fmt.Errorf("%w; using the default settings (fix or delete the file)", err)
	}
	return st, nil
}

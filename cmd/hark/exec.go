package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

func init() {
	register(&command{
		name:    "exec",
		usage:   "[--dir DIR] [--timeout DUR] [--sandbox auto|read-only|off] [--yes] -- COMMAND",
		summary: "Classify a shell command, ask when it needs confirmation, run it carefully and print the result as JSON.",
		about: `Classifies COMMAND like hark check, then: forbidden is never run; confirm asks
Run this? [N]o / [y]es on the terminal (or needs --yes); safe runs at once, in the read-only,
no-network sandbox under --sandbox auto. Prints one JSON result on stdout and exits 0
whenever Hark did its job, even if the command failed; 2 on usage errors.
Your rules (hark rules list) apply: allowed commands run without asking, never rules refuse.
With no sandbox (--sandbox off, or none in this system) every command asks and --yes is refused.
Defaults for --timeout and --sandbox, the output limit and keepEnv come from the settings.`,
		run: runExec,
	})
}

// needsConfirmation is the error of a confirm-tier command that nobody could
// approve.
const needsConfirmation = "not run: needs confirmation: re-run with --yes or from a terminal"

func execUsage(w io.Writer, fs *flag.FlagSet) { writeUsage(w, "exec", fs) }

func runExec(ctx context.Context, e *env, args []string) int {
	// A broken settings file is not fatal here: the command still runs
	// with the defaults, after a warning.
	paths, st, settingsErr := loadSettings()
	if settingsErr != nil {
		showln(e.stderr, "hark exec: warning:", settingsErr)
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
		showln(e.stderr, "hark exec:", err)
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
		showf(e.stderr, "hark exec: --sandbox must be auto, read-only or off, not %q\n", *sandbox)
		return exitUsage
	}
	unconfined := noSandbox(mode)
	if *yes && unconfined != "" {
		// Nothing would hold what it runs: every command from another
		// program waits for the user's yes.
		showf(e.stderr, "hark exec: --yes is refused: this machine has no sandbox (%s), so every command hark exec runs is asked about first; "+
			"run it at a terminal without --yes to be asked\n", unconfined)
		return exitUsage
	}

	// The command takes the path every command from outside the voice
	// loop takes (agent.Handle, as hark mcp's do): the policy sees where
	// it runs, the user's rules and the floor decide, deletions go to the
	// Trash, and the decision goes to the audit log.
	xs := st
	xs.Sandbox, xs.CommandTimeout = string(mode), settings.Duration(*timeout)
	if paths.Settings != "" { // empty when Hark's folders are unknown
		if rs := openRules(paths, shell.NewPolicyFor(mode)); rs != nil {
			for _, w := range rulesProblems(rs) {
				showln(e.stderr, "hark exec:", w)
			}
		}
	}
	guard, err := newGuard(xs, paths, false)
	if err != nil {
		showln(e.stderr, "hark exec:", err)
		return exitError
	}
	wd := execDir(*dir)
	callArgs, _ := json.Marshal(map[string]string{"command": command, "workingDirectory": wd})
	// Like a client of hark mcp, it may not run in, nor read unasked, the
	// folders that hold credentials and Hark's own files.
	var decision string
	res, err := guard.Handle(ctx, agent.CallRequest{Arguments: callArgs, Confirmer: execConfirmer{e: e, noSandbox: unconfined},
		NoConfirm: *yes, NoConfirmBecause: "hark exec was given --yes", PrivateDirs: mcpPrivateDirs(paths),
		OnEvent: func(ev agent.Event) {
			if ev.Kind == agent.EventDecided {
				decision = ev.Decision
			}
		}})
	if err != nil {
		res, decision = shell.Result{Command: command, WorkingDirectory: wd, ExitCode: -1, Error: "not run: " + strings.TrimPrefix(err.Error(), agent.ErrInvalidCall.Error()+": ")}, ""
	}
	// The result is shown as the model would get it, with what Hark
	// decided and why as hark mcp's clients read them, and its JSON
	// escapes what encoding/json leaves raw, so a terminal showing it
	// obeys nothing.
	if _, err := fmt.Fprintf(e.stdout, "%s\n", safeJSON(execOutcome(agent.ShownResult(res), decision).JSON())); err != nil {
		showln(e.stderr, "hark exec:", err)
		return exitError
	}
	return exitOK
}

// execOutcome is hark mcp's outcome for a result of hark exec: the same
// decision, and a why that names --yes where --yes, not a setting, is why
// nobody was asked.
func execOutcome(res shell.Result, decision string) mcpOutcome {
	o := outcome(res, decision, false)
	if decision == agent.DecisionUnconfirmedRun {
		o.Why = "hark exec was given --yes, so it ran without asking"
		if o.Trashed {
			o.Why = "hark exec was given --yes, so nobody was asked; a deletion under home that runs unasked goes to the Trash instead, " +
				"so its targets were moved there and nothing was deleted for good"
		}
	}
	return o
}

// execConfirmer asks at hark exec's terminal; without one nobody can
// answer, and the result says how to run it anyway. noSandbox is why the
// machine has none, when it has none: --yes is then no way to run it.
type execConfirmer struct {
	e         *env
	noSandbox string
}

func (c execConfirmer) Confirm(ctx context.Context, p agent.Pending) (agent.Decision, error) {
	switch {
	case !c.e.isTerminal && c.noSandbox != "":
		return agent.Decision{}, &agent.NotAsked{Why: "not run: needs confirmation: this machine has no sandbox (" + c.noSandbox +
			"), so hark exec asks about every command; run it from a terminal"}
	case !c.e.isTerminal:
		return agent.Decision{}, &agent.NotAsked{Why: needsConfirmation}
	}
	return askToRun(ctx, c.e, p), nil
}

// askToRun shows the command, why it needs confirmation and what it would
// touch on stderr, so that stdout stays pure JSON, and reads the answer.
// Only y or yes runs it; a, when a rule can be proposed, shows the rule and
// answers with it after a second yes (the agent saves it). When the Trash
// is offered (a plain deletion under home) Move to Trash is the default
// answer and d deletes.
func askToRun(ctx context.Context, e *env, p agent.Pending) agent.Decision {
	// The warning comes first: what follows may be long, and the command
	// itself is shown with its hidden characters as code points.
	fmt.Fprint(e.stderr, hiddenWarning(p.Command, ""))
	fmt.Fprintf(e.stderr, "Command: %s\n", commandBlock(p.Command, "  > "))
	if len(p.Reasons) > 0 {
		fmt.Fprintln(e.stderr, "Needs confirmation because:")
		for _, r := range agent.OrderReasons(p.Reasons) {
			showf(e.stderr, "  - %s\n", r.Why)
		}
	}
	fmt.Fprint(e.stderr, previewText(p.Preview, ""))
	fmt.Fprint(e.stderr, scopeText(p, ""))
	if p.Rule != "" {
		showln(e.stderr, p.Rule)
	}
	no := agent.Decision{PendingID: p.ID, By: agent.ByTerminal}
	question := runQuestion(p.Proposal != nil, false, "")
	saveRule := "Save this rule and run? [N]o / [y]es "
	if p.TrashOffered {
		question = trashQuestion(false, "")
	}
	q := newYesNo(e)
	for {
		line, err := q.line(ctx, question)
		if err != nil {
			return no
		}
		a := parseAnswer(line)
		if p.TrashOffered {
			switch t := strings.ToLower(strings.TrimSpace(line)); {
			case t == "" || t == "t" || t == "trash":
				return agent.Decision{PendingID: p.ID, Trash: true, By: agent.ByTerminal}
			case t == "d" || t == "delete":
				return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal}
			case !a.always:
				return no
			}
		}
		switch {
		case a.approve:
			return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal}
		case !a.always:
			return no
		case p.Proposal == nil:
			showln(e.stderr, p.NoProposal)
			continue
		}
		fmt.Fprint(e.stderr, describeRule(*p.Proposal, ""))
		if line, err = q.line(ctx, saveRule); err != nil {
			return no
		}
		if !parseAnswer(line).approve {
			fmt.Fprintln(e.stderr, "no rule saved")
			continue
		}
		return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal, Rule: p.Proposal}
	}
}

// execDir is the absolute folder a command runs in, resolved as the
// runner resolves --dir: home by default, ~/… and relative paths under it.
func execDir(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return dir
	}
	switch {
	case dir == "" || dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"):
		return filepath.Join(home, dir[2:])
	case filepath.IsAbs(dir):
		return filepath.Clean(dir)
	}
	return filepath.Join(home, dir)
}

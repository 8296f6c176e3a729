package main

import (
	"context"
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
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/rules"
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
	fmt.Fprintln(w, "`Run this? [N]o / [y]es` on the terminal (or needs --yes); safe runs at once, in the read-only,")
	fmt.Fprintln(w, "no-network sandbox under --sandbox auto. Prints one JSON result on stdout and exits 0")
	fmt.Fprintln(w, "whenever Hark did its job, even if the command failed; 2 on usage errors.")
	fmt.Fprintln(w, "Your rules (hark rules list) apply: allowed commands run without asking, never rules refuse.")
	fmt.Fprintln(w, "Defaults for --timeout and --sandbox, the output limit and keepEnv come from the settings.")
	fmt.Fprintln(w)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

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

	// The policy sees where the command runs (home when --dir is not given,
	// as for the runner), so that `rm -rf *` at home is refused, not asked.
	where := *dir
	if where == "" {
		where = "~"
	}
	pol := shell.NewPolicyFor(mode)
	verdict := pol.ClassifyIn(command, where)
	req := shell.Request{Command: command, WorkingDirectory: *dir, Verdict: verdict, Sandbox: mode, Timeout: *timeout}
	// The user's rules decide here as they do for the model's commands.
	var rd rules.Decision
	var rs *rules.Store
	wd := ""
	if paths.Settings != "" { // empty when Hark's folders are unknown
		if rs = openRules(paths, pol); rs != nil {
			for _, w := range rulesProblems(rs) {
				showln(e.stderr, "hark exec: warning:", w)
			}
			wd = execDir(*dir)
			rd = rs.Decide(command, wd, verdict)
		}
	}
	asks := (verdict.Tier == shell.Confirm && rd.Kind != rules.Allow) || (verdict.Tier == shell.Safe && rd.Kind == rules.Ask)
	runner := newRunner(st)
	var res shell.Result
	switch {
	case verdict.Tier != shell.Forbidden && rd.Kind == rules.Never:
		res = shell.NotRun(req, "not run: refused by "+rd.Label()+" (hark rules list)")
	case asks && !*yes && !e.isTerminal:
		res = shell.NotRun(req, needsConfirmation)
	case asks && !*yes:
		ti, xd := execTrash(paths, pol, runner, mode, *dir)
		switch askToRun(ctx, e, verdict, rd, rs, wd, execPreview(ctx, st, command, *dir), ti.Offered(command, xd, verdict)) {
		case answerRun:
			res = runner.Run(ctx, req)
		case answerTrash:
			var moved []string
			res, moved = ti.Move(ctx, command, xd, "")
			res.Tier, res.Reasons = verdict.Tier, verdict.Reasons
			if !res.Success && len(moved) == 0 {
				fmt.Fprintln(e.stderr, "Nothing was moved to the Trash or deleted (the result says why). Run it again and answer d to delete for good, or n.")
			}
		default:
			res = shell.NotRun(req, "not run: declined at the terminal")
		}
	default: // the runner itself refuses forbidden commands
		res = runner.Run(ctx, req)
	}
	if rd.Kind != "" || rd.Floor != "" {
		res.Rule = rd.Label()
	}
	// The result is shown as the model would get it, and its JSON escapes
	// what encoding/json leaves raw, so a terminal showing it obeys nothing.
	if _, err := fmt.Fprintf(e.stdout, "%s\n", safeJSON(agent.ShownResult(res).JSON())); err != nil {
		showln(e.stderr, "hark exec: cannot write the result:", err)
		return exitError
	}
	return exitOK
}

// execTrash is what Move to Trash needs at hark exec's prompt, and the
// folder the command runs in as the runner resolves it. The Trash is not
// offered (a zero TrashInstead) without Hark's folders, for a folder the
// runner would refuse, or under --sandbox read-only: moving files is a
// write, and Hark moves them itself, outside any sandbox.
func execTrash(paths settings.Paths, pol agent.Classifier, runner agent.Executor, mode shell.SandboxMode, dir string) (agent.TrashInstead, string) {
	home, err := os.UserHomeDir()
	if paths.Settings == "" || mode == shell.SandboxReadOnly || err != nil {
		return agent.TrashInstead{}, ""
	}
	xd, err := shell.ResolveDir(dir, home)
	if err != nil {
		return agent.TrashInstead{}, ""
	}
	return agent.TrashInstead{Bin: newTrash(paths), Classifier: pol, Executor: runner, Home: home}, xd
}

// execAnswer is what the user answered at askToRun's prompt.
type execAnswer int

const (
	answerNo execAnswer = iota
	answerRun
	answerTrash
)

// askToRun shows the command, why it needs confirmation and what it would
// touch on stderr, so that stdout stays pure JSON, and reads the answer.
// Only y or yes runs it; a, when a rule can be proposed, shows the rule and
// saves it after a second yes. When offerTrash is set (a plain deletion
// under home) Move to Trash is the default answer and d deletes.
func askToRun(ctx context.Context, e *env, v shell.Verdict, rd rules.Decision, rs *rules.Store, wd string, pv *preview.Preview, offerTrash bool) execAnswer {
	// The warning comes first: what follows may be long, and the command
	// itself is shown with its hidden characters as code points.
	fmt.Fprint(e.stderr, hiddenWarning(v.Command, ""))
	fmt.Fprintf(e.stderr, "Command: %s\n", commandBlock(v.Command, "  > "))
	if len(v.Reasons) > 0 {
		fmt.Fprintln(e.stderr, "Needs confirmation because:")
		for _, r := range agent.OrderReasons(v.Reasons) {
			showf(e.stderr, "  - %s\n", r.Why)
		}
	}
	fmt.Fprint(e.stderr, previewText(pv, ""))
	if rd.Kind == rules.Ask || rd.Floor != "" {
		showln(e.stderr, rd.Why)
	}
	var prop *rules.Rule
	noProp := "Always allow is not offered: there is no rules file"
	if agent.AnyDestructive(v.Reasons) {
		// As in the app: a rule for a deleting or overwriting program
		// would allow far more than this command.
		noProp = agent.NoProposalDestructive
	} else if rs != nil && rd.Kind != rules.Ask {
		if r, err := rs.Propose(v.Command, wd, v); err == nil {
			prop = &r
		} else {
			noProp = err.Error()
		}
	}
	question := runQuestion(prop != nil, false, "")
	saveRule := "Save this rule and run? [N]o / [y]es "
	if offerTrash {
		question = trashQuestion(false, "")
	}
	q := newYesNo(e)
	for {
		line, err := q.line(ctx, question)
		if err != nil {
			return answerNo
		}
		a := parseAnswer(line)
		if offerTrash {
			switch t := strings.ToLower(strings.TrimSpace(line)); {
			case t == "" || t == "t" || t == "trash":
				return answerTrash
			case t == "d" || t == "delete":
				return answerRun
			case !a.always:
				return answerNo
			}
		}
		switch {
		case a.approve:
			return answerRun
		case !a.always:
			return answerNo
		case prop == nil:
			showln(e.stderr, noProp)
			continue
		}
		fmt.Fprint(e.stderr, describeRule(*prop, ""))
		if line, err = q.line(ctx, saveRule); err != nil {
			return answerNo
		}
		if !parseAnswer(line).approve {
			fmt.Fprintln(e.stderr, "no rule saved")
			continue
		}
		if n, err := rs.Add(*prop); err != nil {
			showln(e.stderr, "hark exec:", err, "— running it once")
		} else {
			showf(e.stderr, "saved rule %d: %s\n", n, prop)
		}
		return answerRun
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

// execPreview is what command would touch, looked at in the read-only
// sandbox before the question is asked.
func execPreview(ctx context.Context, st settings.Settings, command, dir string) *preview.Preview {
	p := newPreviewer(st)
	defer p.Close()
	return p.Preview(ctx, command, dir)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

func init() {
	register(&command{
		name:    "check",
		usage:   "[--dir DIR] [--] COMMAND",
		summary: "Classify a shell command as safe, confirm or forbidden, without running it.",
		about: `Prints how Hark's policy classifies COMMAND, as JSON: {"command","tier","reasons":[{"command","why"}]}.
--dir DIR classifies it as run in DIR, read as hark exec reads it (default: your home folder; ~/…
and relative paths under it): ` + "`rm -rf *`" + ` in the home directory is forbidden. The verdict is the one
hark exec would reach for the same folder and environment.
Several arguments are joined with spaces; quote the command, or put -- before it when it starts with '-'.
Nothing is run. Tiers: safe (runs at once, read-only), confirm (asks first), forbidden (never runs).`,
		run: runCheck,
	})
}

func checkUsage(w io.Writer) { writeUsage(w, "check", nil) }

// runCheck prints the verdict for the command given as arguments. It never
// runs the command, so it exits 0 whatever the tier.
func runCheck(_ context.Context, e *env, args []string) int {
	dir := ""
	if len(args) > 0 && (args[0] == "--dir" || args[0] == "-dir") {
		if len(args) < 2 {
			fmt.Fprintln(e.stderr, "hark check: --dir needs a directory, e.g. --dir ~")
			checkUsage(e.stderr)
			return exitUsage
		}
		dir, args = args[1], args[2:]
	} else if len(args) > 0 && strings.HasPrefix(args[0], "--dir=") {
		dir, args = strings.TrimPrefix(args[0], "--dir="), args[1:]
	}
	if len(args) > 0 {
		switch args[0] {
		case "--":
			args = args[1:]
		case "-h", "-help", "--help":
			checkUsage(e.stdout)
			return exitOK
		default:
			if strings.HasPrefix(args[0], "-") {
				showf(e.stderr, "hark check: unknown option %s; to check a command that starts with '-', put -- before it\n", args[0])
				checkUsage(e.stderr)
				return exitUsage
			}
		}
	}
	command := strings.Join(args, " ")
	if strings.TrimSpace(command) == "" {
		fmt.Fprintln(e.stderr, "hark check: no command given; try: hark check -- 'ls -la ~'")
		checkUsage(e.stderr)
		return exitUsage
	}
	// The folder exec would run in, judged by the policy exec uses: the
	// same HOME, and the PWD and OLDPWD the runner starts every command with.
	// Links are resolved as exec resolves them, or a folder that is a link
	// to home would ask here where exec refuses.
	wd := execDir(dir)
	if home, err := os.UserHomeDir(); err == nil {
		wd = agent.ResolveDir(wd, home)
	}
	v := shell.NewPolicyFor(shell.SandboxAuto).ClassifyIn(command, wd)
	if v.Reasons == nil {
		v.Reasons = []shell.Reason{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep && and > readable
	if err := enc.Encode(v); err != nil {
		showln(e.stderr, "hark check: cannot write the verdict:", err)
		return exitError
	}
	if _, err := e.stdout.Write(safeJSON(buf.Bytes())); err != nil {
		showln(e.stderr, "hark check: cannot write the verdict:", err)
		return exitError
	}
	return exitOK
}

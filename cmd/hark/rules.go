package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

func init() {
	register(&command{
		name:    "rules",
		usage:   "list | add KIND PROGRAM [WORDS…] [--folder DIR] --match CMD --no-match CMD | remove N | check [--dir DIR] -- COMMAND",
		summary: "List, add, remove and test your always-allow, always-ask and never rules.",
		about: `KIND is allow (run without asking), ask (always ask, even read-only commands) or never (refuse).
Words that start with - go after --: hark rules add never git push --match 'git push -f' --no-match 'git pull' -- -f
check says which rule, if any, decides a command. No rule runs a forbidden command, and commands
touching home itself, system folders, keychains, ~/.ssh, ~/.gnupg, shell start-up files or .git
internals always ask.`,
		run: runRules,
	})
}

func rulesUsage(w io.Writer, path string) {
	writeUsage(w, "rules", nil)
	showln(w, "\nRules live in", path, "(JSON; edit it by hand if you like: every rule's examples are checked")
	fmt.Fprintln(w, "when it is read, and a rule whose examples fail is ignored and reported).")
}

func runRules(_ context.Context, e *env, args []string) int {
	paths, err := settings.DefaultPaths()
	if err != nil {
		showln(e.stderr, "hark rules:", err)
		return exitError
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark rules: no home folder to resolve ~ against; set HOME")
		return exitError
	}
	pol := shell.NewPolicyFor(shell.SandboxAuto)
	st := rules.Open(rulesPath(paths), home, pol)
	return rulesCommand(e, st, pol, home, args)
}

// rulesCommand is runRules after the store is open, for tests.
func rulesCommand(e *env, st *rules.Store, pol rules.Classifier, home string, args []string) int {
	if len(args) == 0 {
		rulesUsage(e.stderr, st.Path())
		return exitUsage
	}
	for _, w := range st.Warnings() {
		showln(e.stderr, "hark rules: warning:", w)
	}
	switch args[0] {
	case "list", "ls":
		return rulesList(e, st)
	case "add":
		return rulesAdd(e, st, args[1:])
	case "remove", "rm":
		return rulesRemove(e, st, args[1:])
	case "check":
		return rulesCheck(e, st, pol, home, args[1:])
	case "-h", "-help", "--help", "help":
		rulesUsage(e.stdout, st.Path())
		return exitOK
	}
	showf(e.stderr, "hark rules: unknown action %q\n", args[0])
	rulesUsage(e.stderr, st.Path())
	return exitUsage
}

func rulesList(e *env, st *rules.Store) int {
	es := st.Entries()
	if len(es) == 0 {
		showf(e.stdout, "No rules yet (%s). Answer an approval with Always allow, or use hark rules add.\n", st.Path())
		return exitOK
	}
	for _, en := range es {
		showf(e.stdout, "%d. %s\n", en.Number, en.Rule)
		if en.Err != nil {
			showf(e.stdout, "   IGNORED: %v\n", en.Err)
		}
		if en.Rule.Note != "" {
			showf(e.stdout, "   note: %s\n", en.Rule.Note)
		}
		fmt.Fprint(e.stdout, describeExamples(en.Rule, "   "))
	}
	return exitOK
}

func describeExamples(r rules.Rule, indent string) string {
	var b strings.Builder
	if len(r.Examples.Match) > 0 {
		showf(&b, "%smatches: %s\n", indent, strings.Join(r.Examples.Match, " · "))
	}
	if len(r.Examples.NoMatch) > 0 {
		showf(&b, "%sdoes not match: %s\n", indent, strings.Join(r.Examples.NoMatch, " · "))
	}
	return b.String()
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func rulesAdd(e *env, st *rules.Store, args []string) int {
	fs := flag.NewFlagSet("hark rules add", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	folder := fs.String("folder", "", "limit the rule to this folder and below (absolute, or ~/…)")
	note := fs.String("note", "", "a note kept with the rule")
	var match, noMatch multi
	fs.Var(&match, "match", "a command the rule must match (repeatable; at least one)")
	fs.Var(&noMatch, "no-match", "a command the rule must not match (repeatable; at least one)")
	// Flags may come after the positional words: hark rules add allow git commit --folder ~/src.
	// Words after -- are words even when they start with -: never git push -- --force.
	var pos, tail []string
	rest := args
	for i, a := range args {
		if a == "--" {
			rest, tail = args[:i], args[i+1:]
			break
		}
	}
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	pos = append(pos, tail...)
	if len(pos) < 2 {
		fmt.Fprintln(e.stderr, "hark rules add: give a kind and a program, e.g. hark rules add allow git commit --folder ~/src/app --match 'git commit -m x' --no-match 'git push'")
		return exitUsage
	}
	f := *folder
	if f != "" && !strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "~") {
		abs, err := filepath.Abs(f)
		if err != nil {
			showln(e.stderr, "hark rules add: --folder:", err)
			return exitUsage
		}
		f = abs
	}
	r := rules.Rule{Kind: rules.Kind(pos[0]), Program: pos[1], Words: pos[2:], Folder: f, Note: *note,
		Examples: rules.Examples{Match: match, NoMatch: noMatch}}
	n, err := st.Add(r)
	if err != nil {
		showln(e.stderr, "hark rules add:", err)
		return exitError
	}
	showf(e.stdout, "Added rule %d: %s\n", n, r)
	return exitOK
}

func rulesRemove(e *env, st *rules.Store, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(e.stderr, "hark rules remove: give the rule's number from hark rules list, e.g. hark rules remove 2")
		return exitUsage
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		showf(e.stderr, "hark rules remove: %q is not a rule number; hark rules list shows them\n", args[0])
		return exitUsage
	}
	r, err := st.Remove(n)
	if err != nil {
		showln(e.stderr, "hark rules remove:", err)
		return exitError
	}
	showf(e.stdout, "Removed rule %d: %s\n", n, r)
	return exitOK
}

// rulesCheck explains how a command would be decided: the policy's tier,
// the rule or floor that changes it, and what Always allow would propose.
func rulesCheck(e *env, st *rules.Store, pol rules.Classifier, home string, args []string) int {
	dir := ""
	if len(args) > 0 && (args[0] == "--dir" || args[0] == "-dir") {
		if len(args) < 2 {
			fmt.Fprintln(e.stderr, "hark rules check: --dir needs a folder, e.g. --dir ~/src/app")
			return exitUsage
		}
		dir, args = args[1], args[2:]
	} else if len(args) > 0 && strings.HasPrefix(args[0], "--dir=") {
		dir, args = strings.TrimPrefix(args[0], "--dir="), args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	command := strings.Join(args, " ")
	if strings.TrimSpace(command) == "" {
		fmt.Fprintln(e.stderr, "hark rules check: no command given; try: hark rules check --dir ~/src/app -- git commit -m x")
		return exitUsage
	}
	wd := home
	switch {
	case dir == "" || dir == "~":
	case strings.HasPrefix(dir, "~/"):
		wd = filepath.Join(home, dir[2:])
	default:
		abs, err := filepath.Abs(dir)
		if err != nil {
			showln(e.stderr, "hark rules check: --dir:", err)
			return exitUsage
		}
		wd = abs
	}
	where := wd
	if wd == home {
		where = "~"
	}
	v := pol.ClassifyIn(command, where)
	d := st.Decide(command, wd, v)
	outcome := string(v.Tier)
	switch {
	case v.Tier == shell.Forbidden:
		outcome = "refused (forbidden)"
	case d.Kind == rules.Never:
		outcome = "refused by a rule"
	case d.Kind == rules.Allow:
		outcome = "runs without asking"
	case d.Kind == rules.Ask || v.Tier == shell.Confirm:
		outcome = "asks"
	case v.Tier == shell.Safe:
		outcome = "runs at once in the read-only sandbox"
	}
	showf(e.stdout, "%s\n  in %s: %s\n  policy: %s\n", command, tildeDir(wd, home), outcome, v.Tier)
	for _, r := range v.Reasons {
		showf(e.stdout, "    why: %s\n", r.Why)
	}
	showf(e.stdout, "  decided: %s\n", d.Why)
	if d.Kind != rules.Allow && v.Tier != shell.Safe {
		if prop, err := st.Propose(command, wd, v); err == nil {
			showf(e.stdout, "  Always allow would save: %s\n", prop)
		} else {
			showf(e.stdout, "  %v\n", err)
		}
	}
	return exitOK
}

func tildeDir(d, home string) string {
	if d == home {
		return "~"
	}
	if strings.HasPrefix(d, home+"/") {
		return "~" + d[len(home):]
	}
	return d
}

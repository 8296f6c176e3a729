package policy

import (
	"slices"
	"strings"
)

// check judges one invocation of a program, adding reasons for anything that
// is not read-only. A check that adds nothing leaves the invocation safe.
// A program's own check is named after it (findCheck, gitCheck), so the
// table entry leads straight to it; the builders in combinators.go, shared
// by many programs, are named for what they refuse (noFlags, subcommands).
type check func(in *invocation)

// rule is what the policy knows about one program.
type rule struct {
	check    check    // judges an invocation; a rule without one is read-only whatever the arguments
	category Category // what the program's reasons are about
	// anyArgs: it may be given arguments that arrive at run time (xargs,
	// find -exec {} +): it is read-only whatever they are, or a wrapper
	// that judges what it runs with them.
	anyArgs bool
	// config: it runs code its configuration or the project's files name,
	// whatever its arguments (see Options.NoSandbox).
	config bool
	shell  bool // a shell, which runs code from its input (sh, bash, zsh …)
	// runsOthers: it runs programs or code it is given (a wrapper, a
	// shell, an interpreter), so what it does is not its own name's.
	runsOthers bool
	// macServices: on macOS it needs system services that the Seatbelt
	// profile keeps closed (disk arbitration, power management, the
	// pasteboard, network configuration, the Docker socket …), so inside
	// the sandbox it fails (see Options.Seatbelt).
	macServices bool
	// examples show what the entry means (see ruleExamples).
	examples ruleExamples
}

// ruleExamples are commands that show what a table entry means: each safe
// one classifies safe, each asks one asks and each refuses one is forbidden
// (TestRuleExamples checks them under the default options). They sit on
// the entry so that whoever changes the entry or its check meets them.
type ruleExamples struct {
	safe, asks, refuses []string
}

// safe, asks and refuses add examples to a rule (see ruleExamples).
func (r rule) safe(cmds ...string) rule {
	r.examples.safe = append(slices.Clip(r.examples.safe), cmds...)
	return r
}

func (r rule) asks(cmds ...string) rule {
	r.examples.asks = append(slices.Clip(r.examples.asks), cmds...)
	return r
}

func (r rule) refuses(cmds ...string) rule {
	r.examples.refuses = append(slices.Clip(r.examples.refuses), cmds...)
	return r
}

// needsMacServices marks a rule's program as unable to run in the macOS
// sandbox.
func (r rule) needsMacServices() rule { r.macServices = true; return r }

// runsConfig marks a rule's program as running code from its configuration.
func (r rule) runsConfig() rule { r.config = true; return r }

// readOnly is the rule of a program with no option that writes, deletes,
// runs other code, reaches the network or changes the system.
func readOnly() rule { return rule{anyArgs: true} }

// readOnlyWith is readOnly with a check that may still ask for one case.
func readOnlyWith(f check) rule { return rule{anyArgs: true, check: f} }

// ask is the rule of a program that always asks, saying why, except when
// it is only asked for its version or help.
func ask(cat Category, why string) rule { return rule{check: versionOr(why), category: cat} }

// never is the rule of a program that is never run.
func never(cat Category, why string) rule { return rule{check: forbidden(why), category: cat} }

// args is the rule of a program whose check reads its arguments: an
// argument known only at run time could be the option the check refuses,
// so it always asks.
func args(cat Category, f check) rule { return rule{check: checked(f), category: cat} }

// custom is the rule of a program whose check handles arguments known only
// at run time itself (rm, kill and the like decide on what they can see).
func custom(cat Category, f check) rule { return rule{check: f, category: cat} }

// interpreter is the rule of an interpreter or compiler; inline names its
// options that take code on the command line.
func interpreter(inline string) rule {
	return rule{check: interpreterCheck(inline), category: Code, config: true, runsOthers: true}
}

// shellRule is the rule of a shell.
func shellRule() rule {
	return rule{check: shellCheck, category: Code, config: true, shell: true, runsOthers: true}
}

// wrapper is the rule of a program that runs the command after its options.
func wrapper(w wrapSpec) rule {
	cat := Code
	if w.forbid != "" {
		cat = Privilege
	}
	return rule{check: w.check, category: cat, anyArgs: true, runsOthers: true}
}

// wrapperChecked is the rule of a program that runs another one with an
// option syntax of its own, which f parses (watch).
func wrapperChecked(f check) rule {
	return rule{check: f, category: Code, anyArgs: true, runsOthers: true}
}

// prefixRule handles families of programs named by a prefix.
func prefixRule(name string) (rule, bool) {
	switch {
	case name == "mkfs" || name == "newfs" || strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "newfs_") || strings.HasPrefix(name, "mkfs_"):
		return never(Disk, "erasing a disk is never run"), true
	case strings.HasPrefix(name, "python3.") || strings.HasPrefix(name, "python2."):
		return interpreter("c"), true
	}
	return rule{}, false
}

func forbidden(why string) check { return func(in *invocation) { in.forbid(why) } }

// versionQuery reports whether args only ask a program for its version or
// help. "-v" is left out: for tmux, gzip, pbcopy and others it does
// something else (see versionFlagV).
func versionQuery(args []arg) bool {
	if len(args) != 1 || !args[0].plain() {
		return false
	}
	switch args[0].val {
	case "--version", "-V", "-version", "--help", "-h":
		return true
	}
	return false
}

// versionFlagVV lists the tools for which -vV prints a verbose version.
var versionFlagVV = map[string]bool{"rustc": true, "cargo": true}

// versionVerb lists the tools for which a lone `version` subcommand only
// prints. It is no general rule: `npm version` and `yarn version` bump a
// project's version, `kubectl version` asks the cluster and `terraform
// version` checks the network for updates.
var versionVerb = map[string]bool{"cargo": true, "gh": true, "mas": true}

// versionForm reports whether a program's arguments are exactly one of its
// version queries.
func versionForm(in *invocation) bool {
	if versionQuery(in.args) {
		return true
	}
	if len(in.args) != 1 || !in.args[0].plain() {
		return false
	}
	v := in.args[0].val
	return versionFlagVV[in.name] && v == "-vV" || versionVerb[in.name] && v == "version"
}

// versionFlagV lists interpreters for which a lone -v prints the version.
var versionFlagV = map[string]bool{"node": true, "nodejs": true, "perl": true, "php": true, "lua": true, "luajit": true, "ruby": true, "bun": true, "deno": true}

// versionOr is safe for a version or help query and asks otherwise.
func versionOr(why string) check {
	return func(in *invocation) {
		if !versionForm(in) {
			in.confirm(why)
		}
	}
}

// checked wraps a check that reads the arguments: every argument must be
// known when the command is written, or the check cannot vouch for it.
func checked(f check) check {
	return func(in *invocation) {
		if in.extra {
			in.confirm("more arguments arrive at run time, so they cannot be checked")
			return
		}
		for _, a := range in.args {
			if a.expanded && !a.path || a.brace || globOption(a) {
				in.confirmOpt(a.val, "argument is only known at run time and could be an option")
				// The check cannot vouch for the words, but what it
				// refuses on them as written (find * -delete in ~) stands.
				saved := in.c.v
				scratch := &verdict{tier: Safe, dir: saved.dir, texts: saved.texts}
				in.c.v = scratch
				f(in)
				in.c.v = saved
				for _, r := range scratch.forbids {
					in.c.add(Forbidden, r.Category, r.Command, r.Why)
				}
				return
			}
		}
		f(in)
	}
}

// globOption reports whether the shell may replace a glob argument with
// file names that are options the check never saw. A pattern keeps only
// the text before its first wildcard: "*" and "?x" can become any word,
// and "-*", "-r?" or "--o*" any option with that prefix (a file named
// -ofile in the directory turns sort -* into sort -ofile). Only a long
// option whose "=" comes before the wildcard, such as --glob=*.go, is
// fixed by what is written.
func globOption(a arg) bool {
	if !a.glob || a.val == "" {
		return false
	}
	first := strings.IndexAny(a.val, "*?[")
	if first < 0 {
		// The wildcard sits in a part the value does not show.
		return a.val[0] == '-'
	}
	if first == 0 {
		return true
	}
	if a.val[0] != '-' {
		return false
	}
	eq := strings.IndexByte(a.val, '=')
	return !strings.HasPrefix(a.val, "--") || eq < 0 || eq > first
}

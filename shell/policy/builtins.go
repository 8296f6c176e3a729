package policy

import (
	"path"
	"slices"
	"strings"
)

// cdCheck follows the shell into a protected directory in the order the
// line is written, for the commands whose folders plan cannot tell, so a
// later `rm -rf *` is known to mean that directory there too.
func cdCheck(in *invocation) {
	if !inThisShell(in) {
		return // under a wrapper cd changes nothing that follows
	}
	ops := operands(in.args)
	stack := false
	for _, a := range in.args {
		stack = stack || stackEntry(a.val)
	}
	if !slices.Contains(in.c.cdEarlier, in.c.cdPath) {
		in.c.cdEarlier = append(in.c.cdEarlier, in.c.cdPath)
	}
	switch {
	case in.c.cdPath == cdUnknown:
	case in.name == "popd" || in.name == "pushd" && len(ops) == 0 || stack:
		// The directory stack is not followed: popd, pushd alone and
		// pushd +N go back to a directory an earlier pushd left.
		in.c.cdPath = cdUnknown
	case len(ops) == 0:
		in.c.cdPath = "~"
	case !ops[0].plain() || ops[0].val == "-" || !knownDir(ops[0]):
		in.c.cdPath = cdUnknown
	case ops[0].home || strings.HasPrefix(ops[0].val, "/"):
		in.c.cdPath = ops[0].val
	default:
		in.c.cdPath = joinPath(in.c.cdPath, ops[0].val)
	}
	if len(ops) == 0 {
		in.c.cdCwd = homeMark
		return
	}
	if root, ok := in.c.p.protectedTarget(ops[0], in.c.cdCwd); ok {
		in.c.cdCwd = planDir(root)
		return
	}
	// Without -P, cd takes each '..' back from the name as written before
	// the kernel sees it, so cd /dev/fd/../../proc/self/cwd goes to
	// /proc/self/cwd; when that fails it tries the name as the kernel walks
	// it, checked above.
	if !cdPhysical(in.args) {
		logical := ops[0]
		logical.val = path.Clean(logical.val)
		if root, ok := in.c.p.protectedTarget(logical, in.c.cdCwd); ok {
			in.c.cdCwd = planDir(root)
			return
		}
	}
	in.c.cdCwd = ""
}

// cdPhysical reports whether cd's options include -P, which makes '..'
// follow the kernel's walk instead of the spelling.
func cdPhysical(args []arg) bool {
	for _, a := range args {
		if a.val == "--" || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			return false
		}
		if strings.Contains(a.val, "P") {
			return true
		}
	}
	return false
}

// inThisShell reports whether a builtin runs in the shell itself: alone,
// or under builtin and command, which run it there all the same (builtin
// cd / moves the shell as cd / does), not under a program like nice.
func inThisShell(in *invocation) bool {
	label := in.label
	for {
		rest, ok := strings.CutPrefix(label, "builtin ")
		if !ok {
			rest, ok = strings.CutPrefix(label, "command ")
		}
		if !ok {
			return label == in.name
		}
		label = rest
	}
}

// knownDir reports whether a plain directory argument names a place the
// classifier can follow: not through $PWD, $OLDPWD or the like, whose
// values are only known when the command runs, and not ~+, ~- or ~user,
// which are those and other users' homes, however they start.
func knownDir(a arg) bool {
	if strings.ContainsRune(a.val, '$') {
		return false
	}
	return !strings.HasPrefix(a.val, "~") || a.val == "~" || strings.HasPrefix(a.val, "~/")
}

// stackEntry reports whether a cd or pushd operand names an entry of the
// directory stack (+N, -N in bash and zsh) rather than a directory.
func stackEntry(v string) bool {
	if len(v) < 2 || v[0] != '+' && v[0] != '-' {
		return false
	}
	for _, c := range v[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// joinPath appends a relative path to base ("" is the starting directory).
func joinPath(base, rel string) string {
	if base == "" {
		return rel
	}
	return strings.TrimSuffix(base, "/") + "/" + rel
}

// jobsCheck: `jobs -x cmd args` runs cmd with job specs replaced by
// process group ids.
func jobsCheck(in *invocation) {
	for k, a := range in.args {
		if a.option() && strings.ContainsRune(a.val, 'x') {
			in.confirmOpt("-x", "runs a command")
			in.runs(in.args[k+1:], false)
			return
		}
		if !a.option() {
			return
		}
	}
}

// trapCheck: `trap 'code' SIGNAL` runs code later; the code is classified.
func trapCheck(in *invocation) {
	for _, a := range in.args {
		if !a.plain() {
			// {'rm x',EXIT} is two words once braces expand.
			in.confirm("runs code computed at run time when a signal arrives")
			return
		}
	}
	ops := operands(in.args)
	if len(ops) < 2 || ops[0].val == "-" || ops[0].val == "" {
		return // lists traps, or resets or ignores them
	}
	in.confirm("runs code when a signal arrives")
	in.source(ops[0].val)
}

// readCheck: unset and friends take the variables they name; some names
// change what later commands run, and a subscript in a name is evaluated
// as arithmetic, which runs the command substitutions in it.
func readCheck(in *invocation) {
	for _, a := range operands(in.args) {
		safeName(in, a)
	}
}

// safeName judges one variable name a builtin will assign or unset and
// reports whether it passed.
func safeName(in *invocation, a arg) bool {
	if why := riskyVariable(a.val); why != "" {
		in.confirmOpt(a.val, why)
		return false
	}
	if name, _, _ := strings.Cut(a.val, "["); riskyVariable(name) != "" {
		in.confirmOpt(a.val, name+"=: "+riskyVariable(name))
		return false
	}
	if !plainVarName(a) {
		in.confirmOpt(a.val, "the shell evaluates the subscript of this name, which can run commands")
		return false
	}
	return true
}

// namesCheck judges builtins that assign the variables they name (read,
// mapfile, getopts, wait -p). valued lists the short options that take a
// value, naming those whose value is a variable name; skip is how many
// operands come before the names (getopts' option string), or -1 when
// only the named options' values are names.
func namesCheck(valued, naming string, skip int) check {
	return func(in *invocation) {
		var names []arg
		ended := false
		var ops []arg
		for i := 0; i < len(in.args); i++ {
			a := in.args[i]
			if !ended && a.val == "--" {
				ended = true
				continue
			}
			if ended || !a.option() {
				ops = append(ops, a)
				continue
			}
			for j := 1; j < len(a.val); j++ {
				c := a.val[j]
				if strings.IndexByte(valued, c) < 0 {
					continue
				}
				v := arg{val: a.val[j+1:]}
				if v.val == "" && i+1 < len(in.args) {
					i++
					v = in.args[i]
				}
				if strings.IndexByte(naming, c) >= 0 {
					names = append(names, v)
				}
				break
			}
		}
		switch {
		case skip == 0:
			names = append(names, ops...)
		case skip > 0 && len(ops) > skip:
			names = append(names, ops[skip]) // getopts: the words after the name are values
		}
		for _, n := range names {
			if !safeName(in, n) {
				return
			}
		}
	}
}

// unsetCheck: with PATH unset, bash and zsh look for programs in the
// current directory, so `unset PATH; ls` runs ./ls.
func unsetCheck(in *invocation) {
	if _, ok := hasFlag(in.args, "f"); ok {
		return
	}
	readCheck(in)
}

// textArithm reports whether an argument a shell evaluates as arithmetic
// could hold text the command set (see classifier.arithm).
func textArithm(in *invocation, o arg) bool {
	if !o.expanded {
		return arithmLiteralRisky(in.c.v, o.val)
	}
	name, isParam := strings.CutPrefix(o.val, "$")
	return !(isParam && (arithmSpecial[name] || plainName(name) && !in.c.v.texts[name]))
}

// arithmLiteralRisky reports whether literal text evaluated as arithmetic
// could run code: a subscript or substitution in it, or a name the command
// set to text.
func arithmLiteralRisky(v *verdict, s string) bool {
	s = strings.TrimLeft(s, "+-")
	if isNumber(s) {
		return false
	}
	if strings.ContainsAny(s, "[$`\\'\"") {
		return true
	}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if v.texts[f] {
			return true
		}
	}
	return false
}

// arithmArgsCheck: zsh evaluates the numbers given to shift, exit, return,
// break and continue as arithmetic.
func arithmArgsCheck(in *invocation) {
	for _, a := range operands(in.args) {
		if textArithm(in, a) {
			in.confirmOpt(a.val, "is evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// testCheck: test and [ evaluate the operand of -v as a variable name with a
// subscript, and zsh evaluates the operands of -eq and friends as
// arithmetic; either can run a command substitution hidden in a value.
func testCheck(in *invocation) {
	for i, a := range in.args {
		var operands []arg
		switch a.val {
		case "-v":
			if i+1 < len(in.args) && !plainVarName(in.args[i+1]) {
				in.confirmOpt("-v", "evaluates an array subscript, which can run commands")
				return
			}
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			if i > 0 {
				operands = append(operands, in.args[i-1])
			}
			if i+1 < len(in.args) {
				operands = append(operands, in.args[i+1])
			}
		}
		for _, o := range operands {
			if textArithm(in, o) {
				in.confirmOpt(a.val, "evaluates "+o.val+" as arithmetic, which can run commands")
				return
			}
		}
	}
}

// numericConversion reports whether a printf format converts an argument
// to a number (%d, %5.2f, %x …).
func numericConversion(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*'", format[j]) >= 0 {
			j++
		}
		if j < len(format) {
			if strings.IndexByte("diouxXeEfFgGaAc", format[j]) >= 0 {
				return true
			}
			if format[j] == '%' {
				i = j
			}
		}
	}
	return false
}

// printfCheck: zsh evaluates the argument of a numeric conversion as
// arithmetic, so `printf %d 'a[$(rm x)]'` runs rm.
func printfCheck(in *invocation) {
	ops := operands(in.args)
	if len(ops) < 2 || !numericConversion(ops[0].val) {
		return
	}
	for _, a := range ops[1:] {
		if textArithm(in, a) {
			in.confirmOpt(a.val, "may be evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// ulimitCheck: zsh evaluates a limit as arithmetic.
func ulimitCheck(in *invocation) {
	for _, a := range operands(in.args) {
		if a.val != "unlimited" && a.val != "hard" && a.val != "soft" && textArithm(in, a) {
			in.confirmOpt(a.val, "is evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// safeShopts are bash options that change nothing about what a command
// runs. expand_aliases (BASH_ALIASES then redefines names), extdebug,
// xpg_echo and the like are left out.
var safeShopts = []string{"nullglob", "failglob", "dotglob", "globstar", "nocaseglob", "nocasematch", "extglob",
	"lastpipe", "inherit_errexit", "checkwinsize", "histappend", "globasciiranges", "shift_verbose", "cmdhist", "lithist"}

// shoptCheck: listing is safe, setting only the options above.
func shoptCheck(in *invocation) {
	setting, setOpts := false, false
	for _, a := range in.args {
		switch {
		case a.option():
			setting = setting || strings.ContainsAny(a.val, "su")
			setOpts = setOpts || strings.ContainsRune(a.val, 'o')
		case setting && setOpts && !contains(safeShellOptions, zshOptionName(a.val)):
			in.confirmOpt(a.val, "changes how the shell expands words")
			return
		case setting && !setOpts && !contains(safeShopts, a.val):
			in.confirmOpt(a.val, "changes how the shell reads commands")
			return
		}
	}
}

// setCheck: `set -o NAME` changes how the shell reads words; zsh accepts
// its own option names there too (set -o globsubst makes a variable's value
// a glob pattern, whose qualifiers run code). Only common options are safe.
func setCheck(in *invocation) {
	for i, a := range in.args {
		if a.val == "--" || a.val == "-" {
			return // the rest sets positional parameters
		}
		if a.expanded {
			in.confirmOpt(a.val, "sets options only known at run time")
			return
		}
		// Single letters: -k turns every later NAME=value word into an
		// environment variable, past the checks on assignments; -a
		// exports every assignment. Only letters that mean the same
		// harmless thing in bash and zsh are safe.
		if len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+') && !strings.HasPrefix(a.val, "--") {
			if bad := strings.Trim(a.val[1:], safeSetLetters); bad != "" {
				in.confirmOpt(a.val, "-"+bad[:1]+" changes how the shell reads or exports words")
				return
			}
		} else if i == 0 {
			return // set WORDS sets the positional parameters
		}
		// -o NAME, also at the end of a cluster such as -euo NAME.
		if len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+') && strings.HasSuffix(a.val, "o") && i+1 < len(in.args) {
			if name := in.args[i+1].val; !contains(safeShellOptions, zshOptionName(name)) {
				in.confirmOpt(a.val+" "+name, "changes how the shell expands words")
				return
			}
		}
	}
}

// safeSetLetters are the single-letter options of set that are harmless in
// bash and zsh alike (o takes a name checked against safeShellOptions).
const safeSetLetters = "euxvnCfo"

// safeShellOptions change nothing about what a command runs.
var safeShellOptions = []string{"errexit", "nounset", "pipefail", "xtrace", "verbose", "noclobber", "clobber", "noglob", "glob", "noexec", "exec", "unset", "errtrace", "functrace"}

// zshOptionCheck: setopt and unsetopt with names change how zsh expands
// words (GLOB_SUBST makes values glob patterns, whose qualifiers run code).
func zshOptionCheck(in *invocation) {
	for _, a := range in.args {
		n := zshOptionName(a.val)
		n = strings.TrimPrefix(n, "no")
		if a.expanded || !contains(safeShellOptions, n) && !contains(safeShellOptions, "no"+n) {
			in.confirmOpt(a.val, "changes how zsh expands words")
			return
		}
	}
}

// zshOptionName normalises an option name as zsh does: case and
// underscores do not matter.
func zshOptionName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

package policy

import "strings"

// wrapSpec describes the option syntax of a program that runs another one.
type wrapSpec struct {
	shortArg   string   // short options that take a value
	longArg    []string // long options that take a value when not written --opt=value
	positional int      // operands before the command (timeout's duration)
	assigns    bool     // NAME=value words may precede the command (env)
	extra      bool     // the command gets more arguments at run time (xargs)
	bare       []string // the command run when none is given (xargs runs echo)
	optArg     string   // short options whose value, if any, is the rest of the word (xargs -i{})
	// replace returns the strings the wrapper replaces in the command's
	// words with input (xargs -I {}); such words are known only at run time.
	replace    func(opts []arg) []string
	refuse     string   // short options that make it act on something else
	refuseLong []string // long options that do the same
	refuseWhy  string
	forbid     string                                // the wrapper itself is never run
	confirm    string                                // the wrapper itself always asks
	special    func(in *invocation, opts []arg) bool // handles options the generic parse cannot; true = done
}

func (w wrapSpec) check(in *invocation) {
	if w.forbid != "" {
		in.forbid(w.forbid)
	}
	if w.confirm != "" {
		in.confirm(w.confirm)
	}
	args := in.args
	i := 0
	for i < len(args) {
		a := args[i]
		v := a.val
		if !a.plain() {
			// {5,rm} or * before the command can turn into more words:
			// `timeout {5,rm} ls` runs rm.
			in.confirmOpt(v, "cannot tell which command runs")
			return
		}
		if v == "--" {
			i++
			// env -- x=1 cmd: GNU env still reads assignments there
			for w.assigns && i < len(args) && isEnvAssign(args[i].val) {
				i++
			}
			break
		}
		if w.assigns && v == "-" { // env -: as -i
			i++
			continue
		}
		if w.assigns && isEnvAssign(v) {
			name := v[:strings.IndexByte(v, '=')]
			if why := envVariable(name); why != "" {
				in.confirm(name + "=: " + why)
			}
			i++
			continue
		}
		if !a.option() {
			break
		}
		if strings.HasPrefix(v, "--") {
			for _, l := range w.refuseLong {
				if longMatch(v, l) {
					in.confirmOpt(v, w.refuseWhy)
				}
			}
			if !strings.Contains(v, "=") {
				for _, l := range w.longArg {
					if longMatch(v, l) {
						i++
						break
					}
				}
			}
			i++
			continue
		}
		if w.refuse != "" && strings.ContainsAny(v[1:], w.refuse) {
			in.confirmAs(Process, v, w.refuseWhy)
		}
		// In a cluster like -sKILL the rest is the value; a value-taking letter
		// at the end takes the next word.
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(w.optArg, v[j]) >= 0 {
				break
			}
			if strings.IndexByte(w.shortArg, v[j]) >= 0 {
				if j == len(v)-1 {
					i++
				}
				break
			}
		}
		i++
	}
	for _, a := range args[:min(i, len(args))] {
		if !a.plain() {
			in.confirmOpt(a.val, "cannot tell which command runs")
			return
		}
	}
	if w.special != nil && w.special(in, args[:min(i, len(args))]) {
		return
	}
	rest := args[min(i, len(args)):]
	if in.extra && len(rest) <= w.positional {
		// Under xargs or find -exec the command itself arrives at run
		// time: `xargs nice` runs whatever the input names.
		in.confirm("runs the command named by arguments that arrive at run time")
		return
	}
	if len(rest) < w.positional {
		return // no command: the wrapper alone (e.g. `nice`) only reports
	}
	if w.replace != nil {
		if rs := w.replace(args[:min(i, len(args))]); len(rs) > 0 {
			rest = append([]arg(nil), rest...)
			for k, a := range rest {
				for _, r := range rs {
					if r != "" && strings.Contains(a.val, r) {
						rest[k].expanded = true
					}
				}
			}
		}
	}
	for _, a := range rest[:w.positional] {
		if !a.plain() {
			in.confirmOpt(a.val, "cannot tell which command runs")
			return
		}
	}
	rest = rest[w.positional:]
	if dir, ok := w.chdir(in.name, args[:min(i, len(args))]); ok {
		defer in.c.chdir(dir)()
	}
	if w.assigns {
		saved := in.c.exports
		in.c.exports = envExports(saved, args[:min(i, len(args))])
		defer func() { in.c.exports = saved }()
	}
	if len(rest) == 0 {
		if w.bare != nil {
			in.runs([]arg{{val: w.bare[0]}}, w.extra)
		}
		return
	}
	in.runs(rest, w.extra)
}

// isEnvAssign says whether env takes v as NAME=VALUE rather than as the
// command or an option.
func isEnvAssign(v string) bool {
	return strings.Contains(v, "=") && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "=")
}

// envExports are the variables, in plan's form, that the command env runs
// is known to start with: base (what the line exported) without what -i,
// - and -u take out, with env's NAME=VALUE words over it. A value that is
// not plain, or that holds a ~ only the line's own reading expands (the
// expanded reading comes through plan), is left out, so the child cannot
// tell it.
func envExports(base map[string]string, opts []arg) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k := 0; k < len(opts); k++ {
		o := opts[k]
		v := o.val
		next := func() string {
			if k+1 < len(opts) {
				k++
				return opts[k].val
			}
			return ""
		}
		switch {
		case v == "-":
			clear(out)
		case v == "--":
		case isEnvAssign(v):
			name, val, _ := strings.Cut(v, "=")
			if o.plain() && !strings.Contains(val, "~") {
				out[name] = val
			} else {
				delete(out, name)
			}
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			switch {
			case longMatch(name, "--ignore-environment"):
				clear(out)
			case longMatch(name, "--unset"):
				if !eq {
					val = next()
				}
				delete(out, val)
			case !eq && (longMatch(name, "--chdir") || longMatch(name, "--split-string")):
				next()
			}
		default:
			for j := 1; j < len(v); j++ {
				if c := v[j]; c == 'i' {
					clear(out)
				} else if strings.IndexByte("uCPS", c) >= 0 {
					val := v[j+1:]
					if val == "" {
						val = next()
					}
					if c == 'u' {
						delete(out, val)
					}
					break
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// xargsReplace returns the replacement strings of xargs -I R, -J R (BSD),
// -i[R] and --replace[=R] (GNU, "{}" when R is left out).
func xargsReplace(opts []arg) []string {
	var out []string
	for k := 0; k < len(opts); k++ {
		v := opts[k].val
		if strings.HasPrefix(v, "--") {
			if name, val, ok := strings.Cut(v, "="); longMatch(name, "--replace") {
				if !ok {
					val = "{}"
				}
				out = append(out, val)
			}
			for _, l := range []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"} {
				if !strings.Contains(v, "=") && longMatch(v, l) {
					k++
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if c == 'i' || c == 'e' || c == 'l' {
				if c == 'i' {
					r := v[j+1:]
					if r == "" {
						r = "{}"
					}
					out = append(out, r)
				}
				break
			}
			if strings.IndexByte("aEIdLnPsJRS", c) >= 0 {
				val := v[j+1:]
				if val == "" && k+1 < len(opts) {
					k++
					val = opts[k].val
				}
				if c == 'I' || c == 'J' {
					out = append(out, val)
				}
				break
			}
		}
	}
	return out
}

// commandBuiltin: `command -v/-V name` only prints what name is.
func commandBuiltin(in *invocation, opts []arg) bool {
	for _, o := range opts {
		if strings.ContainsAny(o.val, "vV") {
			return true
		}
	}
	return false
}

// envSpecial: env -S splits a string into a command; -P searches another PATH.
func envSpecial(in *invocation, opts []arg) bool {
	for k, o := range opts {
		v := o.val
		switch {
		case v == "-S" || longMatch(v, "--split-string") || !strings.HasPrefix(v, "--") && envShortFlag(v) == 'S':
			s := v
			if !strings.HasPrefix(v, "--") {
				s = v[strings.IndexByte(v, 'S')+1:]
			}
			if i := strings.IndexByte(v, '='); strings.HasPrefix(v, "--") && i >= 0 {
				s = v[i+1:]
			} else if s == "" || strings.HasPrefix(v, "--") && !strings.Contains(v, "=") {
				if k+1 < len(opts) {
					s = opts[k+1].val
				}
			}
			in.confirmOpt("-S", "splits a string into a command")
			in.source(s)
			return true
		case !strings.HasPrefix(v, "--") && envShortFlag(v) == 'P':
			in.confirmOpt("-P", "runs programs from another search path")
			return true
		}
	}
	return false
}

// envShortFlag returns the first of -S, -P (which change what runs) or the
// value-taking -u, -C in a cluster of env's short options such as -iS, or 0.
func envShortFlag(v string) byte {
	if len(v) < 2 || v[0] != '-' {
		return 0
	}
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case 'S', 'P', 'u', 'C':
			return v[j]
		}
	}
	return 0
}

// flockSpecial: `flock FILE -c 'cmd'` runs a shell string; flock also
// creates its lock file.
func flockSpecial(in *invocation, opts []arg) bool {
	in.confirmAs(Write, "", "creates a lock file")
	for k, o := range opts {
		if (o.val == "-c" || longMatch(o.val, "--command")) && k+1 < len(opts) {
			in.source(opts[k+1].val)
			return true
		}
	}
	if rest := in.args[len(opts):]; len(rest) > 2 && (rest[1].val == "-c" || rest[1].val == "--command") {
		in.source(rest[2].val)
		return true
	}
	return false
}

// archCheck: `arch` prints the architecture; `arch -arm64 cmd` runs cmd.
func archCheck(in *invocation) {
	if len(in.args) == 0 {
		return
	}
	// -e NAME=value puts NAME in the environment of what arch runs.
	for k := 0; k < len(in.args); k++ {
		v := in.args[k].val
		if v == "-e" && k+1 < len(in.args) {
			k++
			name, _, _ := strings.Cut(in.args[k].val, "=")
			if why := envVariable(name); why != "" {
				in.confirmOpt("-e "+name+"=", why)
			}
		}
	}
	wrapSpec{shortArg: "ed"}.check(in)
}

// chdirOptions are the options with which a wrapper runs its command in
// another folder: the short letter and the long name.
var chdirOptions = map[string]struct {
	short byte
	long  string
}{
	"env":  {'C', "--chdir"},
	"sudo": {'D', "--chdir"},
	"run0": {'D', "--chdir"},
}

// chdir returns the folder opts tell the wrapper name to run its command
// in (env -C DIR, --chdir=DIR), the last one given.
func (w wrapSpec) chdir(name string, opts []arg) (dir arg, ok bool) {
	o, has := chdirOptions[name]
	if !has {
		return arg{}, false
	}
	for k := 0; k < len(opts); k++ {
		v := opts[k].val
		if strings.HasPrefix(v, "--") {
			n, val, eq := strings.Cut(v, "=")
			if !longMatch(n, o.long) {
				continue
			}
			if !eq && k+1 < len(opts) {
				k++
				dir, ok = opts[k], true
				continue
			}
			dir, ok = arg{val: val, home: strings.HasPrefix(val, "~")}, true
			continue
		}
		for j := 1; j < len(v); j++ {
			if v[j] == o.short {
				if j+1 < len(v) {
					dir, ok = arg{val: v[j+1:]}, true
				} else if k+1 < len(opts) {
					k++
					dir, ok = opts[k], true
				}
				break
			}
			if strings.IndexByte(w.shortArg, v[j]) >= 0 {
				if j == len(v)-1 {
					k++ // another option's value
				}
				break
			}
		}
	}
	return dir, ok
}

// watchOptions are watch's options (procps-ng); it stops at the first
// operand, and -d takes its value only written in the same word.
var watchOptions = optionSpec{
	short: "nq",
	stuck: "d",
	long:  []string{"--interval", "--equexit"},
	flags: []string{"--beep", "--color", "--no-color", "--differences", "--errexit", "--chgexit", "--precise", "--no-title",
		"--no-wrap", "--exec", "--no-rerun", "--help", "--version"},
	abbrev: true,
	stop:   true,
}

// watchCheck: watch runs its command again and again, with -x as the
// argument list it is given, and otherwise as the shell text its words
// make joined by spaces (it hands them to sh -c), where a quoted '#' or
// ';' becomes shell syntax.
func watchCheck(in *invocation) {
	p := watchOptions.parse(in.args)
	for _, a := range in.args[:len(in.args)-len(p.ops)] {
		if !a.plain() {
			in.confirmOpt(a.val, "cannot tell which command runs")
			return
		}
	}
	if p.unsure != "" {
		in.confirmOpt(p.unsure, "cannot tell which command runs")
		return
	}
	_, exec := p.has("-x", "--exec")
	if in.extra && (!exec || len(p.ops) == 0) {
		// Under xargs or find -exec more words arrive at run time, and
		// without -x they become shell text.
		in.confirm("runs a command made of arguments that arrive at run time")
		return
	}
	if len(p.ops) == 0 {
		return
	}
	if exec {
		in.runs(p.ops, false)
		return
	}
	words := make([]string, len(p.ops))
	for k, a := range p.ops {
		if a.expanded {
			in.confirm("runs a command computed at run time")
			return
		}
		words[k] = a.val
	}
	in.source(strings.Join(words, " "))
}

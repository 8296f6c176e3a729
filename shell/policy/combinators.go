package policy

import "strings"

// longMatch reports whether the option a (perhaps "--opt=value") is, or
// abbreviates, the long option long; GNU tools accept unambiguous prefixes.
func longMatch(a, long string) bool {
	if i := strings.IndexByte(a, '='); i >= 0 {
		a = a[:i]
	}
	return len(a) > 2 && strings.HasPrefix(long, a)
}

// hasFlag reports whether any argument sets one of the short letters (in a
// cluster such as -rfo) or one of the long options.
func hasFlag(args []arg, short string, long ...string) (string, bool) {
	for _, a := range args {
		v := a.val
		if !a.option() {
			continue
		}
		if strings.HasPrefix(v, "--") {
			for _, l := range long {
				if longMatch(v, l) {
					return v, true
				}
			}
			continue
		}
		if short != "" && strings.ContainsAny(v[1:], short) {
			return v, true
		}
	}
	return "", false
}

// operands returns the arguments that are not options.
func operands(args []arg) []arg {
	var out []arg
	ended := false
	for _, a := range args {
		if !ended && a.val == "--" {
			ended = true
			continue
		}
		if !ended && a.option() {
			continue
		}
		out = append(out, a)
	}
	return out
}

func argVals(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.val
	}
	return out
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// noFlags is safe unless one of the given options appears.
func noFlags(why, short string, long ...string) check {
	return func(in *invocation) {
		if f, ok := hasFlag(in.args, short, long...); ok {
			in.confirmOpt(f, why)
		}
	}
}

// onlyFlags is safe when every option is in the list.
func onlyFlags(why string, allowed ...string) check {
	return func(in *invocation) {
		for _, a := range in.args {
			if a.option() && !contains(allowed, a.val) {
				in.confirmOpt(a.val, why)
				return
			}
		}
	}
}

// maxOperands is safe with at most n operands (the rest would be output files).
func maxOperands(n int, why string) check {
	return func(in *invocation) {
		if len(operands(in.args)) > n {
			in.confirm(why)
		}
	}
}

// noOperands is safe unless an operand is one of the listed verbs.
func noOperands(why string, verbs ...string) check {
	return func(in *invocation) {
		for _, a := range in.args {
			if contains(verbs, a.val) {
				in.confirmOpt(a.val, why)
				return
			}
		}
	}
}

// subcommands is safe when the first argument (or the first two, joined by a
// space) is one of the listed read-only subcommands.
func subcommands(why string, safe ...string) check {
	return func(in *invocation) {
		if len(in.args) == 0 {
			if contains(safe, "") {
				return
			}
			in.confirm(why)
			return
		}
		first := in.args[0].val
		if len(in.args) > 1 && contains(safe, first+" "+in.args[1].val) {
			return
		}
		if contains(safe, first) {
			return
		}
		in.confirmOpt(first, why)
	}
}

// queryOnly is safe when the first argument is one of the read-only
// queries and at most max arguments are given: `scutil --get X --set Y Z`
// would set Y after the query.
func queryOnly(why string, max int, queries ...string) check {
	return func(in *invocation) {
		if len(in.args) == 0 || !contains(queries, in.args[0].val) {
			subcommands(why, queries...)(in)
			return
		}
		if len(in.args) > max {
			in.confirmOpt(in.args[max].val, why)
		}
	}
}

// networkVerbs asks when the first argument is one of verbs.
func networkVerbs(why string, verbs ...string) check {
	return func(in *invocation) {
		if len(in.args) > 0 && contains(verbs, in.args[0].val) {
			in.confirmAs(Network, in.args[0].val, why)
		}
	}
}

// noURL asks when an operand is a URL, which the program would fetch.
func noURL(why string) check {
	return func(in *invocation) {
		for _, a := range operands(in.args) {
			if strings.Contains(a.val, "://") {
				in.confirmAs(Network, a.val, "uses the network")
				return
			}
		}
	}
}

// noResponseFile: binutils read more options from the file an @file
// argument names, where --plugin loads code the command line never shows.
func noResponseFile(in *invocation) {
	for _, a := range in.args {
		if strings.HasPrefix(a.val, "@") && len(a.val) > 1 {
			in.confirmOpt(a.val, "reads more options from a file, which can load a plugin")
			return
		}
	}
}

// pathUnder reports whether p is root or a path below it.
func pathUnder(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

// both applies two checks.
func both(a, b check) check { return func(in *invocation) { a(in); b(in) } }

// firstOf applies b only when a found nothing to say, so one reason names
// the problem.
func firstOf(a, b check) check {
	return func(in *invocation) {
		n := len(in.c.v.reasons)
		if a(in); len(in.c.v.reasons) == n {
			b(in)
		}
	}
}

// optionSpec is what a program's parser knows about its options, so that an
// option's value is never read as an operand or a verb: in `systemctl -p
// status stop ssh`, status is the property -p shows and stop is the verb.
// Only options that take a value need listing; the others are flags.
type optionSpec struct {
	short string   // letters that take a value: -pVALUE, -p VALUE, -ap VALUE
	stuck string   // letters whose value, if any, is the rest of the word (git tag -n3)
	long  []string // long options that take a value: --opt=VALUE, --opt VALUE
	// flags are the long options that take none. With them listed, an
	// abbreviation (getopt_long and git accept any unambiguous prefix)
	// resolves as the program would resolve it; without them, one that
	// could stand for a value-taking option is left unsure.
	flags  []string
	abbrev bool // long options may be abbreviated
	stop   bool // options end at the first operand (no GNU permutation)
}

// parsedOption is one option as the program's parser reads it.
type parsedOption struct {
	name     string // "-p" or "--property" once resolved; an unknown one as written, before any "="
	value    string
	hasValue bool
	word     arg // the word that held the option (for -ap, the cluster)
}

// parsedArgs are a program's arguments split as its parser splits them.
type parsedArgs struct {
	opts []parsedOption
	ops  []arg
	// unsure is the first option whose meaning the spec cannot settle (an
	// abbreviation of both a flag and a value-taking option, or of one the
	// spec does not list as a flag): whatever follows could be its value.
	unsure string
}

// resolveLong returns the long option name stands for and whether it takes
// a value; ok is false when the spec cannot tell.
func (s optionSpec) resolveLong(name string) (full string, takes, ok bool) {
	if contains(s.long, name) {
		return name, true, true
	}
	if contains(s.flags, name) || !s.abbrev {
		return name, false, true
	}
	var values, flags []string
	for _, l := range s.long {
		if strings.HasPrefix(l, name) {
			values = append(values, l)
		}
	}
	for _, l := range s.flags {
		if strings.HasPrefix(l, name) {
			flags = append(flags, l)
		}
	}
	switch {
	case len(values) == 0 && len(flags) > 0:
		return flags[0], false, true
	case len(values) == 0:
		return name, false, true // no option of this spelling: the program refuses it
	case len(values) == 1 && len(flags) == 0 && s.flags != nil:
		return values[0], true, true
	}
	return name, false, false
}

// parse splits args as the program's option parser would.
func (s optionSpec) parse(args []arg) parsedArgs {
	var p parsedArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		if v == "--" {
			p.ops = append(p.ops, args[i+1:]...)
			break
		}
		if !a.option() {
			p.ops = append(p.ops, a)
			if s.stop {
				p.ops = append(p.ops, args[i+1:]...)
				break
			}
			continue
		}
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i].val, true
			}
			return "", false
		}
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v, "=")
			full, takes, ok := s.resolveLong(name)
			if !ok {
				if p.unsure == "" {
					p.unsure = v
				}
				if !eq {
					continue
				}
			}
			o := parsedOption{name: full, word: a, value: val, hasValue: eq}
			if takes && !eq {
				o.value, o.hasValue = next()
			}
			p.opts = append(p.opts, o)
			continue
		}
		for j := 1; j < len(v); j++ {
			o := parsedOption{name: "-" + v[j:j+1], word: a}
			if strings.IndexByte(s.stuck, v[j]) >= 0 {
				o.value, o.hasValue = v[j+1:], j+1 < len(v)
				p.opts = append(p.opts, o)
				break
			}
			if strings.IndexByte(s.short, v[j]) >= 0 {
				if j+1 < len(v) {
					o.value, o.hasValue = v[j+1:], true
				} else {
					o.value, o.hasValue = next()
				}
				p.opts = append(p.opts, o)
				break
			}
			p.opts = append(p.opts, o)
		}
	}
	return p
}

// has reports whether an option of one of the names was given, and how
// it was written.
func (p parsedArgs) has(names ...string) (string, bool) {
	for _, o := range p.opts {
		if contains(names, o.name) {
			return o.word.val, true
		}
	}
	return "", false
}

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

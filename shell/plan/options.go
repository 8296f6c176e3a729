package plan

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shopt applies `shopt -s|-u NAME…` to p. A name the model does not know
// changes nothing it reads; a word only known when the line runs makes the
// options "cannot tell".
func shopt(env Env, p Place, args []*syntax.Word) Place {
	on, viaSet, query := true, false, false
	var names []string
	for _, a := range args {
		l, ok := Literal(a)
		if !ok {
			p.Unknown = "shopt with an option only known when it runs"
			return p
		}
		if strings.HasPrefix(l, "-") && len(l) > 1 {
			for _, c := range l[1:] {
				switch c {
				case 's':
					on = true
				case 'u':
					on = false
				case 'o':
					viaSet = true
				case 'q', 'p':
					query = true
				}
			}
			continue
		}
		names = append(names, l)
	}
	if query && len(names) == 0 {
		return p
	}
	hasMode := false
	for _, a := range args {
		if l := a.Lit(); strings.HasPrefix(l, "-") && strings.ContainsAny(l, "su") {
			hasMode = true
		}
	}
	if !hasMode {
		return p // shopt NAME only prints
	}
	for _, n := range names {
		if viaSet {
			p.Opts = setOption(p.Opts, n, on)
			continue
		}
		switch n {
		case "dotglob":
			p.Opts.DotGlob = on
		case "nullglob":
			p.Opts.NullGlob = on
		case "failglob":
			p.Opts.FailGlob = on
		case "nocaseglob":
			p.Opts.NoCaseGlob = on
		case "globstar":
			p.Opts.GlobStar = on
		case "extglob":
			p.Opts.ExtGlob = on
		case "lastpipe":
			p.Opts.lastPipe = on
		case "globskipdots", "globasciiranges", "nocasematch", "dirspell", "cdspell", "cdable_vars", "autocd":
			if n == "cdable_vars" || n == "cdspell" || n == "autocd" || (n == "globskipdots" && !on) {
				p.Unknown = "shopt " + n + " changes how names are found in ways Hark does not follow"
			}
		}
	}
	return p
}

// setBuiltin applies the options of `set` that change expansion: -f / +f
// and -o / +o noglob, and the positional parameters it sets.
func setBuiltin(env Env, p Place, args []*syntax.Word) Place {
	for i := 0; i < len(args); i++ {
		l, ok := Literal(args[i])
		if !ok {
			p.Unknown = "set with an option only known when it runs"
			return p
		}
		if l == "--" || l == "-" {
			return setPositional(env, p, args[i+1:])
		}
		if len(l) < 2 || (l[0] != '-' && l[0] != '+') {
			return setPositional(env, p, args[i:])
		}
		on := l[0] == '-'
		for _, c := range l[1:] {
			switch c {
			case 'f':
				p.Opts.NoGlob = on
			case 'P':
				p.Opts.Physical = on
			case 'o':
				if i+1 < len(args) {
					i++
					n, ok := Literal(args[i])
					if !ok {
						p.Unknown = "set -o with an option only known when it runs"
						return p
					}
					p.Opts = setOption(p.Opts, n, on)
				}
			}
		}
	}
	return p
}

func setOption(o Options, name string, on bool) Options {
	switch name {
	case "noglob":
		o.NoGlob = on
	case "physical":
		o.Physical = on
	}
	return o
}

// positional is the name, in Place.Vars, of the positional parameters as
// an array value; absent, they are whatever the line was started with.
const positional = "@"

// setPositional gives the positional parameters the values words expand
// to at p, so that set -- ~; rm -rf "$1" is read as rm -rf ~.
func setPositional(env Env, p Place, words []*syntax.Word) Place {
	ex := env.Expand(p, words)
	if ex.Unknown != "" || ex.NoRun != "" || anyPattern(ex.Fields) && !env.Disk {
		return setVar(p, positional, unknownVar)
	}
	vals := make([]string, len(ex.Fields))
	for i, f := range ex.Fields {
		vals[i] = f.Value
	}
	return setVar(p, positional, arrayValue(vals))
}

// shift drops the first n positional parameters.
func shift(p Place, args []*syntax.Word) Place {
	n := 1
	if len(args) > 0 {
		l, ok := Literal(args[0])
		if !ok || !isDigits(l) {
			return setVar(p, positional, unknownVar)
		}
		n, _ = strconv.Atoi(l)
	}
	v, ok := p.Vars[positional]
	if !ok || v == unknownVar {
		return setVar(p, positional, unknownVar)
	}
	elems, _ := arrayOf(v)
	if n > len(elems) {
		return p // bash: shift count out of range, nothing shifts
	}
	return setVar(p, positional, arrayValue(elems[n:]))
}

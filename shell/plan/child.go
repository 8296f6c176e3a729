package plan

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// exportMark prefixes, in Place.Vars, the name of a variable the line
// marked for export; its value stays under the plain name.
const exportMark = "\x00export "

// seed gives the start place the positional parameters and exported
// variables Env says the line starts with.
func (env Env) seed(p Place) Place {
	if env.Args != nil {
		p = setVar(p, "0", env.Args[0])
		p = setVar(p, positional, arrayValue(env.Args[1:]))
	}
	for _, k := range slices.Sorted(maps.Keys(env.Exported)) {
		p = setVar(setVar(p, k, env.Exported[k]), exportMark+k, "")
	}
	return p
}

// Exports are the variables a command started at p finds in its
// environment, as far as the model knows them: those the line exported
// (export, declare -x, an assignment to a name exported before) and the
// assignments written in front of the command (x=~ bash -c …). A name
// whose value the model cannot tell is left out, and so is one the line
// set without exporting: the child may or may not have it, which it reads
// as "cannot tell".
func (env Env) Exports(p Place, assigns []*syntax.Assign) map[string]string {
	if p.Unknown != "" {
		return nil
	}
	out := map[string]string{}
	for k := range p.Vars {
		name, ok := strings.CutPrefix(k, exportMark)
		if !ok {
			continue
		}
		if v, known := lookupKnown(env, p, name); known && isScalar(v) && p.Vars[name] != unsetVar {
			out[name] = v
		}
	}
	w := &walker{env: env}
	for _, a := range assigns {
		if a.Name == nil || a.Array != nil || a.Index != nil {
			continue
		}
		ps := w.assign([]Place{p}, a)
		if len(ps) != 1 || ps[0].Unknown != "" {
			delete(out, a.Name.Value)
			continue
		}
		if v := ps[0].Vars[a.Name.Value]; isScalar(v) {
			out[a.Name.Value] = v
		} else {
			delete(out, a.Name.Value)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// isScalar says whether a value in Place.Vars is a known plain string:
// arrays are not passed to a child's environment.
func isScalar(v string) bool {
	return v != unknownVar && v != unsetVar && !strings.HasPrefix(v, "\x00")
}

// exported marks name as exported at p.
func exported(p Place, name string) Place { return setVar(p, exportMark+name, "") }

package plan

import (
	"maps"

	"mvdan.cc/sh/v3/expand"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unknownVar marks, in Place.Vars, a variable the line sets to a value the
// model does not follow (read, a command substitution, arithmetic …).
const unknownVar = "\x00unknown"

// maxCallDepth bounds how deep function calls are followed.
const maxCallDepth = 8

// Calls walks the line as bash would run it and returns every simple
// command in the order of the source, each with the states the shell may
// be in when it runs. A command that can never run (after exit) has no
// Places.
func (s *Script) Calls(env Env) []Call {
	w := &walker{env: env, index: map[*syntax.CallExpr]int{}, funcs: map[string]*syntax.Stmt{}}
	start := Place{Dir: filepath.Clean(env.Dir)}
	if !filepath.IsAbs(env.Dir) {
		start = Place{Unknown: "the starting folder is not known"}
	}
	if why := s.bashRefuses(); why != "" {
		start = Place{Unknown: why}
	}
	if start.Unknown == "" {
		start = env.seed(start)
	}
	w.list(s.File.Stmts, []Place{start}, true, false)
	// Calls the walk never reached (inside a function never called, or an
	// expansion the walk does not enter) are still listed, so nothing of
	// the line goes unread, as "cannot tell".
	syntax.Walk(s.File, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			if _, seen := w.index[c]; !seen {
				w.index[c] = len(w.calls)
				w.calls = append(w.calls, Call{Expr: c, Places: []Place{{Unknown: "Hark does not follow when this command runs"}}})
			}
		}
		return true
	})
	slices.SortStableFunc(w.calls, func(a, b Call) int {
		return int(a.Expr.Pos().Offset()) - int(b.Expr.Pos().Offset())
	})
	return w.calls
}

// bashRefuses says why bash would refuse to run the line at all, or "".
// bash -c parses a line whole before it runs any of it, with extglob off,
// so an extended pattern anywhere is a syntax error there, whatever shopt
// the line itself says.
func (s *Script) bashRefuses() string {
	why := ""
	syntax.Walk(s.File, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.ExtGlob); ok {
			why = "an extended pattern, which bash refuses unless extglob was on before the line"
		}
		return why == ""
	})
	return why
}

type walker struct {
	env   Env
	calls []Call
	index map[*syntax.CallExpr]int
	funcs map[string]*syntax.Stmt
	depth int
	// locals are the names local set in the functions being walked: back
	// in the caller they hold what they held before, which the model does
	// not keep, so they become "cannot tell".
	locals []string
}

// record notes that call runs in places; a call met again (a loop's second
// pass, a function called twice) gains the new places.
func (w *walker) record(c *syntax.CallExpr, places []Place, sure, sub bool) {
	if i, ok := w.index[c]; ok {
		w.calls[i].Places = union(w.calls[i].Places, places)
		w.calls[i].Sure = w.calls[i].Sure && sure
		return
	}
	w.index[c] = len(w.calls)
	w.calls = append(w.calls, Call{Expr: c, Places: slices.Clone(places), Sure: sure, Subshell: sub})
}

// list runs statements in sequence: ok and fail are the states after the
// last one succeeded or failed.
func (w *walker) list(stmts []*syntax.Stmt, in []Place, sure, sub bool) (ok, fail []Place) {
	ok, fail = in, nil
	cur := in
	for i, st := range stmts {
		ok, fail = w.stmt(st, cur, sure, sub)
		if i < len(stmts)-1 {
			cur = union(ok, fail)
		}
	}
	return ok, fail
}

func (w *walker) listAll(stmts []*syntax.Stmt, in []Place, sure, sub bool) []Place {
	ok, fail := w.list(stmts, in, sure, sub)
	return union(ok, fail)
}

func (w *walker) stmt(st *syntax.Stmt, in []Place, sure, sub bool) (ok, fail []Place) {
	if len(in) == 0 {
		sure = false
	}
	if st.Background || st.Coprocess {
		// A background job runs in a subshell: nothing it does reaches
		// the commands after it, which run at once.
		w.cmd(st.Cmd, in, false, true)
		return in, in
	}
	ok, fail = w.cmd(st.Cmd, in, sure, sub)
	if st.Negated {
		ok, fail = fail, ok
	}
	return ok, fail
}

func (w *walker) cmd(c syntax.Command, in []Place, sure, sub bool) (ok, fail []Place) {
	switch c := c.(type) {
	case nil:
		return in, in
	case *syntax.CallExpr:
		return w.call(c, in, sure, sub)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			okX, failX := w.stmt(c.X, in, sure, sub)
			okY, failY := w.stmt(c.Y, okX, false, sub)
			return okY, union(failX, failY)
		case syntax.OrStmt:
			okX, failX := w.stmt(c.X, in, sure, sub)
			okY, failY := w.stmt(c.Y, failX, false, sub)
			return union(okX, okY), failY
		default: // | and |&: every part in a subshell, the last one too unless lastpipe
			w.stmt(c.X, in, sure, true)
			if lastPipe(in) && !isPipe(c.Y) {
				return w.stmt(c.Y, in, sure, sub)
			}
			w.stmt(c.Y, in, sure, true)
			return in, in
		}
	case *syntax.Block:
		return w.list(c.Stmts, in, sure, sub)
	case *syntax.Subshell:
		w.list(c.Stmts, in, sure, true)
		return in, in
	case *syntax.IfClause:
		return w.ifClause(c, in, sure, sub)
	case *syntax.WhileClause:
		return w.loop(in, sub, func(st []Place) []Place {
			okC, failC := w.list(c.Cond, st, false, sub)
			if c.Until {
				okC, failC = failC, okC
			}
			return union(failC, w.listAll(c.Do, okC, false, sub))
		})
	case *syntax.ForClause:
		return w.forClause(c, in, sub)
	case *syntax.CaseClause:
		out := in // no pattern may match
		for _, item := range c.Items {
			out = union(out, w.listAll(item.Stmts, in, false, sub))
		}
		return out, out
	case *syntax.FuncDecl:
		if c.Name != nil {
			w.funcs[c.Name.Value] = c.Body
		}
		return in, in
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return in, in
		}
		return w.stmt(c.Stmt, in, sure, sub)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, in, false, true)
		return in, in
	case *syntax.DeclClause:
		out := in
		if c.Variant.Value == "local" && w.depth == 0 {
			return in, in // bash: local can only be used in a function
		}
		export, assoc := c.Variant.Value == "export", false
		for _, a := range c.Args {
			switch {
			case a.Name != nil && !a.Naked:
				out = w.declAssign(out, a, assoc)
				if c.Variant.Value == "local" {
					w.locals = append(w.locals, a.Name.Value)
				}
			case a.Name != nil:
				// declare -A m makes an empty associative array that
				// m[k]=… fills; export x marks what x holds, now or later
				if assoc {
					out = w.mapPlaces(out, func(p Place) Place { return setVar(p, a.Name.Value, declareAssoc(w.env, p, a.Name.Value)) })
				}
			case a.Value != nil:
				// an option such as -n or -g: the model does not follow
				// what it does to names
				v := a.Value.Lit()
				if v != "" && strings.HasPrefix(v, "-") && strings.ContainsAny(v, "ngiluc") {
					out = markUnknown(out, "declare with -n, -i, -l, -u or -g is not followed")
				}
				if strings.HasPrefix(v, "-") {
					export = export || strings.ContainsRune(v, 'x')
					assoc = assoc || strings.ContainsRune(v, 'A')
				}
			}
			if export && a.Name != nil {
				out = w.mapPlaces(out, func(p Place) Place { return exported(p, a.Name.Value) })
			}
		}
		return out, out
	default: // [[ ]], (( )), let: no effect on folders or options, but
		// they may assign variables
		out := w.arithAssigns(in, c)
		return out, out
	}
}

// arithAssigns marks the variables arithmetic in n assigns ((( x = 1 )),
// let x++, $(( x += 2 ))) as set to values the model does not follow.
func (w *walker) arithAssigns(in []Place, n syntax.Node) []Place {
	if n == nil {
		return in
	}
	var names []string
	syntax.Walk(n, func(n syntax.Node) bool {
		var target syntax.ArithmExpr
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				target = x.X
			}
		case *syntax.UnaryArithm:
			switch x.Op {
			case syntax.Inc, syntax.Dec:
				target = x.X
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // a subshell: its assignments stay there
		}
		if target != nil {
			if wd, ok := target.(*syntax.Word); ok && isName(wd.Lit()) {
				names = append(names, wd.Lit())
			} else {
				names = append(names, "")
			}
		}
		return true
	})
	if len(names) == 0 {
		return in
	}
	return w.mapPlaces(in, func(p Place) Place {
		for _, n := range names {
			if n == "" {
				p.Unknown = "arithmetic assigns a variable Hark cannot name"
				return p
			}
			if n == "GLOBIGNORE" || n == "IFS" {
				p.Unknown = n + " is set to a value Hark cannot read"
				return p
			}
			p = setVar(p, n, unknownVar)
		}
		return p
	})
}

// paramAssigns applies what ${NAME=WORD} and ${NAME:=WORD} in n assign.
func (w *walker) paramAssigns(in []Place, n syntax.Node) []Place {
	var exps []*syntax.ParamExp
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				exps = append(exps, x)
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		}
		return true
	})
	if len(exps) == 0 {
		return in
	}
	var out []Place
	for _, p := range in {
		if p.Unknown != "" {
			out = append(out, p)
			continue
		}
		ps := []Place{p}
		for _, e := range exps {
			var next []Place
			for _, q := range ps {
				name := e.Param.Value
				if _, known := lookupKnown(w.env, q, name); !known {
					// Either it held a value (unknown) or it was unset and
					// now holds the word: both may be.
					next = append(next, setVar(q, name, unknownVar))
					q = setVar(q, name, unsetVar)
				}
				next = append(next, w.paramAssign(q, e))
			}
			ps = next
		}
		out = append(out, ps...)
	}
	return union(out, nil)
}

func (w *walker) paramAssign(p Place, e *syntax.ParamExp) Place {
	name := e.Param.Value
	x := &expander{env: w.env, p: p}
	word, err := x.paramTildes(&syntax.Word{Parts: []syntax.WordPart{e}})
	if err != nil {
		return setVar(p, name, unknownVar)
	}
	if why := x.opaque(word); why != "" {
		return setVar(p, name, unknownVar)
	}
	if _, err := expand.Literal(x.config(), &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: word.Parts}}}); err != nil {
		return setVar(p, name, unknownVar)
	}
	if v, ok := x.sets[name]; ok {
		return setVar(p, name, v)
	}
	return p
}

func isPipe(st *syntax.Stmt) bool {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	return ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll)
}

func lastPipe(in []Place) bool {
	for _, p := range in {
		if p.Opts.lastPipe {
			return true
		}
	}
	return false
}

func (w *walker) ifClause(c *syntax.IfClause, in []Place, sure, sub bool) (ok, fail []Place) {
	okC, failC := w.list(c.Cond, in, sure && len(c.Cond) > 0, sub)
	then := w.listAll(c.Then, okC, false, sub)
	var other []Place
	switch {
	case c.Else == nil:
		other = failC
	case len(c.Else.Cond) == 0: // a plain else
		other = w.listAll(c.Else.Then, failC, false, sub)
	default: // elif
		o1, f1 := w.ifClause(c.Else, failC, false, sub)
		other = union(o1, f1)
	}
	out := union(then, other)
	return out, out
}

// loop models a body that may run any number of times: the states it may
// start a pass in grow until one more pass adds none (bash's own loop,
// run on the model); a loop whose states keep growing, as cd .. does, is
// "cannot tell".
func (w *walker) loop(in []Place, sub bool, once func([]Place) []Place) (ok, fail []Place) {
	cur := in
	for range maxLoopPasses {
		next := union(cur, once(cur))
		if samePlaces(next, cur) {
			return next, next
		}
		cur = next
	}
	out := union(in, markUnknown(cur, "a loop changes the folder, options or variables as it repeats"))
	once(out)
	return out, out
}

// maxLoopPasses bounds the passes loop tries before it gives up.
const maxLoopPasses = 4

func (w *walker) forClause(c *syntax.ForClause, in []Place, sub bool) (ok, fail []Place) {
	wi, isWords := c.Loop.(*syntax.WordIter)
	if !isWords {
		in = w.arithAssigns(in, c.Loop)
		return w.loop(in, sub, func(st []Place) []Place { return w.arithAssigns(w.listAll(c.Do, st, false, sub), c.Loop) })
	}
	name := wi.Name.Value
	// Each item is its own state, as long as the items are known.
	var items []Place
	for _, p := range in {
		if p.Unknown != "" {
			items = append(items, p)
			continue
		}
		var ex Expansion
		if wi.InPos.IsValid() {
			ex = w.env.Expand(p, wi.Items)
		} else {
			ex = Expansion{Unknown: "a for loop over the positional parameters"}
		}
		if ex.Unknown != "" || ex.NoRun != "" {
			items = append(items, setVar(p, name, unknownVar))
			continue
		}
		for _, f := range ex.Fields {
			items = append(items, setVar(p, name, f.Value))
		}
	}
	if len(items) > maxLoopItems {
		items = markUnknown(items[:1], "a loop over more items than Hark follows")
	}
	after := w.listAll(c.Do, items, false, sub)
	if !sameIgnoring(after, items, name) {
		// The body changes state from one item to the next.
		again := union(items, markUnknown(after, "a loop changes the folder, options or variables as it repeats"))
		after = union(after, w.listAll(c.Do, again, false, sub))
	}
	out := union(in, after) // no items: the body never runs
	return out, out
}

// maxLoopItems bounds the items of a for loop followed one by one.
const maxLoopItems = 200

func (w *walker) call(c *syntax.CallExpr, in []Place, sure, sub bool) (ok, fail []Place) {
	w.record(c, in, sure, sub)
	// $( … ), ` … ` and <( … ) in the words run first, each in a subshell.
	for _, a := range c.Assigns {
		if a.Value != nil {
			w.substitutions(a.Value, in, sure)
		}
	}
	for _, a := range c.Args {
		w.substitutions(a, in, sure)
	}
	// $(( x = 1 )) and ${x:=…} in the words assign in this shell, before
	// the command runs.
	in = w.arithAssigns(in, c)
	in = w.paramAssigns(in, c)
	if len(c.Args) == 0 { // assignments that stay in the shell
		out := in
		for _, a := range c.Assigns {
			out = w.assign(out, a)
		}
		return out, out
	}
	if len(c.Assigns) > 0 {
		// NAME=value cmd: the values are for cmd alone, but a variable
		// the command reads (HOME for cd, GLOBIGNORE for nothing) is the
		// shell's own only for special builtins; the model keeps them out.
	}
	args := c.Args
	name := args[0].Lit()
	for (name == "builtin" || name == "command") && len(args) > 1 {
		args = args[1:]
		name = args[0].Lit()
		if strings.HasPrefix(name, "-") { // command -v, -p …: a query, or not followed
			return in, in
		}
	}
	switch name {
	case "":
		// A name only known when the line runs may be anything, cd too.
		if len(c.Args) > 0 && c.Args[0].Lit() == "" {
			out := markUnknown(in, "a command whose name is only known when it runs")
			return out, out
		}
	case "true", ":":
		return in, nil
	case "false":
		return nil, in
	case "exit", "exec", "logout":
		if name == "exec" && len(args) == 1 {
			return in, in // exec with only redirections
		}
		return nil, nil
	case "return":
		if w.depth > 0 {
			return nil, nil
		}
		return in, in
	case "cd", "pushd":
		return w.cd(name, args[1:], in)
	case "popd":
		out := markUnknown(in, "popd returns to a folder Hark does not follow")
		return out, out
	case "shopt":
		out := w.mapPlaces(in, func(p Place) Place { return shopt(w.env, p, args[1:]) })
		return out, out
	case "set":
		out := w.mapPlaces(in, func(p Place) Place { return setBuiltin(w.env, p, args[1:]) })
		return out, out
	case "unset":
		out := w.mapPlaces(in, func(p Place) Place { return unset(p, args[1:]) })
		return out, out
	case "shift":
		out := w.mapPlaces(in, func(p Place) Place { return shift(p, args[1:]) })
		return out, out
	case "eval", "source", ".", "trap", "enable", "alias":
		out := markUnknown(in, name+" may change the folder or the shell's options")
		return out, out
	case "printf":
		out := w.mapPlaces(in, func(p Place) Place { return printfVar(w.env, p, args[1:]) })
		return out, out
	case "read", "mapfile", "readarray", "getopts", "let", "export", "declare", "typeset", "local", "readonly":
		out := w.mapPlaces(in, func(p Place) Place { return dynamicVars(p, name, args[1:]) })
		return out, out
	}
	if body, ok := w.funcs[name]; ok {
		if w.depth >= maxCallDepth {
			out := markUnknown(in, "functions call each other deeper than Hark follows")
			return out, out
		}
		w.depth++
		mark := len(w.locals)
		defer func() { w.depth--; w.locals = w.locals[:mark] }()
		// The body runs here, in this shell: its cd and shopt stay. Its
		// positional parameters are the call's arguments, and the
		// caller's come back after it.
		callArgs := args[1:]
		bodyIn := w.mapPlaces(in, func(p Place) Place { return setPositional(w.env, p, callArgs) })
		ok, fail := w.stmt(body, bodyIn, false, sub)
		restore := func(ps []Place) []Place {
			return w.mapPlaces(ps, func(p Place) Place { return setVar(p, positional, callerPositional(in)) })
		}
		ok, fail = restore(ok), restore(fail)
		forget := func(ps []Place) []Place {
			return w.mapPlaces(ps, func(p Place) Place {
				for _, n := range w.locals[mark:] {
					p = setVar(p, n, unknownVar)
				}
				return p
			})
		}
		if len(w.locals) > mark {
			ok, fail = forget(ok), forget(fail)
		}
		return ok, fail
	}
	return in, in
}

// callerPositional is what the positional parameters hold in every place
// of in, or unknownVar where the places differ or the line never set them.
func callerPositional(in []Place) string {
	v, first := "", true
	for _, p := range in {
		pv, ok := p.Vars[positional]
		if !ok {
			pv = unknownVar // the line's own, which the model does not keep
		}
		if !first && pv != v {
			return unknownVar
		}
		v, first = pv, false
	}
	return v
}

func (w *walker) substitutions(n syntax.Node, in []Place, sure bool) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			w.list(x.Stmts, in, sure, true)
			return false
		case *syntax.ProcSubst:
			w.list(x.Stmts, in, false, true)
			return false
		}
		return true
	})
}

func (w *walker) mapPlaces(in []Place, f func(Place) Place) []Place {
	out := make([]Place, 0, len(in))
	for _, p := range in {
		if p.Unknown != "" {
			out = append(out, p)
			continue
		}
		out = append(out, f(p))
	}
	return union(out, nil)
}

// cd models cd and pushd: on success the folder is the target; on failure
// (no such folder) the shell goes on where it was.
func (w *walker) cd(name string, args []*syntax.Word, in []Place) (ok, fail []Place) {
	mode := byte(0) // 'L' or 'P' when an option says; else set -P decides
	for len(args) > 0 {
		a := args[0].Lit()
		if a == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || a == "" {
			break
		}
		for i := 1; i < len(a); i++ {
			if a[i] == 'L' || a[i] == 'P' {
				mode = a[i]
			}
		}
		args = args[1:]
	}
	for _, p := range in {
		if p.Unknown != "" {
			ok, fail = append(ok, p), append(fail, p)
			continue
		}
		physical := mode == 'P' || mode == 0 && p.Opts.Physical
		target, why := w.cdTarget(name, p, args)
		if why != "" {
			u := markUnknown([]Place{p}, why)
			ok, fail = append(ok, u...), append(fail, u...)
			continue
		}
		raw := target
		if !filepath.IsAbs(target) {
			raw = p.Dir + "/" + target
		}
		switch {
		case physical && w.env.Disk:
			// cd -P: the folder the kernel reaches, '..' after a link
			// included
			target, why = w.env.Resolve(p.Dir, target)
		case physical:
			why = "cd -P follows links Hark does not look at here"
		default:
			// cd: '..' takes back the last name as written, but bash
			// still has each name before a '..' be a folder
			target = filepath.Clean(raw)
		}
		if w.env.Disk && strings.Contains(raw, "..") {
			if isDir, err := w.env.fs().IsDir(raw); err == nil && !isDir || isNotExist(err) {
				fail = append(fail, p)
				continue
			}
		}
		if why != "" {
			u := markUnknown([]Place{p}, why)
			ok, fail = append(ok, u...), append(fail, u...)
			continue
		}
		moved := setVar(setVar(p, "OLDPWD", p.Dir), "PWD", target)
		moved.Dir = target
		if w.env.Disk {
			switch isDir, err := w.env.fs().IsDir(target); {
			case err == nil && isDir:
				ok = append(ok, moved)
				continue
			case err == nil || isNotExist(err):
				fail = append(fail, p)
				continue
			}
		}
		ok, fail = append(ok, moved), append(fail, p)
	}
	return union(ok, nil), union(fail, nil)
}

func (w *walker) cdTarget(name string, p Place, args []*syntax.Word) (string, string) {
	if len(args) == 0 {
		if name == "pushd" {
			return "", "pushd without a folder swaps folders Hark does not follow"
		}
		home, ok := lookup(w.env, p, "HOME")
		if !ok || home == "" {
			return "", "cd without a folder goes to $HOME, which is not known"
		}
		return home, ""
	}
	if len(args) > 1 && name == "cd" {
		return p.Dir, "" // bash: too many arguments, and it fails; stays is the same as fails
	}
	ex := w.env.Expand(p, args[:1])
	if ex.Unknown != "" {
		return "", ex.Unknown
	}
	if ex.NoRun != "" || len(ex.Fields) != 1 {
		return p.Dir, ""
	}
	t := ex.Fields[0].Value
	switch {
	case ex.Fields[0].Pattern:
		return "", "cd to a pattern Hark did not expand"
	case t == "-":
		old, ok := lookup(w.env, p, "OLDPWD")
		if !ok || old == "" {
			return "", "cd - returns to a folder Hark does not know"
		}
		return old, ""
	case strings.HasPrefix(name, "pushd") && (strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-")):
		return "", "pushd +N rotates folders Hark does not follow"
	case t == "":
		return p.Dir, ""
	}
	if !filepath.IsAbs(t) && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") && t != "." && t != ".." {
		if cdp, ok := lookup(w.env, p, "CDPATH"); ok && cdp != "" {
			return "", "CDPATH is set, so cd may pick another folder of that name"
		}
	}
	return t, ""
}

// assign applies NAME=value (a shell variable, or one of the variables
// that change expansion).
func (w *walker) assign(in []Place, a *syntax.Assign) []Place {
	if a.Name == nil {
		return in
	}
	name := a.Name.Value
	return w.mapPlaces(in, func(p Place) Place {
		val := unknownVar
		old, _ := lookupKnown(w.env, p, name)
		_, isAssoc := assocOf(old)
		switch {
		case a.Index != nil && a.Array == nil:
			val = w.elemAssign(p, a, w.scalar(p, a.Value))
		case a.Array != nil && isAssoc:
			val = w.assocAssign(p, a)
		case a.Array != nil:
			val = w.arrayAssign(p, a)
		case isAssoc || strings.HasPrefix(old, sparseMark) || strings.HasPrefix(old, arrayMark):
			// NAME=value on an array sets its element 0
			val = w.elemAssign(p, &syntax.Assign{Name: a.Name, Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "0"}}}, Value: a.Value, Append: a.Append}, w.scalar(p, a.Value))
		default:
			val = w.scalar(p, a.Value)
			if a.Append && val != unknownVar {
				old, ok := lookup(w.env, p, name)
				if _, isArray := arrayOf(old); !ok || isArray {
					val = unknownVar
				} else {
					val = old + val
				}
			}
		}
		if name == "GLOBIGNORE" {
			if val == unknownVar {
				p.Unknown = "GLOBIGNORE is set to a value Hark cannot read"
				return p
			}
			p.Opts.GlobIgnore = val
		}
		return setVar(p, name, val)
	})
}

// scalar is the value NAME=WORD gives NAME: the word expanded without
// splitting or globbing, or unknownVar.
func (w *walker) scalar(p Place, word *syntax.Word) string {
	if word == nil {
		return ""
	}
	ex := w.env.expandValue(p, []*syntax.Word{word})
	if ex.Unknown != "" || len(ex.Fields) > 1 || anyPattern(ex.Fields) {
		return unknownVar
	}
	val := ""
	if len(ex.Fields) == 1 {
		val = ex.Fields[0].Value
	}
	return assignValue(w.env, p, word, val)
}

// arrayAssign is the value of NAME=(…) or NAME+=(…): each element is
// expanded as a command's words are (split and globbed); an element with
// its own [index]= is not followed.
func (w *walker) arrayAssign(p Place, a *syntax.Assign) string {
	var elems []string
	if a.Append {
		old, ok := lookup(w.env, p, a.Name.Value)
		if !ok {
			return unknownVar
		}
		if strings.HasPrefix(old, assocMark) || strings.HasPrefix(old, sparseMark) {
			return unknownVar
		}
		if prev, isArray := arrayOf(old); isArray {
			elems = prev
		} else if old != "" || w.env.Unset {
			elems = []string{old}
		}
	}
	for _, e := range a.Array.Elems {
		if e.Index != nil || e.Value == nil {
			return unknownVar
		}
		ex := w.env.expandValue(p, []*syntax.Word{e.Value})
		if ex.Unknown != "" || ex.NoRun != "" || anyPattern(ex.Fields) && !w.env.Disk {
			return unknownVar
		}
		for _, f := range ex.Fields {
			if f.Pattern {
				return unknownVar
			}
			elems = append(elems, f.Value)
		}
	}
	return arrayValue(elems)
}

func anyPattern(fs []Field) bool {
	for _, f := range fs {
		if f.Pattern || f.Glob {
			return true
		}
	}
	return false
}

// assignValue is the value of an assignment: no word splitting and no
// globbing, so it is the word's literal value when it has no expansions,
// and what Expand found (with the single field joined) otherwise.
func assignValue(env Env, p Place, w *syntax.Word, expanded string) string {
	if lit, ok := Literal(w); ok {
		if strings.HasPrefix(lit, "~") {
			return expanded // tilde expands in assignments
		}
		return lit
	}
	return expanded
}

func unset(p Place, args []*syntax.Word) Place {
	for _, a := range args {
		n := a.Lit()
		if n == "" {
			p.Unknown = "unset of a name only known when it runs"
			return p
		}
		if strings.HasPrefix(n, "-") {
			continue
		}
		if n == "GLOBIGNORE" {
			p.Opts.GlobIgnore = ""
		}
		p = setVar(p, n, "")
		delete(p.Vars, n)
		delete(p.Vars, exportMark+n)
		p.Vars = withUnset(p.Vars, n)
	}
	return p
}

// unsetVar marks a variable the line unset, over what Env.Vars says.
const unsetVar = "\x00unset"

func withUnset(vars map[string]string, n string) map[string]string {
	if vars == nil {
		vars = map[string]string{}
	}
	vars[n] = unsetVar
	return vars
}

// dynamicVars marks the variables that read, printf -v, declare … may set
// to values the model does not follow.
func dynamicVars(p Place, name string, args []*syntax.Word) Place {
	switch name {
	case "export", "declare", "typeset", "local", "readonly":
		return p // their NAME=value words are DeclClause assignments, handled there
	case "printf":
		for i, a := range args {
			if a.Lit() == "-v" && i+1 < len(args) {
				return markVar(p, args[i+1])
			}
		}
		return p
	}
	for _, a := range args {
		l := a.Lit()
		if l == "" {
			p.Unknown = name + " sets a name only known when it runs"
			return p
		}
		if !strings.HasPrefix(l, "-") {
			p = markVar(p, a)
		}
	}
	if name == "mapfile" || name == "readarray" {
		p = setVar(p, "MAPFILE", unknownVar)
	}
	if name == "read" {
		p = setVar(p, "REPLY", unknownVar)
	}
	return p
}

// printfVar applies printf -v NAME FORMAT ARGS: NAME holds what printf
// would print, when the model reads the format (see echoOutput), else a
// value it does not follow.
func printfVar(env Env, p Place, args []*syntax.Word) Place {
	if len(args) < 2 || args[0].Lit() != "-v" {
		return dynamicVars(p, "printf", args)
	}
	name := args[1].Lit()
	if !isName(name) {
		return dynamicVars(p, "printf", args)
	}
	ex := env.Expand(p, args[2:])
	if ex.Unknown != "" || ex.NoRun != "" || anyPattern(ex.Fields) {
		return dynamicVars(p, "printf", args)
	}
	vals := make([]string, len(ex.Fields))
	for i, f := range ex.Fields {
		vals[i] = f.Value
	}
	out, ok := echoOutput("printf", vals)
	if !ok || name == "GLOBIGNORE" || name == "IFS" {
		return dynamicVars(p, "printf", args)
	}
	return setVar(p, name, out)
}

func markVar(p Place, w *syntax.Word) Place {
	n := w.Lit()
	if n == "" {
		p.Unknown = "a variable whose name is only known when it runs"
		return p
	}
	if n == "GLOBIGNORE" || n == "IFS" {
		p.Unknown = n + " is set to a value Hark cannot read"
	}
	return setVar(p, n, unknownVar)
}

func setVar(p Place, name, val string) Place {
	vars := make(map[string]string, len(p.Vars)+1)
	maps.Copy(vars, p.Vars)
	vars[name] = val
	p.Vars = vars
	return p
}

// lookup is a variable's value at p: what the line set, else the
// environment's. ok is false when it cannot be told (unless Env.Unset
// takes it as unset). An array's value is its arrayOf form.
func lookup(env Env, p Place, name string) (string, bool) {
	v, ok := lookupKnown(env, p, name)
	if !ok && env.Unset {
		return "", true
	}
	return v, ok
}

func lookupKnown(env Env, p Place, name string) (string, bool) {
	if isPositional(name) {
		return positionalParam(env, p, name)
	}
	if v, ok := p.Vars[name]; ok {
		switch v {
		case unknownVar:
			return "", false
		case unsetVar:
			return "", true
		}
		return v, true
	}
	switch {
	case name == "PWD":
		return p.Dir, p.Dir != ""
	case name == "OLDPWD" && env.OldPwdIsStart:
		return env.startDir(), env.startDir() != ""
	case name == "HOME" && env.Home != "":
		if v, ok := env.Vars["HOME"]; ok {
			return v, true
		}
		return env.Home, true
	}
	if env.Vars == nil {
		return "", false
	}
	return env.Vars[name], true
}

// positionalParam is $1…, $@, $* or $# from the parameters the line set
// (set --, a function's arguments). Those the line was started with are
// none when the whole environment is known (bash -c LINE), else not known.
func positionalParam(env Env, p Place, name string) (string, bool) {
	v, ok := p.Vars[positional]
	if !ok && env.Vars != nil {
		v, ok = arrayValue(nil), true
	}
	if name == "0" {
		v0, ok0 := p.Vars["0"]
		return v0, ok0
	}
	if !ok || v == unknownVar {
		return "", false
	}
	elems, _ := arrayOf(v)
	switch name {
	case "@", "*":
		return v, true
	case "#":
		return strconv.Itoa(len(elems)), true
	}
	i, err := strconv.Atoi(name)
	if err != nil || i > len(elems) {
		return "", true
	}
	return elems[i-1], true
}

// startDir is the folder the line starts in, clean, or "".
func (env Env) startDir() string {
	if !filepath.IsAbs(env.Dir) {
		return ""
	}
	return filepath.Clean(env.Dir)
}

// arrayMark starts, in Place.Vars, the value of an indexed array, whose
// elements follow it, each as a Go-quoted string.
const arrayMark = "\x00array\x00"

func arrayValue(elems []string) string {
	var sb strings.Builder
	sb.WriteString(arrayMark)
	for _, e := range elems {
		sb.WriteString(strconv.Quote(e))
	}
	return sb.String()
}

// arrayOf is the elements of an array value, of any kind.
func arrayOf(v string) ([]string, bool) {
	if m, ok := assocOf(v); ok {
		vals := make([]string, 0, len(m))
		for k, e := range m {
			if k != restKey {
				vals = append(vals, e)
			}
		}
		slices.Sort(vals)
		return vals, true
	}
	_, vals, ok := indexedOf(v)
	return vals, ok
}

// denseOf is the elements of an indexed array without gaps.
func denseOf(v string) ([]string, bool) {
	rest, ok := strings.CutPrefix(v, arrayMark)
	if !ok {
		return nil, false
	}
	out := []string{}
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		e, _ := strconv.Unquote(q)
		out = append(out, e)
		rest = rest[len(q):]
	}
	return out, true
}

func markUnknown(in []Place, why string) []Place {
	if len(in) == 0 {
		return nil
	}
	for _, p := range in {
		if p.Unknown != "" {
			return []Place{p}
		}
	}
	return []Place{{Unknown: why}}
}

// union is a ∪ b without repeats; past maxPlaces the states collapse into
// one that cannot be told.
func union(a, b []Place) []Place {
	out := make([]Place, 0, len(a)+len(b))
	for _, p := range append(slices.Clone(a), b...) {
		if !slices.ContainsFunc(out, func(q Place) bool { return samePlace(p, q) }) {
			out = append(out, p)
		}
	}
	if len(out) > maxPlaces {
		return []Place{{Unknown: ErrMaxPlaces.Error()}}
	}
	return out
}

func samePlace(a, b Place) bool {
	return a.Dir == b.Dir && a.Opts == b.Opts && a.Unknown == b.Unknown && maps.Equal(a.Vars, b.Vars)
}

func samePlaces(a, b []Place) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.ContainsFunc(b, func(q Place) bool { return samePlace(p, q) }) {
			return false
		}
	}
	return true
}

// sameIgnoring is samePlaces with the loop variable left out.
func sameIgnoring(a, b []Place, name string) bool {
	strip := func(ps []Place) []Place {
		out := make([]Place, len(ps))
		for i, p := range ps {
			p.Vars = maps.Clone(p.Vars)
			delete(p.Vars, name)
			out[i] = p
		}
		return union(out, nil)
	}
	return samePlaces(strip(a), strip(b))
}

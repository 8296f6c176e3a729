package preview

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep a preview small and quick whatever the command says.
const (
	maxFields    = 10000 // fields one word may expand to ({1..1000000} stops here)
	maxLoopItems = 200   // items of a for loop whose body is previewed per item
	maxLines     = 12    // target lines in one Preview
	maxListed    = 6     // paths listed for one find or git part
	maxLineRunes = 240   // characters of one line; a longer path keeps its head and tail
)

// field is one expanded word: its value, or why it cannot be known.
type field struct {
	val     string
	unknown string
}

// state is what the shell knows at one point of the script: the working
// folder ("" once a cd made it unknown) and the values of loop variables.
type state struct {
	dir  string
	vars map[string]string
}

func (s state) with(name, val string) state {
	vars := make(map[string]string, len(s.vars)+1)
	for k, v := range s.vars {
		vars[k] = v
	}
	vars[name] = val
	return state{dir: s.dir, vars: vars}
}

// analyzer walks one command line and collects what each part of it
// would touch. It looks at the disk (globs, stat, walks, find, git), so it
// runs inside the sandboxed helper; tests run it on temp folders.
type analyzer struct {
	ctx      context.Context
	env      map[string]string // the command's environment, as the helper sees it
	home     string
	assigned map[string]bool // names the script itself sets
	dynamic  bool            // the script sets variables in ways not tracked (read, declare, eval…)
	cds      bool            // the script changes folder, so $PWD is not the start folder
	parts    []*part
	lines    []string // one or more per target, in the order of the command
	missing  int      // targets that do not exist
	refused  []string // lines of targets the program would refuse
	unknowns []string // why some targets cannot be known
	skipped  int      // targets not looked at because the time bound passed
}

// compute is the whole preview of command run in dir with environ. It
// returns nil when nothing in the command deletes, moves, copies over,
// overwrites or changes permissions.
func compute(ctx context.Context, command, dir string, environ []string) *Preview {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	a := &analyzer{ctx: ctx, env: map[string]string{}, assigned: map[string]bool{}}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "TMPDIR" || k == "TMPPREFIX" || k == "PWD" || k == "OLDPWD" {
			continue // the sandbox's own temp folder is not the command's
		}
		a.env[k] = v
	}
	a.home = a.env["HOME"]
	a.scanAssignments(f)
	a.stmts(f.Stmts, &state{dir: dir})
	return a.render()
}

// scanAssignments finds every name the script assigns, so that a later
// $NAME is not expanded with the value it had before the script ran.
func (a *analyzer) scanAssignments(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				a.assigned[n.Name.Value] = true
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok {
				a.assigned[wi.Name.Value] = true
			} else {
				a.dynamic = true
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause:
			a.dynamic = true
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				a.assigned[n.Param.Value] = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				switch n.Args[0].Lit() {
				case "read", "mapfile", "readarray", "getopts", "printf", "declare", "typeset", "local", "export", "readonly", "unset", "eval", "source", ".", "set", "shift":
					a.dynamic = true
				case "cd", "pushd", "popd":
					a.cds = true
				}
			}
		}
		return true
	})
}

// known says whether $name can be expanded now: a loop variable with a
// value, or an environment variable the script never sets.
func (a *analyzer) known(st *state, name string) bool {
	if _, ok := st.vars[name]; ok {
		return true
	}
	if a.dynamic || a.assigned[name] {
		return false
	}
	if name == "PWD" {
		return !a.cds && st.dir != ""
	}
	_, ok := a.env[name]
	return ok
}

// opaque says why word cannot be expanded without running anything, or "".
func (a *analyzer) opaque(st *state, w *syntax.Word) string {
	why := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			why = "it depends on the output of $(…), which a preview does not run"
		case *syntax.ProcSubst:
			why = "it depends on <(…), which a preview does not run"
		case *syntax.ArithmExp:
			why = "it depends on arithmetic $((…))"
		case *syntax.ExtGlob:
			why = "it uses an extended glob"
		case *syntax.ParamExp:
			switch {
			case n.Param == nil || n.Excl || n.Index != nil:
				why = "it depends on a value set while the command runs"
			case !syntax.ValidName(n.Param.Value):
				why = "it depends on $" + n.Param.Value + ", which only the running shell knows"
			case !a.known(st, n.Param.Value):
				why = "it depends on $" + n.Param.Value + ", which is set while the command runs or not at all"
			}
		}
		return true
	})
	return why
}

// environ is the environment expansion sees in st.
func (a *analyzer) environ(st *state) expand.Environ {
	list := make([]string, 0, len(a.env)+len(st.vars)+1)
	for k, v := range a.env {
		if _, shadowed := st.vars[k]; !shadowed {
			list = append(list, k+"="+v)
		}
	}
	for k, v := range st.vars {
		list = append(list, k+"="+v)
	}
	if st.dir != "" {
		list = append(list, "PWD="+st.dir)
	}
	return expand.ListEnviron(list...)
}

var errNotRun = errors.New("a preview runs no commands")

// fields expands words as the shell would, one field per argument; a word
// that cannot be known gives one unknown field.
func (a *analyzer) fields(st *state, words []*syntax.Word) []field {
	cfg := &expand.Config{
		Env:       a.environ(st),
		CmdSubst:  func(io.Writer, *syntax.CmdSubst) error { return errNotRun },
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errNotRun },
	}
	// Globs read folders. A relative one in an unknown folder expands
	// against the wrong one, but abs then reports its matches as unknown.
	cfg.ReadDir2 = os.ReadDir
	var out []field
	for _, w := range words {
		if why := a.opaque(st, w); why != "" {
			out = append(out, field{val: wordText(w), unknown: why})
			continue
		}
		n := 0
		for s, err := range expand.FieldsSeq(cfg, w) {
			if err != nil {
				out = append(out, field{val: wordText(w), unknown: "it cannot be expanded (" + err.Error() + ")"})
				break
			}
			if n++; n > maxFields {
				out = append(out, field{val: wordText(w), unknown: "it expands to too many names"})
				break
			}
			out = append(out, field{val: s})
		}
	}
	return out
}

// wordText is the word as written, for messages.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// stmts previews statements run one after another in st.
func (a *analyzer) stmts(list []*syntax.Stmt, st *state) {
	for _, s := range list {
		if a.ctx.Err() != nil {
			return
		}
		a.stmt(s, st)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, st *state) {
	a.redirects(s.Redirs, st)
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		a.substitutions(c, st)
		a.call(c, st)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Each side of a pipe runs in a subshell: a cd there stays there.
			x, y := *st, *st
			a.stmt(c.X, &x)
			a.stmt(c.Y, &y)
			return
		}
		a.stmt(c.X, st)
		a.stmt(c.Y, st)
	case *syntax.Block:
		a.stmts(c.Stmts, st)
	case *syntax.Subshell:
		inner := *st
		a.stmts(c.Stmts, &inner)
	case *syntax.IfClause:
		// Both branches are shown: which one runs is not known yet.
		for ic := c; ic != nil; ic = ic.Else {
			a.stmts(ic.Cond, st)
			a.stmts(ic.Then, st)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, st)
		a.stmts(c.Do, st)
	case *syntax.CaseClause:
		for _, it := range c.Items {
			a.stmts(it.Stmts, st)
		}
	case *syntax.ForClause:
		a.forLoop(c, st)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			a.stmt(c.Stmt, st)
		}
	}
}

// forLoop previews a loop's body once per item when the items can be
// known, with the loop variable set as the shell would set it.
func (a *analyzer) forLoop(c *syntax.ForClause, st *state) {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok || c.Select {
		a.stmts(c.Do, st)
		return
	}
	items := a.fields(st, wi.Items)
	if wi.InPos == (syntax.Pos{}) && len(wi.Items) == 0 {
		items = []field{{unknown: "it loops over the script's arguments"}}
	}
	if len(items) > maxLoopItems {
		items = []field{{unknown: "the loop has too many items to preview one by one"}}
	}
	for _, it := range items {
		if it.unknown != "" {
			// The variable stays unknown: the body is previewed once and
			// every use of it is reported as such.
			a.stmts(c.Do, st)
			continue
		}
		inner := st.with(wi.Name.Value, it.val)
		a.stmts(c.Do, &inner)
		st.dir = inner.dir
	}
}

// substitutions previews the commands inside $(…) and <(…) of a call:
// they run too, each in a subshell.
func (a *analyzer) substitutions(c *syntax.CallExpr, st *state) {
	visit := func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			inner := *st
			a.stmts(n.Stmts, &inner)
			return false
		case *syntax.ProcSubst:
			inner := *st
			a.stmts(n.Stmts, &inner)
			return false
		}
		return true
	}
	for _, w := range c.Args {
		syntax.Walk(w, visit)
	}
	for _, as := range c.Assigns {
		if as.Value != nil {
			syntax.Walk(as.Value, visit)
		}
	}
}

// redirects previews the files that output redirections write.
func (a *analyzer) redirects(rs []*syntax.Redirect, st *state) {
	for _, r := range rs {
		var how effect
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrInOut:
			how = effOverwrite
			if r.Op == syntax.RdrInOut {
				how = effWriteInto
			}
		case syntax.AppOut, syntax.AppAll:
			how = effAppend
		case syntax.DplOut:
			// >&2 and >&- duplicate descriptors; >&file writes a file.
			if lit := r.Word.Lit(); lit == "-" || isDigits(lit) {
				continue
			}
			how = effOverwrite
		default:
			continue
		}
		fs := a.fields(st, []*syntax.Word{r.Word})
		if len(fs) != 1 {
			a.unknown(wordText(r.Word), "it is not one file name")
			continue
		}
		if fs[0].val == "/dev/null" || strings.HasPrefix(fs[0].val, "/dev/fd/") || fs[0].val == "/dev/stdout" || fs[0].val == "/dev/stderr" {
			continue
		}
		a.written(st, how, redirText(r.Op)+" ", fs[0], false)
	}
}

func redirText(op syntax.RedirOperator) string { return op.String() }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// call previews one simple command.
func (a *analyzer) call(c *syntax.CallExpr, st *state) {
	if len(c.Args) == 0 {
		return
	}
	args := a.fields(st, c.Args)
	args = unwrap(args)
	if len(args) == 0 || args[0].unknown != "" {
		return
	}
	name := filepath.Base(args[0].val)
	switch name {
	case "cd":
		a.cd(st, args[1:])
		return
	case "pushd", "popd":
		st.dir = ""
		return
	case "xargs":
		if len(args) > 1 && slices.ContainsFunc(args[1:], func(f field) bool { return programs[filepath.Base(f.val)] != nil }) {
			a.unknown("xargs", "the files come from its input, which a preview does not read")
		}
		return
	}
	if fn := programs[name]; fn != nil {
		fn(a, st, name, args[1:])
	}
}

// unwrap drops the wrappers that run their arguments as a command
// unchanged (nice, nohup, env VAR=x, command, time …).
func unwrap(args []field) []field {
	for len(args) > 0 && args[0].unknown == "" {
		switch filepath.Base(args[0].val) {
		case "command", "builtin", "exec", "nohup", "time", "sudo", "doas":
			args = skipOptions(args[1:], nil)
		case "nice":
			args = skipOptions(args[1:], map[string]bool{"-n": true})
		case "env":
			rest := skipOptions(args[1:], map[string]bool{"-u": true})
			for len(rest) > 0 && strings.Contains(rest[0].val, "=") && rest[0].unknown == "" {
				rest = rest[1:]
			}
			args = rest
		case "timeout":
			rest := skipOptions(args[1:], map[string]bool{"-s": true, "-k": true})
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
			args = rest
		default:
			return args
		}
	}
	return args
}

// skipOptions drops leading options; withArg names those that take the
// next argument.
func skipOptions(args []field, withArg map[string]bool) []field {
	for len(args) > 0 && strings.HasPrefix(args[0].val, "-") && args[0].unknown == "" {
		if args[0].val == "--" {
			return args[1:]
		}
		if withArg[args[0].val] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args
}

// cd follows a change of folder when its target can be known.
func (a *analyzer) cd(st *state, args []field) {
	args = skipOptions(args, nil)
	switch {
	case len(args) == 0:
		st.dir = a.home
	case args[0].unknown != "" || args[0].val == "-":
		st.dir = ""
	default:
		st.dir = a.abs(st, args[0].val)
	}
}

// abs resolves p against the working folder; "" when that is unknown.
func (a *analyzer) abs(st *state, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if st.dir == "" {
		return ""
	}
	j := filepath.Join(st.dir, p)
	if strings.HasSuffix(p, "/") {
		j += "/" // rm -r link/ goes through the link, as the shell would
	}
	return j
}

// shown is how a path is written in a preview: as the command names it,
// with the home folder as ~.
func (a *analyzer) shown(p string) string {
	if a.home != "" && filepath.IsAbs(p) {
		if p == a.home {
			return "~"
		}
		if rest, ok := strings.CutPrefix(p, a.home+"/"); ok {
			return "~/" + rest
		}
	}
	return p
}

// unknown records a target that cannot be known.
func (a *analyzer) unknown(what, why string) {
	a.unknowns = append(a.unknowns, what+": cannot tell — "+why)
}

// render turns what the walk found into a Preview; nil when the command
// names nothing a preview covers.
func (a *analyzer) render() *Preview {
	if len(a.lines) == 0 && len(a.unknowns) == 0 && a.skipped == 0 {
		return nil
	}
	if a.skipped > 0 {
		a.unknowns = append(a.unknowns, count(int64(a.skipped), "more target", "more targets")+": cannot tell — the time ran out before Hark looked")
	}
	var phrases []string
	partial := a.skipped > 0
	for _, p := range a.parts {
		phrases = append(phrases, verbs[p.eff]+" "+p.t.String())
		partial = partial || p.t.Partial
	}
	var lines []string
	for _, l := range append(append([]string(nil), a.lines...), a.unknowns...) {
		lines = append(lines, clipMiddle(visible(l), maxLineRunes))
	}
	if len(lines) > maxLines {
		lines = append(lines[:maxLines-1:maxLines-1], "… and "+count(int64(len(lines)-maxLines+1), "more line", "more lines"))
	}
	p := &Preview{Status: Shown, Lines: lines}
	switch {
	case len(phrases) > 0:
		p.Summary = capitalize(strings.Join(phrases, "; "))
		if n := len(a.unknowns); n > 0 {
			p.Summary += "; " + count(int64(n), "target", "targets") + " cannot be known"
		}
		if partial {
			p.Summary += " (still counting when the time ran out)"
		}
	case len(a.unknowns) > 0:
		p.Summary = "Cannot tell what it would touch: " + clipMiddle(visible(strings.SplitN(a.unknowns[0], "cannot tell — ", 2)[1]), maxLineRunes)
	case len(a.refused) > 0:
		p.Status, p.Summary = Nothing, "Nothing would change: "+clipMiddle(visible(a.refused[0]), maxLineRunes)+". The model may be wrong."
	default:
		p.Status, p.Summary = Nothing, nothingSummary
	}
	return p
}

// clipMiddle keeps the head and the tail of a long line: a path's end is
// the part that names the file.
func clipMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := n / 2
	tail := n - head - 1
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

package preview

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/scope"
	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep a preview small and quick whatever the command says.
const (
	maxLines     = 12  // target lines in one Preview
	maxListed    = 6   // paths listed for one find or git part
	maxLineRunes = 240 // characters of one line; a longer path loses whole folders from its middle
	maxLabel     = 60  // characters of a command quoted in a line
)

// field is one expanded word: its value, or why it cannot be known.
type field struct {
	val     string
	unknown string
}

// state is where one command runs, as shell/plan tells it: the folder,
// and whether the command may run in other folders too, so that its
// targets are shown by their full paths and no one is read in the wrong
// folder.
type state struct {
	dir     string
	several bool
}

// hiddenVars are variables the helper's environment holds for the sandbox
// itself, not the values the command will see.
var hiddenVars = []string{"TMPDIR", "TMPPREFIX", "OLDPWD"}

// analyzer collects what each command of a line would touch. It reads the
// line through shell/plan, which says in which folders, with which shell
// options and variables, each simple command runs, and what its words
// expand to there; the analyzer looks at the disk (stat, walks, find,
// git), so it runs inside the sandboxed helper; tests run it on temp
// folders.
type analyzer struct {
	ctx      context.Context
	env      plan.Env
	home     string
	redirs   map[*syntax.CallExpr][]*syntax.Redirect
	probes   map[*syntax.CallExpr]bool // the `:` that stand for compound commands' redirections
	parts    []*part
	lines    []line   // one or more per target, in the order of the command
	missing  int      // targets that do not exist
	refused  []string // lines of targets the program would refuse
	unknowns []string // why some targets cannot be known
	skipped  int      // targets not looked at because the time bound passed
	// counted are the targets of the current command already counted, by
	// effect, so that a command that may run in several folders does not
	// count a file twice.
	counted map[effect][]counted
	// touched is every path the preview shows as changed.
	touched []counted
	// changes are the places the command writes, for its scope.
	changes []scope.Change
	// made are the folders earlier parts of the line make (mkdir), so
	// that a later part writing into one is not said to fail.
	made map[string]bool
}

// change records a place the command writes, for the run's scope: a
// folder changed with what it holds, an existing file changed in place,
// or an entry made, removed or renamed in its folder.
func (a *analyzer) change(p string, dir, exists, remove bool) {
	a.changes = append(a.changes, scope.Change{Path: filepath.Clean(p), Dir: dir, Exists: exists, Remove: remove})
}

// counted is a target already counted: a path, and whether everything
// under it was counted with it.
type counted struct {
	path  string
	whole bool
}

// compute is the whole preview of command run in dir with environ. It
// returns nil when nothing in the command deletes, moves, copies over,
// overwrites or changes permissions.
func compute(ctx context.Context, command, dir string, environ []string) *Preview {
	a := analyze(ctx, command, dir, environ)
	if a == nil {
		return nil
	}
	return a.render()
}

// analyze walks command's simple commands and collects what each would
// touch; nil when the line does not parse.
func analyze(ctx context.Context, command, dir string, environ []string) *analyzer {
	s, err := plan.Parse(command)
	if err != nil {
		return nil
	}
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "PWD" || slices.Contains(hiddenVars, k) {
			continue // the sandbox's own temp folder is not the command's
		}
		vars[k] = v
	}
	a := &analyzer{ctx: ctx, home: vars["HOME"]}
	a.env = plan.Env{Home: a.home, Dir: dir, Vars: vars, Disk: true}
	a.redirs, a.probes = redirections(s.File)
	for _, c := range s.Calls(a.env) {
		a.call(c)
	}
	return a
}

// redirections maps each simple command to the output redirections of its
// statement. A statement of redirections alone (> f) is `:` with them, as
// bash runs it; the redirections of a compound command ({ …; } > f, a loop
// > log) are given to a `:` placed just before its body, so that shell/plan
// tells the folder and options they are opened in. The parse tree is this
// preview's own, so rewriting it changes nothing else.
func redirections(f *syntax.File) (map[*syntax.CallExpr][]*syntax.Redirect, map[*syntax.CallExpr]bool) {
	out := map[*syntax.CallExpr][]*syntax.Redirect{}
	probes := map[*syntax.CallExpr]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || !writes(st.Redirs) {
			return true
		}
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			out[c] = st.Redirs
		case *syntax.FuncDecl:
			// the redirections apply each time the function is called,
			// which its body's own statement does not show
			probe := placeholder(st.Pos())
			out[probe], probes[probe] = nil, true
			st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: []*syntax.Stmt{
				{Position: st.Pos(), Cmd: probe},
				{Position: c.Pos(), Cmd: c},
			}}
		default:
			probe := placeholder(st.Pos())
			probes[probe] = true
			out[probe] = st.Redirs
			if c == nil {
				st.Cmd = probe
				break
			}
			st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: []*syntax.Stmt{
				{Position: st.Pos(), Cmd: probe},
				{Position: c.Pos(), Cmd: c},
			}}
		}
		return true
	})
	return out, probes
}

// placeholder is a `:` command at pos.
func placeholder(pos syntax.Pos) *syntax.CallExpr {
	return &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: ":"}}}}}
}

// writes says whether any of rs opens a file for writing.
func writes(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if _, ok := redirEffect(r); ok {
			return true
		}
	}
	return false
}

// redirEffect is what a redirection does to the file it names; false for
// those that read or duplicate descriptors.
func redirEffect(r *syntax.Redirect) (effect, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll:
		return effOverwrite, true
	case syntax.RdrInOut:
		return effWriteInto, true
	case syntax.AppOut, syntax.AppAll:
		return effAppend, true
	case syntax.DplOut:
		// >&2 and >&- duplicate descriptors; >&file writes a file.
		if lit := r.Word.Lit(); lit == "-" || isDigits(lit) {
			return 0, false
		}
		return effOverwrite, true
	}
	return 0, false
}

// label is a command as written, short enough to quote in a line.
func label(c *syntax.CallExpr) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, c)
	return clipMiddle(b.String(), maxLabel)
}

// wordText is the word as written, for messages.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// covered says, from the words as written, whether a command is one the
// preview reads: a program it knows (after wrappers such as env or sudo),
// xargs with one, or an output redirection. Only such a command, when
// shell/plan cannot tell where or how it runs, is worth a "cannot tell".
func (a *analyzer) covered(c *syntax.CallExpr) bool {
	if a.redirs[c] != nil {
		return true
	}
	if _, ok := a.redirs[c]; ok {
		return true // the redirections of a function's body
	}
	for _, w := range c.Args {
		if lit := w.Lit(); lit != "" && programs[filepath.Base(lit)] != nil {
			return true
		}
	}
	return false
}

// call previews one simple command at every Place it may run in.
func (a *analyzer) call(c plan.Call) {
	if len(c.Places) == 0 {
		return // it never runs (after exit)
	}
	a.counted = nil
	// Shallower folders first: a folder counted whole then covers what
	// the same command would remove inside it from a deeper one.
	places := slices.Clone(c.Places)
	slices.SortStableFunc(places, func(x, y plan.Place) int { return len(x.Dir) - len(y.Dir) })
	dirs := plan.Call{Places: places}.Dirs()
	several := len(dirs) > 1
	headed := false
	for _, p := range places {
		if p.Unknown != "" {
			if a.covered(c.Expr) {
				a.unknown(a.what(c.Expr), "what ran before it makes its folder or words unknown: "+p.Unknown)
			}
			continue
		}
		args, noRun := a.fields(p, c.Expr.Args)
		if noRun != "" {
			if a.covered(c.Expr) {
				a.note(a.what(c.Expr)+": bash does not run it ("+noRun+")", false)
			}
			continue
		}
		if several && !headed && a.covered(c.Expr) {
			headed = true
			shown := make([]string, len(dirs))
			for i, d := range dirs {
				shown[i] = a.shown(d)
			}
			a.say(a.what(c.Expr) + ": runs in " + strings.Join(shown, " or ") + ", depending on what ran before it")
		}
		st := &state{dir: p.Dir, several: several}
		if rs, ok := a.redirs[c.Expr]; ok && rs == nil {
			a.unknown(a.what(c.Expr), "the redirections of a function apply where it is called, which Hark does not follow")
		}
		a.redirects(p, st, a.redirs[c.Expr])
		a.program(st, args)
	}
}

// what names a command in a line as written, with its output
// redirections (alone for the placeholder of a compound command).
func (a *analyzer) what(c *syntax.CallExpr) string {
	var parts []string
	if !a.probes[c] {
		parts = append(parts, label(c))
	}
	for _, r := range a.redirs[c] {
		if _, ok := redirEffect(r); ok {
			parts = append(parts, r.Op.String()+" "+clipPath(wordText(r.Word), maxLabel))
		}
	}
	if len(parts) == 0 {
		return "a redirection"
	}
	return strings.Join(parts, " ")
}

// fields expands words at p as bash would, one field per argument (the
// command name first); a word that cannot be known gives one unknown
// field. noRun is set when bash would not run the command at all.
func (a *analyzer) fields(p plan.Place, words []*syntax.Word) (out []field, noRun string) {
	for _, w := range words {
		if name := hiddenVar(p, w); name != "" {
			out = append(out, field{val: wordText(w), unknown: "$" + name + " is the preview's own here, not the command's"})
			continue
		}
		ex := a.env.Expand(p, []*syntax.Word{w})
		switch {
		case ex.NoRun != "":
			return nil, ex.NoRun
		case ex.Unknown != "":
			out = append(out, field{val: wordText(w), unknown: ex.Unknown})
			continue
		}
		for _, f := range ex.Fields {
			out = append(out, field{val: f.Value})
		}
	}
	return out, ""
}

// hiddenVar is the name of a variable in hiddenVars that w uses and that the
// line did not set itself, or "".
func hiddenVar(p plan.Place, w *syntax.Word) string {
	name := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if ok && pe.Param != nil && slices.Contains(hiddenVars, pe.Param.Value) {
			if _, set := p.Vars[pe.Param.Value]; !set {
				name = pe.Param.Value
			}
		}
		return name == ""
	})
	return name
}

// redirects previews the files that output redirections write.
func (a *analyzer) redirects(p plan.Place, st *state, rs []*syntax.Redirect) {
	for _, r := range rs {
		how, ok := redirEffect(r)
		if !ok {
			continue
		}
		fs, noRun := a.fields(p, []*syntax.Word{r.Word})
		switch {
		case noRun != "":
			a.note(r.Op.String()+" "+wordText(r.Word)+": bash does not open it ("+noRun+")", false)
			continue
		case len(fs) == 1 && fs[0].unknown != "":
		case len(fs) != 1:
			a.note(r.Op.String()+" "+wordText(r.Word)+": not one file name, so bash refuses it (ambiguous redirect)", false)
			continue
		}
		if v := fs[0].val; fs[0].unknown == "" && (v == "/dev/null" || strings.HasPrefix(v, "/dev/fd/") || v == "/dev/stdout" || v == "/dev/stderr") {
			continue
		}
		a.written(st, how, r.Op.String()+" ", fs[0], false)
	}
}

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

// program previews the program a command runs, from its expanded words.
func (a *analyzer) program(st *state, args []field) {
	args = unwrap(args)
	if len(args) == 0 || args[0].unknown != "" {
		return
	}
	name := filepath.Base(args[0].val)
	if name == "xargs" {
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

// abs resolves p against the folder the command runs in.
func (a *analyzer) abs(st *state, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	j := filepath.Join(st.dir, p)
	if strings.HasSuffix(p, "/") {
		j += "/" // rm -r link/ goes through the link, as the shell would
	}
	return j
}

// display is how a target is written in a line: as the command names it,
// unless it is absolute or the command may run in several folders, when
// the full path says which one.
func (a *analyzer) display(st *state, val string) string {
	if filepath.IsAbs(val) || st.several {
		return a.shown(filepath.Clean(a.abs(st, val)))
	}
	return a.shown(val)
}

// shown is how a path is written in a preview, with the home folder as ~.
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
//
// The sizes of each total are written in one Scale, chosen so that the
// lines, as written, add up to the summary as written (see scaleFor);
// when there are more lines than a preview keeps, the last one says what
// the rest add up to, as one more part of that sum.
func (a *analyzer) render() *Preview {
	if len(a.lines) == 0 && len(a.unknowns) == 0 && a.skipped == 0 {
		if len(a.changes) > 0 {
			return &Preview{Status: Quiet, Changes: a.changes, Sure: true}
		}
		return nil
	}
	if a.skipped > 0 {
		a.unknowns = append(a.unknowns, count(int64(a.skipped), "more target", "more targets")+": cannot tell — the time ran out before Hark looked")
	}
	all := slices.Clone(a.lines)
	for _, u := range a.unknowns {
		all = append(all, line{text: u})
	}
	kept, rest := all, []line(nil)
	if len(all) > maxLines {
		kept, rest = all[:maxLines-1], all[maxLines-1:]
	}
	p := &Preview{Status: Shown, Changes: a.changes, Sure: len(a.unknowns) == 0 && a.skipped == 0}
	partial := a.skipped > 0
	var phrases []string
	for i, pt := range a.parts {
		var parts []int64
		for _, l := range kept {
			if l.counts && l.eff == pt.eff {
				parts = append(parts, l.t.Bytes)
			}
		}
		var hidden tally
		hides := false
		for _, l := range rest {
			if l.counts && l.eff == pt.eff {
				hidden.add(l.t)
				hides = true
			}
		}
		if hides {
			parts = append(parts, hidden.Bytes)
		}
		sc := scaleFor(pt.t.Bytes, parts)
		p.Totals = append(p.Totals, Total{Verb: verbs[pt.eff], Folders: pt.t.Folders, Files: pt.t.Files, Bytes: pt.t.Bytes, Partial: pt.t.Partial, Scale: sc})
		phrases = append(phrases, verbs[pt.eff]+" "+pt.t.words(sc.text(sc.steps(pt.t.Bytes), pt.t.Bytes)))
		partial = partial || pt.t.Partial
		if hides {
			p.Counts = append(p.Counts, Count{Line: len(kept), Total: i, Folders: hidden.Folders, Files: hidden.Files, Bytes: hidden.Bytes, Shown: sc.steps(hidden.Bytes)})
		}
	}
	for n, l := range kept {
		text := l.text
		if l.counts {
			i := slices.IndexFunc(a.parts, func(pt *part) bool { return pt.eff == l.eff })
			sc := p.Totals[i].Scale
			shown := sc.steps(l.t.Bytes)
			text = l.sized(sc.text(shown, l.t.Bytes))
			p.Counts = append(p.Counts, Count{Line: n, Total: i, Folders: l.t.Folders, Files: l.t.Files, Bytes: l.t.Bytes, Shown: shown})
		}
		p.Lines = append(p.Lines, clipPath(visible(text+l.after), maxLineRunes))
	}
	slices.SortStableFunc(p.Counts, func(x, y Count) int { return x.Line - y.Line })
	if len(rest) > 0 {
		p.Lines = append(p.Lines, "")
		p.Omitted = len(rest)
		p.Lines[len(kept)] = clipPath("… and "+p.More(len(kept)), maxLineRunes)
	}
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
		p.Summary = "Cannot tell what it would touch: " + clipPath(visible(strings.SplitN(a.unknowns[0], "cannot tell — ", 2)[1]), maxLineRunes)
	case len(a.refused) > 0:
		p.Status, p.Summary = Nothing, "Nothing would change: "+clipPath(visible(a.refused[0]), maxLineRunes)+". The model may be wrong."
	default:
		p.Status, p.Summary = Nothing, nothingSummary
	}
	return p
}

// clipPath shortens a line longer than n characters by leaving out whole
// folders from the middle of its paths, each run of them shown as one
// "…": "~/Documents/…/2024/report.pdf: file, 3 KB". A name is never cut,
// so what a line names is never mistaken for another file, and the first
// and last parts (where the path starts, and the name with what happens
// to it) stay. A part with a space in it stays too: it holds the words
// between paths (": ", " → ") or ends one name and starts the next. A
// line whose names alone are longer than n is kept whole: a name is at
// most 255 bytes, so it is still bounded. Only text past clipHard, which
// no run of real names reaches, is cut in the middle, as text.
func clipPath(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	segs := strings.Split(s, "/")
	dropped := make([]bool, len(segs))
	render := func() string {
		var b strings.Builder
		for i, seg := range segs {
			if dropped[i] {
				if i > 0 && dropped[i-1] {
					continue
				}
				seg = "…"
			}
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(seg)
		}
		return b.String()
	}
	droppable := func(i int) bool {
		seg := segs[i]
		return i > 0 && i < len(segs)-1 && !dropped[i] && seg != "" && !strings.ContainsAny(seg, " \t")
	}
	out := s
	for utf8.RuneCountInString(out) > n {
		// The folder nearest the middle goes first, so the start and the
		// end of the path, which say most, are kept longest.
		best, mid := -1, len(segs)/2
		for i := range segs {
			if droppable(i) && (best < 0 || abs(i-mid) < abs(best-mid)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		dropped[best] = true
		out = render()
	}
	if utf8.RuneCountInString(out) > clipHard {
		return clipMiddle(out, clipHard)
	}
	return out
}

// clipHard bounds a line whatever it holds: more than three names of the
// longest kind, so clipPath never reaches it with real paths.
const clipHard = 1024

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// clipMiddle keeps the head and the tail of a long text: a command
// quoted in a line, whose targets the line's own paths show whole.
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

package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// classifier walks one parsed source string.
type classifier struct {
	p     *Policy
	v     *verdict
	src   string
	depth int
	funcs map[string]bool // functions declared in this source; their bodies are classified where declared
	// assigned holds variables this source assigns; an unassigned one may be
	// empty, which turns "rm -rf $dir/" into "rm -rf /".
	assigned map[string]bool
	nest     int // how many substitutions and compound commands enclose the one being classified
	// cwd lists, one a line, every folder (in plan's form, see planDir)
	// the command being judged may run in, or "" when none is known. It
	// lets `cd / && rm -rf *` be recognised for what it is.
	cwd string
	// exports are the variables the command being judged hands a shell it
	// starts, in plan's form, while the floor judges it in one plan state.
	exports map[string]string
	// opaque says plan cannot tell some word of the command being judged
	// in some state the shell may be in, so a target that is only known
	// at run time is said to be so.
	opaque bool
	// places are plan's states of the shell for each simple command.
	places map[*syntax.CallExpr][]plan.Place
	// cdCwd is where the cd commands met so far lead, followed in order
	// (cwd's form): what stands in where plan cannot tell.
	cdCwd string
	// cdPath is where literal cd commands before this point moved,
	// relative to the verdict's dir ("" for nowhere), or cdUnknown after a
	// cd whose target is known only at run time.
	cdPath string
	// cdEarlier are the places cdPath held before: a cd that fails, sits
	// in a pipeline or subshell, or is skipped by && || if or a loop leaves
	// the shell in one of them, so each may be where a later command runs.
	cdEarlier []string
}

const cdUnknown = "\x00"

func (c *classifier) add(t Tier, cat Category, part, why string) { c.v.add(t, cat, part, why) }

// text returns the source text of n.
func (c *classifier) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return c.src
	}
	return c.src[start:end]
}

func (c *classifier) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

// maxNesting bounds how deeply commands may nest inside one another
// (substitutions, subshells, groups, compound commands). Past it nothing is
// classified and the command asks, so a hostile input of thousands of
// levels costs time and reason text linear in its length.
const maxNesting = 64

// enter counts one level of nesting around n and reports whether it may be
// classified; every successful enter is paired with leave.
func (c *classifier) enter(n syntax.Node) bool {
	if c.nest >= maxNesting {
		c.add(Confirm, Parse, c.text(n), fmt.Sprintf("commands nested more than %d levels deep are not classified", maxNesting))
		return false
	}
	c.nest++
	return true
}

func (c *classifier) leave() { c.nest-- }

func (c *classifier) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	switch s.Cmd.(type) {
	case nil, *syntax.CallExpr, *syntax.BinaryCmd, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		// Pipelines and lists nest only to the left and are walked in
		// linear time; the rest hold statements of their own.
	default:
		if !c.enter(s) {
			return
		}
		defer c.leave()
	}
	if s.Background || s.Disown {
		c.add(Confirm, Process, c.text(s), "&: runs in the background, beyond Hark's timeout and output capture")
	}
	if s.Coprocess {
		c.add(Confirm, Process, c.text(s), "|&: starts a coprocess")
	}
	switch x := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		c.call(x)
		c.hereCode(x, s.Redirs)
		c.echoedWords(x)
		for _, r := range s.Redirs {
			if r.Op == syntax.WordHdoc && r.Word != nil {
				c.xargsNames(x, []*syntax.Word{r.Word})
			}
		}
	case *syntax.BinaryCmd:
		c.stmt(x.X)
		c.stmt(x.Y)
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.pipedCode(x)
			c.pipedNames(x)
		}
	case *syntax.Subshell:
		c.stmts(x.Stmts)
	case *syntax.Block:
		c.stmts(x.Stmts)
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			c.stmts(ic.Cond)
			c.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		c.stmts(x.Cond)
		c.stmts(x.Do)
	case *syntax.ForClause:
		c.nested(x.Loop)
		if it, ok := x.Loop.(*syntax.WordIter); ok && it.Name != nil {
			// for PATH in /tmp/x; do ls; done assigns PATH like PATH=/tmp/x.
			if why := riskyVariable(it.Name.Value); why != "" {
				c.add(Confirm, Code, c.text(x), it.Name.Value+"=: "+why)
			}
		}
		c.stmts(x.Do)
	case *syntax.CaseClause:
		c.nested(x.Word)
		for _, item := range x.Items {
			for _, w := range item.Patterns {
				c.nested(w)
			}
			c.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		c.funcDecl(x)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		c.nested(x)
	case *syntax.DeclClause:
		c.decl(x)
	case *syntax.TimeClause:
		c.stmt(x.Stmt)
	case *syntax.CoprocClause:
		c.add(Confirm, Process, c.text(x), "coproc: starts a background coprocess")
		c.stmt(x.Stmt)
	default:
		c.add(Confirm, Parse, c.text(x), "this shell construct is not classified")
	}
	// Redirections are applied after the command's own words are expanded;
	// order of reasons follows the source.
	for _, r := range s.Redirs {
		c.redirect(r)
	}
}

// readsShellStdin reports whether args (a command's words after brace
// expansion) run a shell that reads its commands from standard input
// (`sh`, `bash -s`, `zsh -x`).
func readsShellStdin(args []arg) bool {
	if len(args) == 0 {
		return false
	}
	name := args[0].val
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if !isShell(name) {
		return false
	}
	for _, a := range args[1:] {
		if a.val == "--" || a.val == "-" {
			break
		}
		if !a.option() || strings.ContainsRune(a.val, 'c') {
			return false
		}
	}
	return true
}

// hereCode classifies the here-document or here-string given to a shell
// as its commands: `bash <<< 'sudo ls'` runs sudo.
func (c *classifier) hereCode(call *syntax.CallExpr, redirs []*syntax.Redirect) {
	if len(redirs) == 0 || !readsShellStdin(c.words(call)) {
		return
	}
	for _, r := range redirs {
		var w *syntax.Word
		switch r.Op {
		case syntax.WordHdoc:
			w = r.Word
		case syntax.Hdoc, syntax.DashHdoc:
			w = r.Hdoc
		}
		if w == nil {
			continue
		}
		if code := decodeWord(w); !code.expanded {
			c.p.classifySource(c.v, code.val, c.depth+1, c.cwd)
		}
	}
}

// pipedCode classifies literal text echoed into a shell as its commands:
// `echo 'sudo ls' | sh` runs sudo.
func (c *classifier) pipedCode(b *syntax.BinaryCmd) {
	src, ok := b.X.Cmd.(*syntax.CallExpr)
	dst, ok2 := b.Y.Cmd.(*syntax.CallExpr)
	if !ok || !ok2 || !readsShellStdin(c.words(dst)) {
		return
	}
	args := c.words(src)
	if len(args) == 1 && args[0].val == "cat" {
		// cat <<'EOF' | sh: the here-document is the code.
		c.hereCode(&syntax.CallExpr{Args: []*syntax.Word{lit("sh")}}, b.X.Redirs)
		return
	}
	if len(args) < 2 {
		return
	}
	name := args[0].val
	if name != "echo" && name != "printf" {
		return
	}
	var words []string
	for i, a := range args[1:] {
		if a.expanded {
			return
		}
		if name == "printf" && i == 0 && strings.Contains(a.val, "%") {
			continue // the format; the code is in the arguments it prints
		}
		if !a.option() {
			words = append(words, a.val)
		}
	}
	c.p.classifySource(c.v, strings.Join(words, "\n"), c.depth+1, c.cwd)
}

// pipedNames judges xargs fed by echo or printf of written words as if
// those words were its arguments: `echo ~ | xargs rm -rf` is rm -rf ~.
//
// Stages between them that pass the names on unchanged, or only reorder
// them (sort, sort -u, uniq, cat, tee FILE), are looked through; head -n N
// keeps the first line, which is find's first starting point and all of
// echo's words, so only those are judged then. Any other stage (tail,
// grep, tr) leaves the names unknown, and the command asks.
func (c *classifier) pipedNames(b *syntax.BinaryCmd) {
	dst, ok := b.Y.Cmd.(*syntax.CallExpr)
	if !ok {
		return
	}
	left, firstLine := b.X, false
	for {
		inner, ok := left.Cmd.(*syntax.BinaryCmd)
		if !ok || inner.Op != syntax.Pipe && inner.Op != syntax.PipeAll {
			break
		}
		kind := passNone
		if f, ok := inner.Y.Cmd.(*syntax.CallExpr); ok && plainStage(inner.Y) {
			kind = passes(c.words(f))
		}
		if kind == passNone {
			left = inner.Y // the source: what it reads does not matter
			break
		}
		firstLine = firstLine || kind == passFirst
		left = inner.X
	}
	src, ok := left.Cmd.(*syntax.CallExpr)
	if !ok || len(src.Args) < 2 {
		return
	}
	args := c.words(src)
	if len(args) > 0 && (args[0].val == "find" || args[0].val == "ls") {
		names, ok := listedFirst(args[0].val, src.Args[1:])
		if ok && firstLine {
			// find prints its first starting point first (last under
			// -depth); ls sorts its operands
			ok = args[0].val == "find" && !slices.ContainsFunc(src.Args, func(w *syntax.Word) bool { return w.Lit() == "-depth" })
			names = names[:min(1, len(names))]
		}
		if ok {
			c.xargsNames(dst, names)
		}
		return
	}
	if len(args) == 0 || args[0].val != "echo" && args[0].val != "printf" {
		return
	}
	if firstLine && (args[0].val == "printf" || slices.ContainsFunc(args[1:], func(a arg) bool { return a.option() && a.val != "-n" || strings.Contains(a.val, `\`) })) {
		return // lines other than echo's one
	}
	var words []*syntax.Word
	for i, w := range src.Args[1:] {
		if i < len(args)-1 && args[i+1].option() && len(words) == 0 {
			continue // echo -n, printf --
		}
		if args[0].val == "printf" && len(words) == 0 && i < len(args)-1 && strings.Contains(args[i+1].val, "%") {
			continue // the format; the names are the arguments it prints
		}
		words = append(words, w)
	}
	c.xargsNames(dst, words)
}

// What a pipeline stage does to the names it reads, for pipedNames.
const (
	passNone  = iota // changes or drops them, or reads elsewhere
	passAll          // hands on every name, perhaps reordered
	passFirst        // hands on the first line among others
)

// plainStage says whether a pipeline stage's output is the program's own:
// no redirection sends it elsewhere.
func plainStage(s *syntax.Stmt) bool {
	return len(s.Redirs) == 0 && !s.Negated && !s.Background && !s.Coprocess
}

// passes reads a stage's words as a filter of names (see pipedNames).
func passes(args []arg) int {
	if len(args) == 0 || slices.ContainsFunc(args, func(a arg) bool { return !a.plain() }) {
		return passNone
	}
	ops := args[1:]
	onlyOpts := func(letters string, long ...string) bool {
		for _, a := range ops {
			v := a.val
			switch {
			case v == "-":
			case strings.HasPrefix(v, "--"):
				if !slices.Contains(long, v) {
					return false
				}
			case strings.HasPrefix(v, "-"):
				if strings.Trim(v[1:], letters) != "" {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	switch args[0].val {
	case "sort":
		// no -o (the output goes to a file), -z, -f (-uf may drop a
		// name that differs only in case), -k or -t
		if onlyOpts("urbdnVsMhg", "--unique", "--reverse") {
			return passAll
		}
	case "uniq", "cat":
		if len(ops) == 0 || len(ops) == 1 && ops[0].val == "-" {
			return passAll
		}
	case "tee":
		for _, a := range ops {
			if strings.HasPrefix(a.val, "-") && a.val != "-a" && a.val != "--append" && a.val != "-i" && a.val != "-p" {
				return passNone
			}
		}
		return passAll
	case "head":
		n := ""
		switch {
		case len(ops) == 0:
			return passFirst
		case len(ops) == 1 && strings.HasPrefix(ops[0].val, "--lines="):
			n = ops[0].val[len("--lines="):]
		case len(ops) == 1 && strings.HasPrefix(ops[0].val, "-n"):
			n = ops[0].val[2:]
		case len(ops) == 1 && strings.HasPrefix(ops[0].val, "-"):
			n = ops[0].val[1:]
		case len(ops) == 2 && (ops[0].val == "-n" || ops[0].val == "--lines"):
			n = ops[1].val
		}
		if isNumber(n) && strings.Trim(n, "0") != "" {
			return passFirst
		}
	}
	return passNone
}

// xargsNames classifies an xargs call with the words its input is known
// to hold appended, so that the names it hands its command are judged:
// a deletion of home fed through xargs is refused like one written out.
func (c *classifier) xargsNames(x *syntax.CallExpr, input []*syntax.Word) {
	// find's implied starting point "." is in no source text
	text := func(w *syntax.Word) string {
		if !w.Pos().IsValid() {
			return w.Lit()
		}
		return c.text(w)
	}
	if len(x.Args) == 0 || len(input) == 0 || !runsXargs(x.Args) {
		return
	}
	var parts []string
	for _, w := range x.Args {
		parts = append(parts, c.text(w))
	}
	for _, w := range input {
		if substitutes(w) {
			return // more code to run: judged where it is
		}
		parts = append(parts, text(w))
	}
	c.p.classifySource(c.v, strings.Join(parts, " "), c.depth+1, c.cwd)
}

// runsXargs says whether words run xargs, directly or under a wrapper
// that hands it its input unchanged (nice -n 5 xargs …): the names read
// are appended to the whole line either way.
func runsXargs(words []*syntax.Word) bool {
	for i, w := range words {
		l, ok := litVal(w)
		switch {
		case !ok:
			return false
		case l == "xargs":
			return true
		case i == 0 && !slices.Contains([]string{"nice", "nohup", "command", "ionice", "stdbuf", "time"}, l):
			return false
		case i > 0 && !strings.HasPrefix(l, "-") && !isNumber(l):
			return false
		}
	}
	return false
}

// findKeeps are the parts of a find expression that never drop a
// starting point from what find prints: find ~ -maxdepth 1 | xargs rm
// -rf is handed ~ itself, first (last with -depth).
var findKeeps = map[string]int{
	"-maxdepth": 1, "-depth": 0, "-xdev": 0, "-mount": 0, "-print": 0, "-print0": 0, "-follow": 0,
	"-noleaf": 0, "-ignore_readdir_race": 0, "-true": 0,
}

// listedFirst are the names find or ls -d surely print, as words: find's
// starting points ("." when none is given) while its expression cannot
// drop them (-type d keeps folders, which a floor target is), and the
// operands of ls -d. ok is false when the output cannot be told.
func listedFirst(prog string, words []*syntax.Word) (names []*syntax.Word, ok bool) {
	if prog == "ls" {
		dashD := false
		for _, w := range words {
			l, lit := litVal(w)
			switch {
			case lit && l == "--":
			case lit && strings.HasPrefix(l, "-") && len(l) > 1:
				if strings.Trim(l[1:], "d1aAFp") != "" {
					return nil, false // -l, -Q … change what a line holds
				}
				dashD = dashD || strings.ContainsRune(l, 'd')
			default:
				names = append(names, w)
			}
		}
		return names, dashD && len(names) > 0
	}
	i := 0
	for i < len(words) {
		l, _ := litVal(words[i])
		if l != "-H" && l != "-L" && l != "-P" {
			break
		}
		i++
	}
	for ; i < len(words); i++ {
		l, lit := litVal(words[i])
		if lit && (strings.HasPrefix(l, "-") || l == "(" || l == "!" || l == ",") {
			break
		}
		names = append(names, words[i])
	}
	for ; i < len(words); i++ {
		l, lit := litVal(words[i])
		if lit && l == "-type" && i+1 < len(words) && words[i+1].Lit() == "d" {
			i++
			continue
		}
		n, keeps := findKeeps[l]
		if !lit || !keeps {
			return nil, false
		}
		i += n
	}
	if len(names) == 0 {
		names = []*syntax.Word{lit(".")}
	}
	return names, true
}

// litVal is a word's value when the shell passes it as written.
func litVal(w *syntax.Word) (string, bool) {
	a := decodeWord(w)
	return a.val, a.plain() && !a.home
}

// echoedWords judges a command whose word is $(echo …) or `echo …` of
// written words as if those words were written in its place:
// rm -rf $(echo ~) is rm -rf ~.
func (c *classifier) echoedWords(x *syntax.CallExpr) {
	changed := false
	parts := make([]string, 0, len(x.Args))
	for _, w := range x.Args {
		if inner := echoedWord(w); inner != nil {
			changed = true
			for _, iw := range inner {
				parts = append(parts, c.text(iw))
			}
			continue
		}
		parts = append(parts, c.text(w))
	}
	if changed {
		c.p.classifySource(c.v, strings.Join(parts, " "), c.depth+1, c.cwd)
	}
}

// echoedWord returns the words of a word that is one command
// substitution, quoted or not, of echo with no options.
func echoedWord(w *syntax.Word) []*syntax.Word {
	if len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	cs, ok := part.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return nil
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "echo" {
		return nil
	}
	for _, a := range call.Args[1:] {
		if strings.HasPrefix(a.Lit(), "-") || substitutes(a) {
			return nil // an option, or more code to run: judged where it is
		}
	}
	return call.Args[1:]
}

// substitutes reports whether a word runs a command or process
// substitution, so that copying its text would judge that code twice.
func substitutes(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// nested classifies the commands hidden inside a node's words: command and
// process substitutions. Extended globs are refused because zsh reads
// `*(e:…:)` as a glob qualifier that runs code.
func (c *classifier) nested(n syntax.Node) {
	switch x := n.(type) {
	case nil:
		return
	case *syntax.Word: // a nil *Word in a non-nil interface, e.g. the value of "A="
		if x == nil {
			return
		}
	case *syntax.ArrayExpr:
		if x == nil {
			return
		}
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if c.enter(n) {
				c.stmts(n.Stmts)
				c.leave()
			}
			return false
		case *syntax.ProcSubst:
			if c.enter(n) {
				c.stmts(n.Stmts)
				c.leave()
			}
			return false
		case *syntax.ExtGlob:
			c.add(Confirm, Code, c.text(n), c.text(n)+": extended glob; zsh treats it as a glob qualifier that can run code")
			return false
		case *syntax.Word:
			c.zshWord(n.Parts, true)
		case *syntax.DblQuoted:
			c.zshWord(n.Parts, false)
		case *syntax.ArithmExp:
			c.arithm(n.X, c.text(n))
		case *syntax.ArithmCmd:
			c.arithm(n.X, c.text(n))
		case *syntax.LetClause:
			for _, e := range n.Exprs {
				c.arithm(e, c.text(n))
			}
		case *syntax.CStyleLoop:
			c.arithm(n.Init, c.text(n))
			c.arithm(n.Cond, c.text(n))
			c.arithm(n.Post, c.text(n))
		case *syntax.ArrayElem:
			c.arithm(n.Index, c.text(n))
		case *syntax.ParamExp:
			c.paramExp(n)
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// [[ a -eq b ]] evaluates both sides as arithmetic.
				for _, side := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := side.(*syntax.Word); ok {
						c.arithm(w, c.text(n))
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); !ok || !plainVarName(decodeWord(w)) {
					c.add(Confirm, Code, c.text(n), c.text(n)+": -v evaluates an array subscript, which can run commands")
				}
			}
		case *syntax.BinaryArithm:
			// (( PATH = 1 )) assigns like PATH=1 does.
			switch n.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
				syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
				if w, ok := n.X.(*syntax.Word); ok {
					if name := arithmTarget(w); riskyVariable(name) != "" {
						c.add(Confirm, Code, c.text(n), name+"=: "+riskyVariable(name))
					}
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok {
					if name := arithmTarget(w); riskyVariable(name) != "" {
						c.add(Confirm, Code, c.text(n), name+"=: "+riskyVariable(name))
					}
				}
			}
		}
		return true
	})
}

// arithmTarget names the variable an arithmetic assignment sets: BASH_CMDS
// for BASH_CMDS[ls]=1, which the parser reads as a subscripted parameter.
func arithmTarget(w *syntax.Word) string {
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil {
			return p.Param.Value
		}
	}
	name, _, _ := strings.Cut(w.Lit(), "[")
	return name
}

// funcDecl classifies a function body where it is declared, and recognises
// fork bombs: a function that starts copies of itself in a pipeline or in
// the background.
func (c *classifier) funcDecl(f *syntax.FuncDecl) {
	if f.Name != nil && f.Body != nil {
		name := f.Name.Value
		if hookFunction(name) {
			c.add(Confirm, Code, c.text(f), name+"(): the shell runs this function by itself, on events or for commands not found")
		}
		if _, known := programs[name]; known && name != ":" {
			// The body is classified below, but a reviewer reading "rm -rf x"
			// later in the command would be misled about what runs.
			c.add(Confirm, Code, c.text(f), name+"(): a function that hides the program of the same name")
		}
		self, async := false, false
		syntax.Walk(f.Body, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				if len(n.Args) > 0 && decodeWord(n.Args[0]).val == name {
					self = true
				}
			case *syntax.Stmt:
				if n.Background || n.Disown || n.Coprocess {
					async = true
				}
			case *syntax.BinaryCmd:
				if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
					async = true
				}
			}
			return true
		})
		if self && async {
			c.add(Forbidden, Process, c.text(f), name+"(): fork bomb: a function that keeps starting copies of itself is never run")
		}
	}
	c.stmt(f.Body)
}

// hookFunction reports whether the shell calls a function of this name by
// itself: for a command it cannot find, before prompts, on directory
// changes, or as a trap (zsh TRAPINT and friends).
func hookFunction(name string) bool {
	switch name {
	case "command_not_found_handle", "command_not_found_handler", "precmd", "preexec", "chpwd", "periodic",
		"zshaddhistory", "zshexit", "zsh_directory_name":
		return true
	}
	return strings.HasPrefix(name, "TRAP")
}

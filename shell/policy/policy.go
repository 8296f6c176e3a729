// Package policy classifies shell commands into tiers (safe, confirm,
// forbidden) on their bash parse tree. Safe is an allowlist of read-only
// programs with checked arguments; every verdict that is not safe carries
// human reasons for each offending part. It imports nothing but the shell
// parser and the standard library, so it can be reviewed on its own.
package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Policy classifies shell commands into tiers by walking their bash parse
// tree. Every simple command anywhere in the tree (pipelines, lists, compound
// commands, function bodies, command and process substitutions, the strings
// given to `sh -c` and `eval`) is judged on its own, and the verdict is the
// worst of its parts.
//
// The safe tier is an allowlist: a command is safe only when every part is a
// known read-only program whose arguments were checked. Nobody can enumerate
// every dangerous command, but one can enumerate the harmless ones.
//
// A Policy holds no per-call state and is safe for concurrent use.
type Policy struct {
	// noSandbox: safe verdicts for programs that run code from their
	// configuration become confirm (see Options.NoSandbox).
	noSandbox    bool
	seatbelt     bool
	repoPrograms func(dir string) string
	parsers      sync.Pool
}

// Options configures a Policy. The zero value is the default policy,
// which assumes safe-tier commands run inside the read-only, no-network
// sandbox.
type Options struct {
	// NoSandbox says safe-tier commands will run without an OS sandbox.
	// The classifier then has to hold on its own, so programs that run
	// code named by their configuration or project files (git, every
	// interpreter and shell, package managers and toolchains: the table
	// entries marked runsConfig) ask even for read-only invocations, with
	// the reason "runs code from its configuration and no sandbox is
	// available".
	NoSandbox bool

	// Seatbelt says safe-tier commands run in the macOS sandbox, whose
	// profile closes the system services some read-only programs need
	// (diskutil, pmset -g, pbpaste, ifconfig …: the entries marked
	// needsMacServices). They would only fail there, so they ask, and run
	// unsandboxed once approved.
	Seatbelt bool

	// RepoPrograms, when set, is asked about the repository that a git
	// subcommand able to run drivers would use, by its directory as the
	// command would see it (the working directory given to ClassifyIn,
	// followed by a literal cd and -C; "" when unknown). It answers with
	// the configuration that names a program git would run there and the
	// sandbox's environment cannot switch off (diff.external, a textconv,
	// diff or filter driver, an include), or "" for none. The policy stays
	// pure: whoever may read files supplies this.
	RepoPrograms func(dir string) string
}

// New returns a policy configured by o; New(Options{}) is the default.
func New(o Options) *Policy {
	p := &Policy{noSandbox: o.NoSandbox, seatbelt: o.Seatbelt && !o.NoSandbox, repoPrograms: o.RepoPrograms}
	p.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)) }
	return p
}

// noSandboxReason is the reason a read-only invocation asks under
// Options.NoSandbox.
const noSandboxReason = "runs code from its configuration and no sandbox is available"

// judge runs a program's check and, without a sandbox, turns a safe
// verdict on a program that runs code from its configuration into confirm.
func (c *classifier) judge(r rule, in *invocation) {
	in.cat = r.category
	n := len(c.v.reasons)
	if r.check != nil {
		r.check(in)
	}
	if c.p.noSandbox && len(c.v.reasons) == n && r.config {
		in.confirmAs(Code, "", noSandboxReason)
	}
	if c.p.seatbelt && len(c.v.reasons) == n && r.macServices {
		in.confirmAs(System, "", seatbeltReason)
	}
}

// seatbeltReason is the reason a read-only invocation asks under
// Options.Seatbelt.
const seatbeltReason = "needs macOS services that the sandbox keeps closed, so it runs only after you approve"

// maxDepth bounds how deeply strings run by `sh -c`, `eval` and friends are
// parsed again, so a hostile input cannot make classification expensive.
const maxDepth = 6

// Classify returns the verdict for command. It is pure: it never runs or
// reads anything, and looks at nothing but the command text — in particular
// never at the purpose a model claims for it.
func (p *Policy) Classify(command string) Verdict { return p.classify(command, "", "") }

func (p *Policy) classify(command, cwd, dir string) Verdict {
	v := &verdict{tier: Safe, dir: dir}
	scanText(v, command)
	if strings.TrimSpace(command) == "" {
		v.add(Confirm, Parse, command, "empty command: there is nothing to run")
	} else {
		p.classifySource(v, command, 0, cwd)
	}
	reasons := v.reasons
	if reasons == nil {
		reasons = []Reason{}
	}
	return Verdict{Command: command, Tier: v.tier, Reasons: reasons}
}

// ClassifyIn is Classify for a command that will run in workingDirectory
// ("~", "~/src", "/", "/Users/me" …). The directory only ever makes the
// verdict stricter: `rm -rf *` run in the home directory or a system root
// is forbidden, while Classify alone cannot know where it runs and asks.
func (p *Policy) ClassifyIn(command, workingDirectory string) Verdict {
	cwd := ""
	if workingDirectory != "" {
		dir := arg{val: workingDirectory, home: strings.HasPrefix(workingDirectory, "~")}
		if root, ok := protectedTarget(dir, ""); ok {
			cwd = root
		}
	}
	return p.classify(command, cwd, workingDirectory)
}

// verdict accumulates reasons; the tier only ever gets worse.
type verdict struct {
	dir     string // the working directory ClassifyIn was given, for Options.RepoPrograms
	tier    Tier
	reasons []Reason
	seen    map[Reason]bool // keeps de-duplication linear on long commands
	// last holds, for each reason text and category, the command part it
	// was last added for. Checks add the same reason for the same part
	// many times over (every assignment of a 100 KB command line names the
	// whole line), and comparing the very same string is immediate where
	// hashing it for seen is not.
	last map[lastKey]string
	// texts holds variables the command sets to text that is not a plain
	// number, at any nesting depth (a string run by watch sees exported
	// ones). Arithmetic on them can run code; see arithm.
	texts map[string]bool
}

type lastKey struct {
	why string
	cat Category
}

func (v *verdict) setText(name string) {
	if v.texts == nil {
		v.texts = map[string]bool{}
	}
	v.texts[name] = true
}

func rank(t Tier) int {
	switch t {
	case Safe:
		return 0
	case Forbidden:
		return 2
	}
	return 1
}

func (v *verdict) add(t Tier, cat Category, part, why string) {
	if rank(t) > rank(v.tier) {
		v.tier = t
	}
	k := lastKey{why, cat}
	if prev, ok := v.last[k]; ok && prev == part {
		return
	}
	if v.seen == nil {
		v.seen, v.last = map[Reason]bool{}, map[lastKey]string{}
	}
	v.last[k] = part
	r := Reason{Command: part, Why: why, Category: cat}
	if v.seen[r] {
		return
	}
	v.seen[r] = true
	v.reasons = append(v.reasons, r)
}

// scanText rejects characters a person reviewing the command cannot see or
// that terminals render misleadingly, and line continuations, which join
// what looks like a second line onto the first command's arguments.
func scanText(v *verdict, s string) {
	if !utf8.ValidString(s) {
		v.add(Confirm, Parse, s, "the command is not valid UTF-8")
	}
	seen := false
	for _, r := range s {
		if r == '\t' || r == '\n' || r == utf8.RuneError || r >= 0x20 && r < 0x7f {
			continue
		}
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co) || invisible(r) {
			if !seen {
				v.add(Confirm, Parse, s, fmt.Sprintf("the command contains an invisible or control character (U+%04X)", r))
				seen = true
			}
		}
	}
	scanComments(v, s)
	if strings.Contains(s, "\\\n") {
		v.add(Confirm, Parse, s, "a backslash at the end of a line joins the next line onto this command")
	}
}

// scanComments flags comments holding code-like text. A comment ends at
// the newline, so "ls # x; rm -rf y" is just ls, but a reviewer could read
// it otherwise. This works on the text rather than the parse tree because
// the parser drops some comments (after a bare `time`, for one); a '#' inside
// quotes may be flagged too, which only costs a confirmation.
func scanComments(v *verdict, s string) {
	if !strings.Contains(s, "#") {
		return
	}
	for _, line := range strings.Split(s, "\n") {
		for i := 0; i < len(line); i++ {
			if line[i] != '#' || i > 0 && strings.IndexByte(" \t;&|()", line[i-1]) < 0 {
				continue
			}
			if rest := line[i+1:]; strings.ContainsAny(rest, ";&|`") || strings.Contains(rest, "$(") {
				v.add(Confirm, Parse, line[i:], line[i:]+": text after # is a comment and does not run")
				return
			}
			break
		}
	}
}

// invisible lists characters outside the Cc/Cf/Zl/Zp/Co categories that
// render as nothing: Hangul fillers, the combining grapheme joiner and
// variation selectors.
func invisible(r rune) bool {
	switch {
	case r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0', r == '\u034f', r == '\u2800':
		return true
	case r >= '\ufe00' && r <= '\ufe0f', r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	return false
}

// classifySource parses src and classifies every statement in it. depth counts
// how many shell strings deep we are; cwd is what classifier.cwd starts as.
func (p *Policy) classifySource(v *verdict, src string, depth int, cwd string) {
	if depth > maxDepth {
		v.add(Confirm, Parse, src, "commands nested this deeply are not classified")
		return
	}
	if at, what := tooDeep(src); at >= 0 {
		// Parsing thousands of nested levels costs far more than their
		// length; the shell would still run the complete lines before.
		v.add(Confirm, Parse, src, what+" are not classified")
		if prefix := linesBefore(src, strings.Count(src[:at], "\n")+1); strings.TrimSpace(prefix) != "" && len(prefix) < len(src) {
			p.classifySource(v, prefix, depth+1, cwd)
		}
		return
	}
	parser := p.parsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	p.parsers.Put(parser)
	if err != nil {
		v.add(Confirm, Parse, src, "the command could not be parsed: "+parseMessage(err))
		// A shell runs the complete lines before a syntax error, so those
		// are classified too: "sudo ls\n)" must still be forbidden.
		if line := errorLine(err); line > 1 {
			if prefix := linesBefore(src, line); strings.TrimSpace(prefix) != "" {
				p.classifySource(v, prefix, depth+1, cwd)
			}
		}
		return
	}
	c := &classifier{p: p, v: v, src: src, depth: depth, cwd: cwd}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				if c.assigned == nil {
					c.assigned = map[string]bool{}
				}
				c.assigned[n.Name.Value] = true
				if n.Array != nil || n.Value == nil || !isNumber(n.Value.Lit()) {
					v.setText(n.Name.Value)
				}
			}
		case *syntax.WordIter:
			if n.Name != nil {
				for _, w := range n.Items {
					if !isNumber(w.Lit()) {
						v.setText(n.Name.Value)
						break
					}
				}
			}
		case *syntax.CallExpr:
			// read, mapfile, printf -v and getopts set the variables they
			// name; every plain word may be one.
			if len(n.Args) > 0 {
				name := n.Args[0].Lit()
				if name == "" {
					name = decodeWord(n.Args[0]).val
				}
				switch name {
				case "read", "mapfile", "readarray", "printf", "getopts", "select", "vared":
					for _, w := range n.Args[1:] {
						if a := decodeWord(w); !a.expanded {
							v.setText(a.val)
						}
					}
				}
			}
		case *syntax.FuncDecl:
			if n.Name != nil {
				if c.funcs == nil {
					c.funcs = map[string]bool{}
				}
				c.funcs[n.Name.Value] = true
			}
		}
		return true
	})
	c.stmts(f.Stmts)
}

// maxBrackets bounds the nesting of brackets in the text, counted before
// parsing and regardless of quotes: well above maxNesting, since
// arithmetic and parameter expansions have brackets of their own.
const maxBrackets = 4 * maxNesting

// tooDeep returns the offset at which the text's ( and { brackets (not
// escaped) nest more than maxBrackets deep, a statement chains more than
// maxBrackets pipes and && or || lists, or an arithmetic expression holds
// more than 2*maxBrackets operators (the parser nests chains and operators
// too), or -1. It over-counts what sits inside quotes, which can only make
// a command ask.
func tooDeep(s string) (int, string) {
	depth, chain := 0, 0
	arith, ops := -1, 0 // the depth outside the (( … )) being scanned, and its operators
	for i := 0; i < len(s); i++ {
		if arith >= 0 && strings.IndexByte("+-*/%<>=!~^?:,", s[i]) >= 0 {
			if ops++; ops > 2*maxBrackets {
				return i, fmt.Sprintf("arithmetic expressions of more than %d operators", 2*maxBrackets)
			}
		}
		switch s[i] {
		case '\\':
			i++
		case '(', '{':
			if arith < 0 && s[i] == '(' && i+1 < len(s) && s[i+1] == '(' {
				arith, ops = depth, 0
			}
			if depth++; depth > maxBrackets {
				return i, fmt.Sprintf("brackets nested more than %d levels deep", maxBrackets)
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
			if depth <= arith {
				arith = -1
			}
		case '|', '&':
			if chain++; chain > 2*maxBrackets {
				return i, fmt.Sprintf("statements chaining more than %d pipes and lists", maxBrackets)
			}
		case ';', '\n':
			chain = 0
		}
	}
	return -1, ""
}

// errorLine returns the 1-based line of a parse error, or 0.
func errorLine(err error) int {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return int(pe.Pos.Line())
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return int(le.Pos.Line())
	}
	return 0
}

// linesBefore returns the text of src before line n (1-based).
func linesBefore(src string, n int) string {
	end := 0
	for line := 1; line < n; line++ {
		i := strings.IndexByte(src[end:], '\n')
		if i < 0 {
			return src
		}
		end += i + 1
	}
	return src[:end]
}

func parseMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return le.Feature + " is not supported"
	}
	return err.Error()
}

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
	// cwd is the protected directory ("/", "~", "/usr" …) a preceding cd
	// moved into, or "" when unknown or harmless. It lets `cd / && rm -rf *`
	// be recognised for what it is.
	cwd string
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
	case *syntax.BinaryCmd:
		c.stmt(x.X)
		c.stmt(x.Y)
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.pipedCode(x)
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

// readsShellStdin reports whether call runs a shell that reads its commands
// from standard input (`sh`, `bash -s`, `zsh -x`).
func readsShellStdin(call *syntax.CallExpr) bool {
	if call == nil || len(call.Args) == 0 {
		return false
	}
	name := decodeWord(call.Args[0]).val
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if !isShell(name) {
		return false
	}
	for _, w := range call.Args[1:] {
		a := decodeWord(w)
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
	if len(redirs) == 0 || !readsShellStdin(call) {
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
	if !ok || !ok2 || !readsShellStdin(dst) {
		return
	}
	if len(src.Args) == 1 && decodeWord(src.Args[0]).val == "cat" {
		// cat <<'EOF' | sh: the here-document is the code.
		c.hereCode(&syntax.CallExpr{Args: []*syntax.Word{lit("sh")}}, b.X.Redirs)
		return
	}
	if len(src.Args) < 2 {
		return
	}
	name := decodeWord(src.Args[0]).val
	if name != "echo" && name != "printf" {
		return
	}
	var words []string
	for i, w := range src.Args[1:] {
		a := decodeWord(w)
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

// decl handles declare/local/export/readonly/typeset/nameref.
func (c *classifier) decl(d *syntax.DeclClause) {
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if o := decodeWord(a.Value); o.option() && !strings.HasPrefix(o.val, "--") {
				switch {
				case strings.ContainsRune(o.val, 'n'):
					// declare -n x=PATH makes every later x=… set PATH.
					c.add(Confirm, Code, c.text(d), d.Variant.Value+" -n: makes a name stand for another variable, which hides what is assigned")
				case strings.ContainsRune(o.val, 'i'):
					c.add(Confirm, Code, c.text(d), d.Variant.Value+" -i: later assignments are evaluated as arithmetic, which can run commands")
				}
			}
		}
		c.assign(a, c.text(d), declExports(d))
		c.declWord(d, a)
		if a.Value != nil && decodeWord(a.Value).escapedOp {
			c.add(Confirm, Parse, c.text(d), d.Variant.Value+": an escaped ; & or | is part of a value, which reads like a second command")
		}
		if a.Naked && a.Name == nil && a.Value != nil {
			if w := decodeWord(a.Value); w.expanded {
				c.add(Confirm, Code, c.text(d), d.Variant.Value+": declares a name computed at run time")
			}
		}
	}
}

// declWord judges what declare and friends evaluate in an argument the
// parser saw as a plain word: 'x[$(cmd)]=1' is a name with a subscript,
// which the builtin evaluates as arithmetic, and a quoted '(…)' value is
// read as an array assignment whose subscripts are evaluated too.
func (c *classifier) declWord(d *syntax.DeclClause, a *syntax.Assign) {
	text := c.text(d)
	if a.Naked && a.Name == nil && a.Value != nil {
		w := decodeWord(a.Value)
		if w.option() || w.expanded {
			if strings.HasPrefix(w.val, "-") && strings.ContainsRune(w.val, 'T') && d.Variant.Value == "typeset" {
				c.add(Confirm, Code, text, "typeset -T: ties a variable to another, which hides what is assigned")
			}
			return
		}
		name, value, hasValue := splitDeclWord(w.val)
		if base, _, _ := strings.Cut(name, "["); riskyVariable(base) != "" {
			c.add(Confirm, Code, text, base+"=: "+riskyVariable(base))
		}
		if !plainVarName(arg{val: name}) {
			c.add(Confirm, Code, text, d.Variant.Value+" "+w.val+": the shell evaluates the subscript of this name, which can run commands")
		}
		if hasValue && strings.HasPrefix(value, "(") {
			c.add(Confirm, Code, text, d.Variant.Value+" "+w.val+": the value is read as an array assignment, whose subscripts can run commands")
		}
		return
	}
	if a.Value != nil && a.Array == nil {
		if w := decodeWord(a.Value); !w.expanded && strings.HasPrefix(w.val, "(") && declHasArrayFlag(d) {
			c.add(Confirm, Code, text, d.Variant.Value+": the quoted value is read as an array assignment, whose subscripts can run commands")
		}
	}
}

// splitDeclWord splits "name[sub]=value" at the "=" that ends the name: a
// subscript may hold "=" of its own (x[a=b]=1).
func splitDeclWord(s string) (name, value string, hasValue bool) {
	end := strings.IndexByte(s, '=')
	if i := strings.IndexByte(s, '['); i >= 0 && (end < 0 || i < end) {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return s, "", false // an unclosed subscript: all of it is the name
		}
		name, rest := s[:i+j+1], s[i+j+1:]
		value, hasValue = strings.CutPrefix(rest, "=")
		if !hasValue && rest != "" {
			return s, "", false
		}
		return name, value, hasValue
	}
	return strings.Cut(s, "=")
}

func declHasArrayFlag(d *syntax.DeclClause) bool {
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if o := decodeWord(a.Value); o.option() && strings.ContainsAny(o.val, "aA") {
				return true
			}
		}
	}
	return false
}

// assign classifies one NAME=value: the value's substitutions, and whether the
// name changes how later programs behave.
func (c *classifier) assign(a *syntax.Assign, part string, env bool) {
	c.nested(a.Value)
	if a.Array != nil {
		c.nested(a.Array)
	}
	c.nested(a.Index)
	c.arithm(a.Index, part)
	if a.Name != nil {
		why := riskyVariable(a.Name.Value)
		if env {
			why = envVariable(a.Name.Value)
		}
		if why != "" {
			c.add(Confirm, Code, part, a.Name.Value+"=: "+why)
		}
	}
}

// declExports reports whether a declaration puts its names in the
// environment (export, declare -x).
func declExports(d *syntax.DeclClause) bool {
	if d.Variant.Value == "export" {
		return true
	}
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if o := decodeWord(a.Value); o.option() && !strings.HasPrefix(o.val, "--") && strings.ContainsRune(o.val, 'x') && o.val[0] == '-' {
				return true
			}
		}
	}
	return false
}

// redirect classifies one redirection.
func (c *classifier) redirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {name}>file assigns the descriptor's number to name.
		name := strings.Trim(r.N.Value, "{}")
		if why := riskyVariable(name); why != "" {
			c.add(Confirm, Code, c.text(r), name+"=: "+why)
		} else if !plainVarName(arg{val: name}) {
			c.add(Confirm, Code, c.text(r), c.text(r)+": the shell evaluates the subscript of this name, which can run commands")
		}
	}
	c.nested(r.Word)
	if r.Hdoc != nil {
		c.nested(r.Hdoc)
	}
	text := c.text(r)
	target := decodeWord(r.Word)
	if target.escapedOp {
		c.add(Confirm, Parse, text, text+": an escaped ; & or | names a file, which reads like a second command")
	}
	here := r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc // text, not a path
	if !here && !target.expanded && strings.HasPrefix(target.val, "/dev/") && isSocketPath(target.val) {
		// bash opens a connection for these names, whichever the direction.
		c.add(Confirm, Network, text, text+": opens a network connection")
		return
	}
	if r.Op == syntax.RdrIn && target.expanded && maySocket(r.Word) {
		// Every other redirection with a computed target already asks.
		// F=/dev/tcp/1.1.1.1/80; cat < $F connects as well: unless the
		// start of the path is written out and rules it out, it could.
		c.add(Confirm, Network, text, text+": the path is computed at run time and could be /dev/tcp/…, which opens a network connection")
		return
	}
	switch r.Op {
	case syntax.RdrIn, syntax.WordHdoc:
		return
	case syntax.Hdoc, syntax.DashHdoc:
		// An odd delimiter could be the very line that follows, quietly
		// swallowing a command into the here-document's text.
		if target.expanded || !heredocDelimiter(target.val) {
			c.add(Confirm, Parse, text, text+": unusual here-document delimiter")
		}
		return
	case syntax.DplIn, syntax.DplOut:
		if !target.expanded && isFD(target.val) {
			return
		}
		if r.Op == syntax.DplIn {
			c.add(Confirm, Parse, text, text+": reads from a computed descriptor")
			return
		}
	}
	if !target.expanded && !target.glob {
		switch paths[target.val] {
		case sink:
			return
		case terminal:
			// Output that bypasses the capture reaches the person's terminal,
			// where escape sequences can set the clipboard or retitle windows.
			c.add(Confirm, System, text, text+": writes to the terminal directly")
			return
		}
		if isDiskDevice(target.val) {
			c.add(Forbidden, Disk, text, text+": writing onto a disk device erases it and is never run")
			return
		}
		if paths[cleanPath(target.val)] == trigger {
			c.add(Forbidden, System, text, text+": the kernel's emergency keys can reboot or halt at once and are never run")
			return
		}
	}
	why := "overwrites a file"
	switch r.Op {
	case syntax.AppOut, syntax.AppAll, syntax.AppClob, syntax.AppAllClob:
		why = "appends to a file"
	case syntax.RdrInOut:
		why = "opens a file for writing"
	}
	c.add(Confirm, Write, text, text+": "+why)
}

// maySocket reports whether a redirection target computed at run time
// could name one of the paths bash turns into a network connection. Bash
// compares the text itself, so a literal start that is neither a prefix of
// /dev/tcp/ or /dev/udp/ nor starts with one rules them out ("./$f",
// "$HOME/$f", "out-$n.txt").
func maySocket(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			return false // <(…) is a /dev/fd/ path; its commands are classified
		}
	}
	var b strings.Builder
	literal := func(parts []syntax.WordPart) bool {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				if p.Dollar {
					return false
				}
				b.WriteString(p.Value)
			default:
				return false
			}
		}
		return true
	}
	home := func(part syntax.WordPart) bool {
		pe, ok := part.(*syntax.ParamExp)
		return ok && b.Len() == 0 && simpleParam(pe) && pe.Param.Value == "HOME"
	}
	for _, part := range w.Parts {
		if home(part) {
			return false // the home directory is not /dev
		}
		if q, ok := part.(*syntax.DblQuoted); ok {
			if len(q.Parts) > 0 && home(q.Parts[0]) {
				return false
			}
			if !literal(q.Parts) {
				break
			}
			continue
		}
		if !literal([]syntax.WordPart{part}) {
			break
		}
	}
	prefix := b.String()
	if prefix == "" {
		return true
	}
	if strings.HasPrefix(prefix, "~") {
		return false
	}
	for special, k := range paths {
		if k == socket && (strings.HasPrefix(special, prefix) || strings.HasPrefix(prefix, special)) {
			return true
		}
	}
	return false
}

func heredocDelimiter(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true // ">&-" closes a descriptor
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// call classifies a simple command: its assignments, the commands hidden in
// its words, and the program it runs.
func (c *classifier) call(x *syntax.CallExpr) {
	text := c.text(x)
	for _, a := range x.Assigns {
		// NAME=value before a program is in that program's environment.
		c.assign(a, text, len(x.Args) > 0)
	}
	for _, w := range x.Args {
		c.nested(w)
	}
	if len(x.Args) == 0 {
		return
	}
	args := make([]arg, len(x.Args))
	for i, w := range x.Args {
		args[i] = decodeWord(w)
	}
	c.run(text, "", args, false)
}

// run classifies the program args[0] with its arguments. prefix labels the
// wrappers it runs under ("xargs ", "find -exec "); extra says arguments are
// appended at run time, so the visible ones are not the whole story.
func (c *classifier) run(text, prefix string, args []arg, extra bool) {
	if len(args) == 0 {
		return
	}
	name := args[0]
	if name.expanded || name.glob || name.brace {
		c.add(Confirm, Code, text, prefix+name.val+": the program name is computed at run time")
		return
	}
	prog := name.val
	if strings.Contains(prog, "/") {
		base, ok := systemProgram(prog)
		if !ok {
			c.add(Confirm, Code, text, prefix+prog+": runs a program outside the system directories")
			return
		}
		prog = base
	}
	in := &invocation{c: c, text: text, label: prefix + prog, name: prog, args: args[1:], extra: extra}
	for _, a := range in.args {
		if a.escapedOp && !(prog == "find" && a.val == ";" && findRunsCommands(in.args)) {
			in.confirmAs(Parse, "", "an escaped ; & or | is passed as an argument, which reads like a second command")
			break
		}
	}
	if c.funcs[prog] {
		return // a function declared in this command: its body was classified where declared
	}
	r, ok := programs[prog]
	if ok && extra && !r.anyArgs {
		// xargs and find -exec {} + append words nobody has seen: a wrapper
		// given them runs whatever they name, and a checked program can
		// be handed the very option its check refuses. Only programs that
		// are read-only whatever their arguments, and wrappers (which pass
		// the unknown words on to what they run), stay safe.
		n := len(c.v.reasons)
		c.judge(r, in)
		if len(c.v.reasons) == n {
			in.confirm("its arguments arrive at run time, so they cannot be checked")
		}
		return
	}
	if !ok {
		// macOS file systems ignore case, so `RM x` runs rm there. Judge the
		// lower-case program, but never let the spelling make it safe.
		if lower := strings.ToLower(prog); lower != prog {
			if r, ok = programs[lower]; ok {
				in.name = lower
				c.judge(r, in)
				in.confirmAs(Unknown, "", "not a known read-only program (spelled in capitals)")
				return
			}
		}
		if r, ok := prefixRule(prog); ok {
			c.judge(r, in)
			return
		}
		in.confirmAs(Unknown, "", "not a known read-only program")
		return
	}
	c.judge(r, in)
}

// systemProgram maps a path in a standard system directory to the program's
// base name; anything else could be any program.
func systemProgram(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	p = cleanPath(p)
	i := strings.LastIndexByte(p, '/')
	dir, base := p[:i], p[i+1:]
	if base == "" {
		return "", false
	}
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/usr/libexec", "/opt/local/bin", "/opt/local/sbin", "/snap/bin":
		return base, true
	}
	return "", false
}

// invocation is one program run with its arguments, as the program tables see it.
type invocation struct {
	c     *classifier
	text  string // the simple command's source text, for Reason.Command
	label string // how reasons name the program, e.g. "rm" or "xargs rm"
	name  string
	args  []arg    // after the program name
	extra bool     // more arguments are appended at run time (xargs, find -exec)
	cat   Category // the program's category, for its reasons
}

func (in *invocation) confirm(why string) { in.c.add(Confirm, in.cat, in.text, in.label+": "+why) }
func (in *invocation) forbid(why string)  { in.c.add(Forbidden, in.cat, in.text, in.label+": "+why) }

// confirmAs and forbidAs are for reasons of another category than the
// program's own, e.g. a package manager's verb that uses the network.
func (in *invocation) confirmAs(cat Category, opt, why string) {
	in.c.add(Confirm, cat, in.text, strings.TrimSuffix(in.label+" "+opt, " ")+": "+why)
}

func (in *invocation) forbidAs(cat Category, opt, why string) {
	in.c.add(Forbidden, cat, in.text, strings.TrimSuffix(in.label+" "+opt, " ")+": "+why)
}

// confirmOpt and forbidOpt name the option or verb responsible, e.g.
// "sed -i: edits files in place".
func (in *invocation) confirmOpt(opt, why string) {
	in.c.add(Confirm, in.cat, in.text, in.label+" "+opt+": "+why)
}

func (in *invocation) forbidOpt(opt, why string) {
	in.c.add(Forbidden, in.cat, in.text, in.label+" "+opt+": "+why)
}

// runs classifies the command a wrapper runs.
func (in *invocation) runs(args []arg, extra bool) {
	in.c.run(in.text, in.label+" ", args, extra || in.extra)
}

// source classifies a string the program runs as shell code.
func (in *invocation) source(code string) {
	in.c.p.classifySource(in.c.v, code, in.c.depth+1, in.c.cwd)
}

// Bash evaluates the value of a variable used in arithmetic as arithmetic in
// turn, and an array subscript in that value runs its command substitutions:
// after x='a[$(rm -rf ~)]', `echo $((x))`, `[[ $x -eq 1 ]]` and `${a[x]}`
// all run rm. Variables the command does not set come from the environment
// Hark passes on; arithmetic is safe on those, on numbers, and on special
// parameters that always hold numbers, but not on anything the command set
// to text, on positional parameters, or on substituted output.

// arithmSpecial are special parameters that always hold a number.
var arithmSpecial = map[string]bool{"#": true, "?": true, "$": true, "!": true}

func isNumber(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// arithm flags an arithmetic expression that reads a value which could hold
// code. part labels the reason.
func (c *classifier) arithm(e syntax.ArithmExpr, part string) {
	if e == nil {
		return
	}
	if w, ok := e.(*syntax.Word); ok && w == nil {
		return
	}
	flagged := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if flagged {
			return false
		}
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			// The target of a plain "=" is set, not read.
			if n.Op == syntax.Assgn {
				if w, ok := n.X.(*syntax.Word); ok && len(w.Parts) == 1 {
					if _, lit := w.Parts[0].(*syntax.Lit); lit {
						syntax.Walk(n.Y, func(m syntax.Node) bool { return c.arithmWord(m, part, &flagged) })
						return false
					}
				}
			}
		}
		return c.arithmWord(n, part, &flagged)
	})
}

func (c *classifier) arithmWord(n syntax.Node, part string, flagged *bool) bool {
	w, ok := n.(*syntax.Word)
	if !ok {
		return !*flagged
	}
	if !*flagged {
		if name, risky := c.arithmOperand(w.Parts); risky {
			c.add(Confirm, Code, part, part+": arithmetic on "+name+" evaluates its text as code, which can run commands")
			*flagged = true
		}
	}
	return false
}

// arithmOperand reports whether an arithmetic operand could evaluate text,
// naming it.
func (c *classifier) arithmOperand(parts []syntax.WordPart) (string, bool) {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if v == "" || v[0] >= '0' && v[0] <= '9' {
				continue
			}
			if !plainName(v) || c.v.texts[v] {
				return v, true
			}
		case *syntax.ParamExp:
			if p.Param == nil {
				return "a computed name", true
			}
			name := p.Param.Value
			switch {
			case arithmSpecial[name] && simpleParam(p), p.Length:
			case !plainName(name), c.v.texts[name]:
				return "$" + name, true
			case p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Excl || p.Names != 0 || p.Flags != nil || len(p.Modifiers) > 0 || p.NestedParam != nil:
				return "$" + name, true // ${x:-text} evaluates the text
			}
		case *syntax.DblQuoted:
			if name, risky := c.arithmOperand(p.Parts); risky {
				return name, true
			}
		case *syntax.ArithmExp:
		default:
			return "a computed value", true
		}
	}
	return "", false
}

// plainName reports whether s is a shell variable name.
func plainName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// paramExp flags parameter expansions that evaluate a value: subscripts and
// slices are arithmetic, ${!x} looks up the name x holds (subscript and
// all), and ${x@P} expands x like a prompt, command substitutions included.
func (c *classifier) paramExp(p *syntax.ParamExp) {
	text := c.text(p)
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || w.Lit() != "@" && w.Lit() != "*" {
			c.arithm(p.Index, text)
		}
	}
	if p.Slice != nil {
		c.arithm(p.Slice.Offset, text)
		c.arithm(p.Slice.Length, text)
	}
	if p.Excl && p.Names == 0 && p.Index == nil {
		c.add(Confirm, Code, text, text+": indirect expansion evaluates the name a variable holds, which can run commands")
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.ContainsRune(p.Exp.Word.Lit(), 'P') {
		c.add(Confirm, Code, text, text+": prompt expansion runs command substitutions in the value")
	}
}

// plainVarName reports whether a is a variable name, perhaps with a numeric
// subscript: what `-v` can test without evaluating anything.
func plainVarName(a arg) bool {
	if a.expanded || a.brace || a.val == "" {
		return false
	}
	name, sub, hasSub := strings.Cut(a.val, "[")
	if hasSub {
		digits, ok := strings.CutSuffix(sub, "]")
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return false
		}
	}
	return plainName(name)
}

// lit makes a one-part literal word.
func lit(s string) *syntax.Word { return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}} }

// zshWord flags what zsh, the shell on macOS, reads differently from bash
// in a word's parts: $~x treats the value of x as a glob pattern, whose
// qualifiers such as *(e:…:) run code; $a[i] is a subscript that zsh
// evaluates as arithmetic (see arithm), where bash sees $a and text.
func (c *classifier) zshWord(parts []syntax.WordPart, unquoted bool) {
	for i := 0; i+1 < len(parts); i++ {
		switch p := parts[i].(type) {
		case *syntax.Lit:
			if next, ok := parts[i+1].(*syntax.Lit); ok && unquoted && strings.HasSuffix(p.Value, "$") && strings.HasPrefix(next.Value, "~") {
				c.add(Confirm, Code, c.text(p), "$~: zsh treats the value as a glob pattern, whose qualifiers can run code")
			}
		case *syntax.ParamExp:
			next, ok := parts[i+1].(*syntax.Lit)
			if !ok || !p.Short || p.Index != nil || !strings.HasPrefix(next.Value, "[") {
				continue
			}
			// The subscript runs to the first part holding "]"; a bound keeps
			// a hostile word of many "$a[" from costing quadratic time.
			for j := i + 1; j < len(parts) && j < i+64; j++ {
				var risky bool
				var closed bool
				switch q := parts[j].(type) {
				case *syntax.Lit:
					sub := q.Value
					if j == i+1 {
						sub = sub[1:]
					}
					if k := strings.IndexByte(sub, ']'); k >= 0 {
						sub, closed = sub[:k], true
					}
					for _, f := range strings.FieldsFunc(sub, func(r rune) bool {
						return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
					}) {
						risky = risky || c.v.texts[f]
					}
				case *syntax.ParamExp:
					_, risky = c.arithmOperand([]syntax.WordPart{q})
				default:
					risky = true
				}
				if risky {
					c.add(Confirm, Code, c.text(p), "$"+p.Param.Value+"[…]: zsh evaluates the subscript as arithmetic, which can run code in a value")
					break
				}
				if closed {
					break
				}
			}
		}
	}
}

// Program resolves a command's first word the way the classifier does: a
// plain name stands for itself, a path in a standard system directory for
// its base name (/usr/bin/git is git), and anything else (./git, a path in
// a project, a name computed at run time) for no known program (ok false).
// runsOthers says the program runs programs or code it is given — a
// wrapper such as nice, env or xargs, a shell, an interpreter — so a rule
// about its name says nothing about what it will do.
func Program(word string) (name string, runsOthers, ok bool) {
	if word == "" || strings.ContainsAny(word, "$`*?[{") {
		return "", false, false
	}
	name = word
	if strings.Contains(word, "/") {
		if name, ok = systemProgram(word); !ok {
			return "", false, false
		}
	}
	r, known := programs[name]
	if !known {
		if lower := strings.ToLower(name); lower != name {
			r, known = programs[lower]
		}
	}
	if !known {
		r, known = prefixRule(name)
	}
	return name, known && r.runsOthers, true
}

package plan

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Field is one argument as bash would pass it to the program.
type Field struct {
	Value string
	// Word is the index, in the words expanded, of the word it came from.
	Word int
	// Glob is true when the field is a name pathname expansion found.
	Glob bool
	// Pattern is true when the word is a pattern that was not matched
	// against the disk (Env.Disk is off): Value is the pattern with its
	// quotes removed, Escaped the pattern for pattern.Regexp.
	Pattern bool
	Escaped string
}

// Expansion is what some words expand to at one Place.
type Expansion struct {
	Fields []Field
	// Unknown says why the words cannot be told; Fields is then nil.
	Unknown string
	// NoRun says why bash would not run the command at all (a pattern
	// with no match under failglob).
	NoRun string
}

// Bounds on one expansion, so that {1..1000000} or a pattern over a huge
// tree cannot make the question slow.
const (
	maxFields   = 10000
	maxDirReads = 2000
)

// Args expands the call's words (the command name first) at p.
func (c Call) Args(env Env, p Place) Expansion { return env.Expand(p, c.Expr.Args) }

// Expand is what words expand to at p, as bash would: brace expansion,
// tilde expansion, the variables known at p, quote removal, and pathname
// expansion under p's options (only when Env.Disk lets the model look).
func (env Env) Expand(p Place, words []*syntax.Word) Expansion {
	if p.Unknown != "" {
		return Expansion{Unknown: p.Unknown}
	}
	return env.expandWith(&expander{env: env, p: p, args: true}, words)
}

// expandValue is Expand for the value of an assignment, where a word that
// looks like one (x=(a=~), x=y=~) keeps its ~.
func (env Env) expandValue(p Place, words []*syntax.Word) Expansion {
	if p.Unknown != "" {
		return Expansion{Unknown: p.Unknown}
	}
	return env.expandWith(&expander{env: env, p: p}, words)
}

func (env Env) expandWith(x *expander, words []*syntax.Word) Expansion {
	var out []Field
	for i, w := range words {
		if why := x.opaque(w); why != "" {
			return Expansion{Unknown: why}
		}
		for _, bw := range braces(w) {
			fs, noRun, err := x.word(bw, i)
			if err != nil {
				return Expansion{Unknown: err.Error()}
			}
			if noRun != "" {
				return Expansion{NoRun: noRun}
			}
			out = append(out, fs...)
			if len(out) > maxFields {
				return Expansion{Unknown: fmt.Sprintf("the words expand to more than %d names", maxFields)}
			}
		}
	}
	return Expansion{Fields: out}
}

// braces is word after brace expansion (a copy: SplitBraces rewrites).
func braces(w *syntax.Word) []*syntax.Word {
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		return []*syntax.Word{&cp}
	}
	var out []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, &cp) {
		if err != nil || len(out) > maxFields {
			return []*syntax.Word{w} // expanded below as too many names
		}
		out = append(out, bw)
	}
	return out
}

type expander struct {
	env   Env
	p     Place
	reads int
	sets  map[string]string // what ${x:=…} assigned so far
	depth int               // command substitutions followed around this one
	// args: the words are a command's (or a for loop's), where bash
	// expands ~ after the '=' and each ':' of a word that looks like an
	// assignment (env x=~ hands env x=/home/me).
	args bool
}

// opaque says why a word's value is only known when the shell runs it.
func (x *expander) opaque(w *syntax.Word) string {
	why := ""
	var visit func(parts []syntax.WordPart, quoted bool)
	visit = func(parts []syntax.WordPart, quoted bool) {
		for _, part := range parts {
			if why != "" {
				return
			}
			switch y := part.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.ExtGlob:
				if !x.p.Opts.ExtGlob {
					why = "an extended pattern while extglob may be off"
				}
			case *syntax.DblQuoted:
				visit(y.Parts, true)
			case *syntax.ParamExp:
				if why = x.paramOpaque(y, quoted); why != "" {
					return
				}
				if y.Exp != nil && y.Exp.Word != nil {
					if !quoted && hasBlank(y.Exp.Word) {
						why = "${" + y.Param.Value + "…} splits into words Hark does not follow"
						return
					}
					visit(y.Exp.Word.Parts, quoted)
				}
			case *syntax.BraceExp:
			case *syntax.CmdSubst:
				if _, ok := x.substOutput(y); !ok {
					why = "a command substitution or arithmetic, only known when the command runs"
				}
			default:
				why = "a command substitution or arithmetic, only known when the command runs"
			}
		}
	}
	visit(w.Parts, false)
	return why
}

// paramOps are the operators of ${NAME op WORD} the model follows: the
// defaults and alternatives, the assignments, the checks, and the removal
// of a prefix or suffix.
var paramOps = map[syntax.ParExpOperator]bool{
	syntax.DefaultUnset: true, syntax.DefaultUnsetOrNull: true,
	syntax.AlternateUnset: true, syntax.AlternateUnsetOrNull: true,
	syntax.AssignUnset: true, syntax.AssignUnsetOrNull: true,
	syntax.ErrorUnset: true, syntax.ErrorUnsetOrNull: true,
	syntax.RemSmallSuffix: true, syntax.RemLargeSuffix: true,
	syntax.RemSmallPrefix: true, syntax.RemLargePrefix: true,
}

// paramOpaque says why a parameter expansion is only known when the
// shell runs it, or "".
func (x *expander) paramOpaque(y *syntax.ParamExp, quoted bool) string {
	if y.Param == nil || y.Excl || y.Width || y.Names != 0 ||
		y.Flags != nil || len(y.Modifiers) > 0 || y.NestedParam != nil || y.IsSet ||
		!isName(y.Param.Value) && !isPositional(y.Param.Value) ||
		y.Exp != nil && !paramOps[y.Exp.Op] {
		return "a parameter expansion Hark does not follow"
	}
	// ${x:off:len} and ${x/pat/rep} are computed by the expansion library
	// as bash does, once their own parts are known: a slice or a
	// replacement that may leave the value whole must be read, or
	// "${HOME:0:99}" hides home.
	if y.Slice != nil && (!constArith(y.Slice.Offset) || !constArith(y.Slice.Length)) {
		return "a substring whose bounds are only known when the command runs"
	}
	if y.Repl != nil {
		var lits [2]string
		for i, w := range []*syntax.Word{y.Repl.Orig, y.Repl.With} {
			if w == nil {
				continue
			}
			l, ok := Literal(w)
			if !ok {
				return "a replacement only known when the command runs"
			}
			lits[i] = l
		}
		// The library takes the anchors of ${x/#pat/…} and ${x/%pat/…}
		// as letters; only an empty anchored pattern replaced by nothing
		// (the value unchanged) reads the same.
		if strings.HasPrefix(lits[0], "#") || strings.HasPrefix(lits[0], "%") {
			if len(lits[0]) > 1 || lits[1] != "" {
				return "an anchored replacement Hark does not follow"
			}
		}
	}
	name := y.Param.Value
	v, ok := lookup(x.env, x.p, name)
	if !ok {
		return "$" + name + " is only known when the command runs"
	}
	if y.Index != nil {
		_, assoc := assocOf(v)
		index := ""
		if w, ok := y.Index.(*syntax.Word); ok {
			index = w.Lit()
		} else if constArith(y.Index) && !assoc {
			index = "0" // a negative index: the library counts it from the end
		}
		k, ok := subscript(y.Index, assoc)
		if !ok && index != "@" && index != "*" && !isDigits(index) {
			return "an array subscript Hark does not follow"
		}
		if partial(v) && (!ok || !hasElem(v, k)) {
			return "${" + name + "[" + index + "]} is only known when the command runs"
		}
	} else if partial(v) {
		return "$" + name + " is only known when the command runs"
	}
	if y.Length && strings.HasPrefix(v, assocMark) {
		return "the size of an associative array, which Hark does not count"
	}
	elems, isArray := arrayOf(v)
	if !isArray {
		elems = []string{v}
	}
	if y.Length {
		return ""
	}
	if !quoted {
		for _, e := range elems {
			if strings.ContainsAny(e, x.ifs()) {
				return "$" + name + " splits into words Hark does not follow"
			}
		}
	}
	return ""
}

// hasBlank says whether a word has unquoted blanks in its literal parts
// (bash splits ${x:-a b} into two words).
func hasBlank(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, " \t\n") {
			return true
		}
	}
	return false
}

// isPositional says whether s names a positional parameter or the list
// of them ($1, $@, $*, $#).
func isPositional(s string) bool { return s == "@" || s == "*" || s == "#" || isDigits(s) }

// constArith says whether an arithmetic operand is absent or a literal
// number, possibly negative: the only bounds read without running them.
func constArith(a syntax.ArithmExpr) bool {
	switch y := a.(type) {
	case nil:
		return true
	case *syntax.Word:
		return isDigits(y.Lit())
	case *syntax.UnaryArithm:
		return (y.Op == syntax.Minus || y.Op == syntax.Plus) && !y.Post && constArith(y.X) && y.X != nil
	case *syntax.ParenArithm:
		return constArith(y.X) && y.X != nil
	}
	return false
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (x *expander) ifs() string {
	if v, ok := lookup(x.env, x.p, "IFS"); ok && v != "" {
		if _, set := x.p.Vars["IFS"]; set {
			return v
		}
		if _, set := x.env.Vars["IFS"]; set {
			return v
		}
	}
	return " \t\n"
}

// config is the mvdan.cc/sh expansion config for the known variables.
func (x *expander) config() *expand.Config {
	return &expand.Config{Env: placeEnv{x}, CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
		out, ok := x.substOutput(cs)
		if !ok {
			return fmt.Errorf("a command substitution, only known when the command runs")
		}
		_, err := io.WriteString(w, strings.ReplaceAll(out, "\x00", nulStandIn))
		return err
	}}
}

// substOutput is what $(echo WORDS) or $(printf FORMAT WORDS) prints when
// its words are known and the format is one the model reads: a command
// substitution that only echoes a value is that value, so
// rm -rf $(printf ~) is rm -rf ~. Anything else is not followed.
func (x *expander) substOutput(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 || x.depth > 4 {
		return "", false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return "", false
	}
	name := call.Args[0].Lit()
	if name != "echo" && name != "printf" {
		return "", false
	}
	sub := &expander{env: x.env, p: x.p, depth: x.depth + 1}
	ex := x.env.expandWith(sub, call.Args[1:])
	if ex.Unknown != "" || ex.NoRun != "" || anyPattern(ex.Fields) {
		return "", false
	}
	vals := make([]string, len(ex.Fields))
	for i, f := range ex.Fields {
		vals[i] = f.Value
	}
	return echoOutput(name, vals)
}

// echoOutput is what echo or printf print given vals, for the forms whose
// output does not depend on shell options (xpg_echo) or escapes.
func echoOutput(name string, vals []string) (string, bool) {
	for _, v := range vals {
		if strings.Contains(v, `\`) {
			return "", false
		}
	}
	if name == "echo" {
		nl := "\n"
		if len(vals) > 0 && strings.HasPrefix(vals[0], "-") {
			if vals[0] != "-n" {
				return "", false
			}
			vals, nl = vals[1:], ""
		}
		return strings.Join(vals, " ") + nl, true
	}
	if len(vals) == 0 || strings.HasPrefix(vals[0], "-") {
		return "", false
	}
	format, args := vals[0], vals[1:]
	switch {
	case !strings.Contains(format, "%"):
		return format, true
	case format == "%s":
		return strings.Join(args, ""), true
	}
	return "", false
}

type placeEnv struct{ x *expander }

func (e placeEnv) Get(name string) expand.Variable {
	if v, ok := e.x.sets[name]; ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	v, ok := lookup(e.x.env, e.x.p, name)
	if !ok || (v == "" && !e.isSet(name)) {
		return expand.Variable{}
	}
	return variable(v)
}

// Set records what ${NAME=WORD} and ${NAME:=WORD} assign, for the rest of
// the expansion (and, through Env.Assigned, the commands after it).
func (e placeEnv) Set(name string, vr expand.Variable) error {
	if vr.Kind != expand.String {
		return fmt.Errorf("an assignment to an array inside ${…}")
	}
	if e.x.sets == nil {
		e.x.sets = map[string]string{}
	}
	e.x.sets[name] = strings.ReplaceAll(vr.Str, nulStandIn, "\x00")
	return nil
}

func (e placeEnv) isSet(name string) bool {
	if v, ok := e.x.p.Vars[name]; ok {
		return v != unsetVar && !(v == unknownVar && e.x.env.Unset)
	}
	if name == "HOME" && e.x.env.Home != "" || name == "PWD" {
		return true
	}
	if name == "OLDPWD" && e.x.env.OldPwdIsStart {
		return true
	}
	_, ok := e.x.env.Vars[name]
	return ok
}

func (e placeEnv) Each(f func(string, expand.Variable) bool) {}

// word expands one brace-expanded word to fields.
func (x *expander) word(w *syntax.Word, index int) ([]Field, string, error) {
	w = mergeLits(w)
	if len(w.Parts) == 0 {
		return nil, "", nil // an empty alternative of a brace expansion: no word at all
	}
	w, err := x.tilde(w)
	if err != nil {
		return nil, "", err
	}
	if w, err = x.paramTildes(w); err != nil {
		return nil, "", err
	}
	w = replUnescaped(w)
	if x.args {
		if w, err = x.assignTildes(w); err != nil {
			return nil, "", err
		}
	}
	cfg := x.config()
	if !x.p.Opts.NoGlob {
		pat, err := expand.Pattern(cfg, w)
		if err != nil {
			return nil, "", err
		}
		pat = strings.ReplaceAll(pat, nulStandIn, "\x00")
		if pattern.HasMeta(pat, 0) || hasExtGlob(w) {
			return x.globWord(pat, index)
		}
	}
	vals, err := expand.Fields(cfg, w)
	if err != nil {
		return nil, "", err
	}
	out := make([]Field, len(vals))
	for i, v := range vals {
		out[i] = Field{Value: strings.ReplaceAll(v, nulStandIn, "\x00"), Word: index}
	}
	return out, "", nil
}

// nulStandIn carries a NUL byte through a command substitution, whose
// output the expansion library strips of them as bash does: a caller's
// symbolic folder (Env.Home may hold NULs that no real path has) must
// come out of $(echo ~) as it went in. It is a Unicode noncharacter,
// which no command line Hark reads spells.
const nulStandIn = "\ufdd0"

// mergeLits joins adjacent literal parts (brace expansion leaves them
// apart) and drops empty ones, so that a leading ~ is seen as bash sees it.
func mergeLits(w *syntax.Word) *syntax.Word {
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			parts = append(parts, p)
			continue
		}
		if l.Value == "" {
			continue
		}
		if n := len(parts); n > 0 {
			if prev, ok := parts[n-1].(*syntax.Lit); ok {
				parts[n-1] = &syntax.Lit{ValuePos: prev.ValuePos, ValueEnd: l.ValueEnd, Value: prev.Value + l.Value}
				continue
			}
		}
		parts = append(parts, l)
	}
	cp := *w
	cp.Parts = parts
	return &cp
}

func hasExtGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.ExtGlob); ok {
			return true
		}
	}
	return false
}

// tilde expands a leading ~, ~/…, ~+ and ~- (another user's ~name is
// "cannot tell": the model does not read the user database).
func (x *expander) tilde(w *syntax.Word) (*syntax.Word, error) {
	if len(w.Parts) == 0 {
		return w, nil
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "~") {
		return w, nil
	}
	name, rest, slash := strings.Cut(lit.Value[1:], "/")
	if !slash && len(w.Parts) > 1 {
		return w, nil // ~'x': not a tilde prefix
	}
	dir, err := x.tildeDir(name)
	if err != nil {
		return nil, err
	}
	// The folder's name is quoted: a * in it is no pattern.
	head := []syntax.WordPart{&syntax.SglQuoted{Value: dir}}
	if slash {
		head = append(head, &syntax.Lit{Value: "/" + rest})
	}
	cp := *w
	cp.Parts = append(head, w.Parts[1:]...)
	return &cp, nil
}

// assignLike is the NAME=, NAME+= or NAME[…]= a word starts with, as
// bash (outside POSIX mode) recognises an assignment among a command's
// words.
var assignLike = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=`)

// assignTildes expands, in a word that starts like an assignment, each
// tilde prefix after its first '=' and after each unquoted ':' (x=~:~/b),
// as bash does for a command's words outside POSIX mode. A prefix ends at
// '/' or ':'; one that runs into quotes or an expansion (x=~"q") is left
// alone, as bash leaves it.
func (x *expander) assignTildes(w *syntax.Word) (*syntax.Word, error) {
	if len(w.Parts) == 0 {
		return w, nil
	}
	first, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return w, nil
	}
	m := assignLike.FindStringIndex(first.Value)
	if m == nil {
		return w, nil
	}
	var parts []syntax.WordPart
	changed := false
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			parts = append(parts, part)
			continue
		}
		v, from := lit.Value, 0
		if i == 0 {
			from = m[1]
		}
		var pend strings.Builder
		pend.WriteString(v[:from])
		for start := from; start <= len(v); {
			// start is where a tilde prefix may begin: after the '=' or
			// a ':'.
			end := strings.IndexAny(v[start:], ":")
			seg := v[start:]
			if end >= 0 {
				seg = v[start : start+end]
			}
			canStart := i == 0 && start == from || start > 0 && v[start-1] == ':'
			if canStart && strings.HasPrefix(seg, "~") {
				name, _, _ := strings.Cut(seg[1:], "/")
				runsOn := end < 0 && !strings.Contains(seg, "/") && i < len(w.Parts)-1
				if !runsOn && !strings.Contains(name, `\`) {
					dir, err := x.tildeDir(name)
					if err != nil {
						return nil, err
					}
					if pend.Len() > 0 {
						parts = append(parts, &syntax.Lit{Value: pend.String()})
						pend.Reset()
					}
					parts = append(parts, &syntax.SglQuoted{Value: dir})
					seg = seg[1+len(name):]
					changed = true
				}
			}
			pend.WriteString(seg)
			if end < 0 {
				break
			}
			pend.WriteByte(':')
			start += end + 1
		}
		if pend.Len() > 0 {
			parts = append(parts, &syntax.Lit{Value: pend.String()})
		}
	}
	if !changed {
		return w, nil
	}
	cp := *w
	cp.Parts = parts
	return &cp, nil
}

// tildeDir is the folder ~NAME names: home for "", the current folder for
// +, the previous one for -.
func (x *expander) tildeDir(name string) (string, error) {
	switch name {
	case "":
		v, ok := lookup(x.env, x.p, "HOME")
		if !ok {
			return "", fmt.Errorf("~ is $HOME, which is not known")
		}
		return v, nil
	case "+":
		return x.p.Dir, nil
	case "-":
		v, ok := lookup(x.env, x.p, "OLDPWD")
		if !ok || v == "" {
			return "", fmt.Errorf("~- is the previous folder, which is not known")
		}
		return v, nil
	}
	return "", fmt.Errorf("~%s is another user's home folder", name)
}

// paramTildes expands the leading ~ of the word in an unquoted ${x:-~…}
// (bash leaves it alone inside double quotes) the way tilde does, before
// the word reaches the expansion library.
func (x *expander) paramTildes(w *syntax.Word) (*syntax.Word, error) {
	var parts []syntax.WordPart
	changed := false
	for _, part := range w.Parts {
		pe, ok := part.(*syntax.ParamExp)
		if ok && pe.Exp != nil && pe.Exp.Word != nil {
			if l, ok := pe.Exp.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
				nw, err := x.tilde(mergeLits(pe.Exp.Word))
				if err != nil {
					return nil, err
				}
				cp := *pe
				exp := *pe.Exp
				exp.Word = nw
				cp.Exp = &exp
				part, changed = &cp, true
			}
		}
		parts = append(parts, part)
	}
	if !changed {
		return w, nil
	}
	cp := *w
	cp.Parts = parts
	return &cp, nil
}

func (x *expander) globWord(pat string, index int) ([]Field, string, error) {
	if !x.env.Disk {
		return []Field{{Value: unescapePattern(pat), Word: index, Pattern: true, Escaped: pat}}, "", nil
	}
	matches, err := x.glob(x.p.Dir, pat)
	if err != nil {
		return nil, "", err
	}
	if len(matches) == 0 {
		switch {
		case x.p.Opts.FailGlob:
			return nil, "no match for " + unescapePattern(pat) + " (failglob)", nil
		case x.p.Opts.NullGlob:
			return nil, "", nil
		}
		return []Field{{Value: unescapePattern(pat), Word: index}}, "", nil
	}
	out := make([]Field, len(matches))
	for i, m := range matches {
		out[i] = Field{Value: m, Word: index, Glob: true}
	}
	return out, "", nil
}

// unescapePattern removes the backslashes that quote pattern characters.
func unescapePattern(pat string) string {
	if !strings.Contains(pat, `\`) {
		return pat
	}
	var sb strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] == '\\' && i+1 < len(pat) {
			i++
		}
		sb.WriteByte(pat[i])
	}
	return sb.String()
}

// replUnescaped is w with the replacement of every ${x/pat/rep} in it as
// bash reads it: outside quotes there, a backslash escapes the character
// after it ("${HOME//\//\/}" is home itself, each / replaced by /), which
// the expansion library would keep; \& is a literal & then, as the
// library reads a bare one. Parts inside quotes keep their backslashes,
// as in bash. w itself is left as it is: the parse tree is shared.
func replUnescaped(w *syntax.Word) *syntax.Word {
	changed := false
	var walk func([]syntax.WordPart) []syntax.WordPart
	walk = func(ps []syntax.WordPart) []syntax.WordPart {
		out := slices.Clone(ps)
		for i, p := range ps {
			switch y := p.(type) {
			case *syntax.DblQuoted:
				c := *y
				c.Parts = walk(y.Parts)
				out[i] = &c
			case *syntax.ParamExp:
				if y.Repl == nil || y.Repl.With == nil {
					continue
				}
				with := *y.Repl.With
				with.Parts = slices.Clone(with.Parts)
				touched := false
				for j, wp := range with.Parts {
					if l, ok := wp.(*syntax.Lit); ok && strings.Contains(l.Value, `\`) {
						c := *l
						c.Value = unescapeRepl(l.Value)
						with.Parts[j] = &c
						touched = true
					}
				}
				if touched {
					c, r := *y, *y.Repl
					r.With = &with
					c.Repl = &r
					out[i] = &c
					changed = true
				}
			}
		}
		return out
	}
	parts := walk(w.Parts)
	if !changed {
		return w
	}
	c := *w
	c.Parts = parts
	return &c
}

// unescapeRepl takes the escaping backslashes out of an unquoted part of
// a replacement.
func unescapeRepl(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

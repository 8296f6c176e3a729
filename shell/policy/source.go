package policy

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deeply strings run by `sh -c`, `eval` and friends are
// parsed again, so a hostile input cannot make classification expensive.
const maxDepth = 6

// classifySource parses src and classifies every statement in it. depth counts
// how many shell strings deep we are; cwd lists the folders it starts in
// (classifier.cwd's form).
func (p *Policy) classifySource(v *verdict, src string, depth int, cwd string) {
	p.classifyChild(v, src, depth, cwd, child{})
}

// classifyChild is classifySource for the script of a shell started with
// what seed knows (sh -c SCRIPT ARGS…, exported variables).
func (p *Policy) classifyChild(v *verdict, src string, depth int, cwd string, seed child) {
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
	c := &classifier{p: p, v: v, src: src, depth: depth, cwd: cwd, cdCwd: cwd, places: placesOf(f, src, cwd, seed)}
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

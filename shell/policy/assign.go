package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

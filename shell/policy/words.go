package policy

import (
	"path"
	"sort"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// arg is a word as the program will receive it, as far as the parse tree
// can tell: quotes and escapes removed, so 'rm', \rm and r\m all read "rm".
type arg struct {
	val string // the value after quote removal; expansions contribute their source text
	// expanded: part of the value is only known at run time (parameters,
	// command or arithmetic substitution, $'…' escapes).
	expanded bool
	glob     bool // unquoted * ? or [ : the shell may replace it with file names
	brace    bool // unquoted {a,b} or {1..3}: the shell makes several words of it
	// home: the value starts with the home directory (~, ~/…, $HOME, "${HOME}"),
	// written as "~" in val.
	home      bool
	escapedOp bool // an unquoted \; \& or \|
	// path: although expanded, the value is a path that find produced from
	// a starting point, so it never starts with '-' and is never an option.
	path bool
}

// plain reports whether the shell passes the value on exactly as written.
func (a arg) plain() bool { return !a.expanded && !a.glob && !a.brace }

// option reports whether the argument looks like an option ("-x", "--long").
func (a arg) option() bool { return len(a.val) > 1 && a.val[0] == '-' }

// trustedParams expand to values that never start with '-' and never name
// another program, so words using them still count as known.
var trustedParams = map[string]bool{"HOME": true, "PWD": true, "USER": true, "LOGNAME": true, "TMPDIR": true, "OLDPWD": true}

func decodeWord(w *syntax.Word) arg {
	var a arg
	if w == nil {
		return a
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			unquoteLit(&b, &a, p.Value, i == 0)
		case *syntax.SglQuoted:
			// $'\x72m' is rm: plan reads it as bash does, or it is
			// unknown (an escape bash reads by rules of its own).
			v, ok := plan.Literal(&syntax.Word{Parts: []syntax.WordPart{p}})
			if !ok {
				a.expanded = true
				v = p.Value
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			for j, inner := range p.Parts {
				switch q := inner.(type) {
				case *syntax.Lit:
					v, _ := plan.Literal(&syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{q}}}})
					b.WriteString(v)
				case *syntax.ParamExp:
					param(&b, &a, q, i == 0 && j == 0)
				default:
					a.expanded = true
					b.WriteString("…")
				}
			}
		case *syntax.ParamExp:
			param(&b, &a, p, i == 0)
		case *syntax.ExtGlob:
			// !(keep), *(x), @(a|b): a pattern at least as broad as
			// nothing can tell, read as * (the floor's broadest)
			a.glob = true
			b.WriteString("*")
		default: // command, arithmetic and process substitution
			a.expanded = true
			b.WriteString("…")
		}
	}
	a.val = b.String()
	if !a.brace && len(w.Parts) > 1 {
		a.brace = splitBrace(w.Parts)
	}
	return a
}

// splitBrace reports whether a word of several parts has an unquoted { and
// a later unquoted } with a comma or .. between them: bash expands
// {'rm x',EXIT} into two words although the quotes hide the comma from a
// look at any single part.
func splitBrace(parts []syntax.WordPart) bool {
	open, sep := false, false
	for _, part := range parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		for i := 0; i < len(lit.Value); i++ {
			switch lit.Value[i] {
			case '\\':
				i++
			case '{':
				open = true
			case ',':
				sep = sep || open
			case '.':
				sep = sep || open && strings.HasPrefix(lit.Value[i:], "..")
			case '}':
				if open && sep {
					return true
				}
			}
		}
	}
	return false
}

func param(b *strings.Builder, a *arg, p *syntax.ParamExp, first bool) {
	if !simpleParam(p) || !trustedParams[p.Param.Value] {
		a.expanded = true
		b.WriteString("$")
		if p.Param != nil {
			b.WriteString(p.Param.Value)
		}
		return
	}
	if p.Param.Value == "HOME" && first {
		a.home = true
		b.WriteString("~")
		return
	}
	b.WriteString("$" + p.Param.Value)
}

func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// unquoteLit removes the backslashes of an unquoted literal and notes globs,
// brace expansions and a leading tilde.
func unquoteLit(b *strings.Builder, a *arg, s string, first bool) {
	if first && strings.HasPrefix(s, "~") {
		a.home = true
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '\\':
			// As plan.Literal reads it: the next character as itself, and
			// a line continuation as nothing.
			if i+1 < len(s) {
				i++
				if s[i] == ';' || s[i] == '&' || s[i] == '|' {
					a.escapedOp = true
				}
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		case '*', '?':
			a.glob = true
		case '[':
			// A bracket without a closing one matches itself: "[" is test.
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				a.glob = true
			}
		case '{':
			if rest := s[i+1:]; strings.ContainsRune(rest, '}') && (strings.ContainsRune(rest, ',') || strings.Contains(rest, "..")) {
				a.brace = true
			}
		}
		b.WriteByte(ch)
	}
}

// cleanPath is path.Clean that keeps the result absolute-looking.
func cleanPath(p string) string { return path.Clean(p) }

// pathKind says why the policy treats a path specially.
type pathKind int

const (
	// systemRoot: deleting it, or changing its permissions recursively,
	// breaks the machine or destroys everything a person has.
	systemRoot pathKind = iota + 1
	homes               // each directory in it is someone's home, as protected as ~
	disk                // a prefix of the device names of whole disks and partitions
	socket              // a prefix that bash turns into a network connection
	trigger             // writing to it acts at once (the kernel's emergency keys)
	sink                // writing to it changes nothing
	terminal            // writing to it bypasses Hark's output capture
)

// paths is the one table of paths the policy treats specially.
var paths = map[string]pathKind{
	"/": systemRoot, "/System": systemRoot, "/System/Volumes": systemRoot, "/System/Volumes/Data": systemRoot,
	"/Library": systemRoot, "/Applications": systemRoot, "/Volumes": systemRoot, "/Network": systemRoot,
	"/cores": systemRoot, "/bin": systemRoot, "/sbin": systemRoot, "/usr": systemRoot, "/usr/bin": systemRoot,
	"/usr/sbin": systemRoot, "/usr/lib": systemRoot, "/usr/libexec": systemRoot, "/usr/local": systemRoot,
	"/usr/share": systemRoot, "/usr/include": systemRoot, "/etc": systemRoot, "/var": systemRoot,
	"/private": systemRoot, "/private/etc": systemRoot, "/private/var": systemRoot, "/opt": systemRoot,
	"/opt/homebrew": systemRoot, "/root": systemRoot, "/boot": systemRoot, "/efi": systemRoot, "/lib": systemRoot,
	"/lib32": systemRoot, "/lib64": systemRoot, "/libx32": systemRoot, "/dev": systemRoot, "/proc": systemRoot,
	"/sys": systemRoot, "/srv": systemRoot, "/mnt": systemRoot, "/media": systemRoot, "/run": systemRoot,
	"/snap":  systemRoot,
	"/Users": homes, "/home": homes,
	"/dev/disk": disk, "/dev/rdisk": disk, "/dev/sd": disk, "/dev/hd": disk, "/dev/nvme": disk, "/dev/vd": disk,
	"/dev/xvd": disk, "/dev/mmcblk": disk, "/dev/mapper/": disk, "/dev/dm-": disk, "/dev/md": disk, "/dev/loop": disk,
	"/dev/tcp/": socket, "/dev/udp/": socket,
	"/proc/sysrq-trigger": trigger,
	"/dev/null":           sink, "/dev/stdout": sink, "/dev/stderr": sink, "/dev/fd/1": sink, "/dev/fd/2": sink,
	"/dev/tty": terminal,
}

// pathPrefixes lists the entries of paths that are prefixes (disks and
// sockets), longest first, built once from the table.
var pathPrefixes = func() []string {
	var out []string
	for p, k := range paths {
		if k == disk || k == socket {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}()

// prefixKind returns the kind of the table's prefix that p starts with.
func prefixKind(p string) pathKind {
	for _, prefix := range pathPrefixes {
		if strings.HasPrefix(p, prefix) {
			return paths[prefix]
		}
	}
	return 0
}

// isDiskDevice reports whether p names a whole disk or partition.
func isDiskDevice(p string) bool { return prefixKind(p) == disk }

// isSocketPath reports whether bash opens a connection for p.
func isSocketPath(p string) bool { return prefixKind(cleanPath(p)) == socket }

// protectedTarget reports whether target is the file-system root, a home
// directory, a system root or everything inside one of them, in any of the
// folders cwd lists (see dirList; a relative target names nothing known
// when none is). It returns the root it names.
func (p *Policy) protectedTarget(target arg, cwd string) (string, bool) {
	if target.expanded && !target.home {
		return "", false
	}
	for _, dir := range dirList(cwd) {
		if root, ok := p.protectedIn(target, dir); ok {
			return root, true
		}
	}
	return "", false
}

// broadPattern replaces each bracket expression of a glob with "?": a
// class such as [!.] or [a-z] matches nearly any character, so ".[!.]*"
// (every dotfile) or "[a-z]*" is as broad as ".*" or "*".
func broadPattern(s string) string {
	if !strings.ContainsRune(s, '[') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
				if j == 0 { // "[]…]": the first ] is part of the class
					if k := strings.IndexByte(s[i+2:], ']'); k >= 0 {
						j = k + 1
					}
				}
				b.WriteByte('?')
				i += j + 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// stripAll drops trailing path elements that match everything ("*", ".*",
// "**") or nothing new ("."), so "/usr/*" names /usr.
func stripAll(p string) string {
	for p != "/" {
		i := strings.LastIndexByte(p, '/')
		last := broadPattern(p[i+1:])
		if strings.Trim(last, "*.?") != "" || !strings.ContainsAny(last, "*.") && last != "" {
			return p
		}
		if i == 0 {
			return "/"
		}
		p = p[:i]
	}
	return p
}

package policy

import (
	"strings"

	"github.com/hark-sh/hark/shell/plan"
)

// sedCheck: sed only reads unless it edits in place (-i), or its script
// writes files (w, W, s///w) or runs commands (e, s///e). Scripts read from
// files cannot be seen.
func sedCheck(in *invocation) {
	checked(func(in *invocation) {
		vals := make([]string, len(in.args))
		for i, a := range in.args {
			vals[i] = a.val
		}
		sed := plan.ReadSed(vals, false)
		if sed.First != "" {
			in.confirmOpt(sed.First, sed.Why)
			return
		}
		for _, s := range sed.Scripts {
			if why := sedScriptWrites(s); why != "" {
				cat := Write
				if strings.Contains(why, "runs a command") {
					cat = Code
				}
				in.confirmAs(cat, "", why)
				return
			}
		}
	})(in)
}

// sedScriptWrites scans a sed script and says why it is not read-only, or
// "". It understands the POSIX and GNU command set; anything it does not
// recognise counts as not read-only.
func sedScriptWrites(s string) string {
	i := 0
	n := len(s)
	// readDelimited consumes text up to an unescaped delim, starting after
	// the opening delimiter; it reports false at the end of the script.
	readDelimited := func(delim byte) bool {
		for i < n {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			case '\n':
				if delim != '\n' {
					return false
				}
			}
			i++
		}
		return false
	}
	skipToEOL := func() {
		for i < n && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	for i < n {
		switch s[i] {
		case ' ', '\t', '\n', ';':
			i++
			continue
		case '#':
			skipToEOL()
			continue
		}
		// addresses
		for i < n {
			c := s[i]
			switch {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == ' ' || c == '!' || c == 'I' && i > 0 && s[i-1] == '/' || c == 'M' && i > 0 && s[i-1] == '/':
				i++
				continue
			case c == '/':
				i++
				if !readDelimited('/') {
					return "cannot read the sed script"
				}
				continue
			case c == '\\':
				if i+1 >= n {
					return "cannot read the sed script"
				}
				d := s[i+1]
				i += 2
				if !readDelimited(d) {
					return "cannot read the sed script"
				}
				continue
			}
			break
		}
		if i >= n {
			break
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == ' ') {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			for i < n && s[i] != '\n' && s[i] != ';' && s[i] != '}' {
				i++
			}
		case 'a', 'i', 'c', 'r', 'R':
			skipToEOL()
		case 'w', 'W':
			return "its " + string(c) + " command writes a file"
		case 'e':
			return "its e command runs a command"
		case 's', 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return "cannot read the sed script"
			}
			d := s[i]
			i++
			if !readDelimited(d) || !readDelimited(d) {
				return "cannot read the sed script"
			}
			if c == 'y' {
				continue
			}
			for i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch f := s[i]; {
				case f == 'w' || f == 'W':
					return "its s///w command writes a file"
				case f == 'e':
					return "its s///e command runs a command"
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9' || f == ' ' || f == '\t':
				default:
					return "cannot read the sed script"
				}
				i++
			}
		default:
			return "cannot read the sed script"
		}
	}
	return ""
}

// awkCheck: awk only reads unless its program calls system(), pipes to or
// from commands, or redirects print output to files. Programs from files
// and loaded extensions cannot be seen, and gawk's -d, -o, -p and -D write
// awkvars.out or awkprof.out. gawk --sandbox disables system, pipes and
// redirections, but not the options. Only a program called gawk is known
// to be gawk: the one-true-awk of macOS and BSD warns about an option it
// does not know and carries on, and mawk calls -W sandbox vacuous, so for
// awk, nawk and mawk --sandbox and -S change nothing.
func awkCheck(in *invocation) {
	checked(func(in *invocation) {
		vals := make([]string, len(in.args))
		for i, a := range in.args {
			vals[i] = a.val
		}
		awk := plan.ReadAwk(vals)
		if awk.First != "" {
			in.confirmOpt(awk.First, awk.Why)
			return
		}
		sandbox := awk.Sandbox && in.name == "gawk"
		for _, p := range awk.Programs {
			if why := awkProgramWrites(p); why != "" && (!sandbox || strings.HasPrefix(why, "the program calls a function")) {
				cat := Code
				switch {
				case strings.Contains(why, "network"):
					cat = Network
				case strings.Contains(why, "to a file"):
					cat = Write
				}
				in.confirmAs(cat, "", why)
				return
			}
		}
	})(in)
}

// awkProgramWrites says why an awk program is not read-only, or "". It is a
// deliberately coarse scan. Output redirection needs a print or printf
// before it, so a ">" that comes before the first print is a comparison
// (as in '$5 > 1000 {print $9}'); any ">" after one counts as a redirection.
func awkProgramWrites(p string) string {
	switch {
	case strings.Contains(p, "system"):
		return "the program calls system(), which runs a command"
	case strings.Contains(strings.ReplaceAll(p, "||", ""), "|"):
		return "the program pipes to or from a command"
	case strings.Contains(p, "/inet"):
		// gawk's /inet/tcp/… and /inet4, /inet6 special files are network connections.
		return "the program opens a network connection"
	case strings.Contains(p, "@load") || strings.Contains(p, "@include"):
		return "the program loads code"
	case indirectCall(p):
		// gawk's @name(…) calls the function whose name name holds, system included.
		return "the program calls a function by a name held in a variable, which can be system()"
	case strings.Contains(p, "print") && strings.LastIndexByte(p, '>') > strings.Index(p, "print"):
		return "the program may print to a file"
	}
	return ""
}

// indirectCall reports whether p contains gawk's indirect call syntax,
// @name( with optional blanks before the parenthesis.
func indirectCall(p string) bool {
	for i := strings.IndexByte(p, '@'); i >= 0; {
		j := i + 1
		for j < len(p) && (p[j] == '_' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z' || j > i+1 && p[j] >= '0' && p[j] <= '9') {
			j++
		}
		k := j
		for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
			k++
		}
		if j > i+1 && k < len(p) && p[k] == '(' {
			return true
		}
		next := strings.IndexByte(p[i+1:], '@')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

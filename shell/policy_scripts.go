package shell

import "strings"

// checkSed: sed only reads unless it edits in place (-i), or its script
// writes files (w, W, s///w) or runs commands (e, s///e). Scripts read from
// files cannot be seen.
func checkSed(in *invocation) {
	checked(func(in *invocation) {
		var scripts []string
		var rest []arg
		for i := 0; i < len(in.args); i++ {
			a := in.args[i]
			v := a.val
			switch {
			case v == "--":
				rest = append(rest, in.args[i+1:]...)
				i = len(in.args)
			case strings.HasPrefix(v, "--"):
				switch {
				case longMatch(v, "--in-place"):
					in.confirmOpt(v, "edits files in place")
					return
				case longMatch(v, "--file"):
					in.confirmOpt(v, "runs a script from a file")
					return
				case longMatch(v, "--expression"):
					if k := strings.IndexByte(v, '='); k >= 0 {
						scripts = append(scripts, v[k+1:])
					} else if i+1 < len(in.args) {
						i++
						scripts = append(scripts, in.args[i].val)
					}
				case longMatch(v, "--line-length"):
					if !strings.Contains(v, "=") {
						i++
					}
				case longMatch(v, "--quiet") || longMatch(v, "--silent") || longMatch(v, "--regexp-extended") ||
					longMatch(v, "--separate") || longMatch(v, "--null-data") || longMatch(v, "--unbuffered") ||
					longMatch(v, "--posix") || longMatch(v, "--debug") || longMatch(v, "--sandbox") ||
					longMatch(v, "--follow-symlinks") || longMatch(v, "--zero-terminated") || v == "--help" || v == "--version":
				default:
					in.confirmOpt(v, "unknown sed option")
					return
				}
			case a.option():
				for j := 1; j < len(v); j++ {
					switch v[j] {
					case 'n', 'E', 'r', 's', 'u', 'z', 'a':
					case 'i', 'I':
						in.confirmOpt(v, "edits files in place")
						return
					case 'f':
						in.confirmOpt(v, "runs a script from a file")
						return
					case 'e', 'l':
						value := v[j+1:]
						if value == "" && i+1 < len(in.args) {
							i++
							value = in.args[i].val
						}
						if v[j] == 'e' {
							scripts = append(scripts, value)
						}
						j = len(v)
					default:
						in.confirmOpt(v, "unknown sed option")
						return
					}
				}
			default:
				rest = append(rest, a)
			}
		}
		if len(scripts) == 0 && len(rest) > 0 {
			scripts = append(scripts, rest[0].val)
		}
		for _, s := range scripts {
			if why := sedScriptWrites(s); why != "" {
				in.confirm(why)
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

// checkAwk: awk only reads unless its program calls system(), pipes to or
// from commands, or redirects print output to files. Programs from files
// and loaded extensions cannot be seen. gawk --sandbox disables all three.
func checkAwk(in *invocation) {
	checked(func(in *invocation) {
		var programs []string
		var rest []arg
		sandbox := false
		for i := 0; i < len(in.args); i++ {
			a := in.args[i]
			v := a.val
			switch {
			case v == "--":
				rest = append(rest, in.args[i+1:]...)
				i = len(in.args)
			case v == "-f" || longMatch(v, "--file") || strings.HasPrefix(v, "-f") && !strings.HasPrefix(v, "--") ||
				v == "-E" || longMatch(v, "--exec") || v == "-i" || longMatch(v, "--include") || v == "-l" || longMatch(v, "--load"):
				in.confirmOpt(v, "runs awk code from a file")
				return
			case longMatch(v, "--sandbox") || v == "-S":
				sandbox = true
			case v == "-e" || longMatch(v, "--source"):
				if k := strings.IndexByte(v, '='); k >= 0 {
					programs = append(programs, v[k+1:])
				} else if i+1 < len(in.args) {
					i++
					programs = append(programs, in.args[i].val)
				}
			case v == "-F" || v == "-v" || longMatch(v, "--field-separator") || longMatch(v, "--assign"):
				if !strings.Contains(v, "=") || v == "-v" {
					i++
				}
			case a.option():
				// -F, -v with attached values and flags without values
			default:
				rest = append(rest, a)
			}
		}
		if len(programs) == 0 && len(rest) > 0 {
			programs = append(programs, rest[0].val)
		}
		if sandbox {
			return
		}
		for _, p := range programs {
			if why := awkProgramWrites(p); why != "" {
				in.confirm(why)
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
	case strings.Contains(p, "@load") || strings.Contains(p, "@include"):
		return "the program loads code"
	case strings.Contains(p, "print") && strings.LastIndexByte(p, '>') > strings.Index(p, "print"):
		return "the program may print to a file"
	}
	return ""
}

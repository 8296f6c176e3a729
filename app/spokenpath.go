package app

import (
	"path"
	"strings"
)

// Spoken commands and paths: what an approval says aloud about a command.
// The words are a description for the ear; the menu and the notification
// show the command exactly as it runs. A path under home, written with ~
// or absolutely, is said as a place in "your home folder"; several targets
// of one deletion are counted ("4 log files in your home folder, Projects,
// logs") rather than read one by one. Anything the reading below does not
// follow (a variable, a command substitution, an unbalanced quote, a path
// that walks up with ..) is read as written, so a path that only looks
// like home is never said to be in it.

// spokenWord is one word of a command line as the speech reads it.
type spokenWord struct {
	text string // the word with its quotes taken off; raw when dynamic
	// dynamic: the word holds an expansion ($, `, a glob pattern is fine)
	// whose value the speech cannot tell, so it is read as written.
	dynamic bool
	op      bool // a control operator: && || | ; & |&
	redir   bool // a redirection operator: > >> < 2> &> …
}

// splitSpoken cuts a command line into words and operators, taking quotes
// off as the shell would; ok is false when a quote is not closed.
func splitSpoken(s string) (words []spokenWord, ok bool) {
	var cur strings.Builder
	var raw strings.Builder
	in, dyn := false, false
	flush := func() {
		if in {
			w := spokenWord{text: cur.String(), dynamic: dyn}
			if dyn {
				w.text = raw.String()
			}
			words = append(words, w)
		}
		cur.Reset()
		raw.Reset()
		in, dyn = false, false
	}
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '\'':
			j := i + 1
			for j < len(r) && r[j] != '\'' {
				j++
			}
			if j == len(r) {
				return nil, false
			}
			cur.WriteString(string(r[i+1 : j]))
			raw.WriteString(string(r[i : j+1]))
			in, i = true, j
		case c == '"':
			j := i + 1
			for ; j < len(r) && r[j] != '"'; j++ {
				switch r[j] {
				case '\\':
					if j+1 < len(r) && strings.ContainsRune("\"\\$`", r[j+1]) {
						j++
					}
				case '$', '`':
					dyn = true
				}
				cur.WriteRune(r[j])
			}
			if j == len(r) {
				return nil, false
			}
			raw.WriteString(string(r[i : j+1]))
			in, i = true, j
		case c == '\\':
			if i+1 < len(r) {
				i++
				cur.WriteRune(r[i])
				raw.WriteString(string(r[i-1 : i+1]))
				in = true
			}
		case strings.ContainsRune(";&|<>", c):
			// An fd number before a redirection belongs to the operator.
			fd := ""
			if in && !dyn && (c == '<' || c == '>') && isDigits(cur.String()) && raw.String() == cur.String() {
				fd = cur.String()
				cur.Reset()
				raw.Reset()
				in = false
			}
			flush()
			j := i
			for j < len(r) && strings.ContainsRune(";&|<>", r[j]) {
				j++
			}
			opText := fd + string(r[i:j])
			words = append(words, spokenWord{text: opText, op: !strings.ContainsAny(opText, "<>"), redir: strings.ContainsAny(opText, "<>")})
			i = j - 1
		default:
			if strings.ContainsRune("$`(){}", c) {
				dyn = true
			}
			cur.WriteRune(c)
			raw.WriteRune(c)
			in = true
		}
	}
	flush()
	return words, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// spokenCommand is cmd as an approval says it: each simple command's
// program and flags as written, its paths as places, and the several
// targets of a deletion counted. home is the user's home folder.
func spokenCommand(cmd, home string) string {
	words, ok := splitSpoken(cmd)
	if !ok {
		return speakable(cmd)
	}
	var out []string
	var seg []spokenWord
	end := func() {
		if len(seg) > 0 {
			out = append(out, spokenSimple(seg, home))
		}
		seg = nil
	}
	for _, w := range words {
		if w.op {
			end()
			out = append(out, spokenOp(w.text))
			continue
		}
		seg = append(seg, w)
	}
	end()
	return strings.Join(out, " ")
}

// spokenOp says a control operator as words.
func spokenOp(op string) string {
	switch op {
	case "&&":
		return "and then"
	case "||":
		return "or else"
	case "|", "|&":
		return "piped to"
	case ";":
		return "then"
	}
	return op
}

// deleters are the programs whose arguments are all targets of one
// deletion, so several of them are counted rather than read.
var deleters = map[string]string{"rm": "files", "shred": "files", "unlink": "files", "rmdir": "folders"}

// spokenSimple says one simple command (no control operators).
func spokenSimple(seg []spokenWord, home string) string {
	var out []string
	var targets []spokenWord
	prog, kind, recursive, flagsDone := "", "", false, false
	for i := 0; i < len(seg); i++ {
		w := seg[i]
		switch {
		case w.redir:
			out = append(out, w.text)
			if i+1 < len(seg) && !seg[i+1].op && !seg[i+1].redir {
				i++
				out = append(out, spokenPath(seg[i], home))
			}
		case prog == "":
			prog = w.text
			if !w.dynamic {
				kind = deleters[path.Base(prog)]
			}
			out = append(out, speakable(w.text))
		case !flagsDone && w.text == "--":
			flagsDone = true
			out = append(out, w.text)
		case !flagsDone && strings.HasPrefix(w.text, "-") && len(w.text) > 1:
			if w.text == "--recursive" || (!strings.HasPrefix(w.text, "--") && strings.ContainsAny(w.text, "rR")) {
				recursive = true
			}
			out = append(out, w.text)
		case kind != "":
			targets = append(targets, w)
			out = append(out, "\x00") // where the targets go
		default:
			out = append(out, spokenPath(w, home))
		}
	}
	if kind == "" || len(targets) == 0 {
		return strings.Join(out, " ")
	}
	var said []string
	if len(targets) == 1 {
		said = []string{spokenPath(targets[0], home)}
	} else if g := countTargets(targets, kind, recursive, home); g != "" {
		said = []string{g}
	} else {
		for _, t := range targets {
			said = append(said, spokenPath(t, home))
		}
	}
	var b []string
	placed := false
	for _, o := range out {
		if o != "\x00" {
			b = append(b, o)
		} else if !placed {
			b = append(b, strings.Join(said, ", "))
			placed = true
		}
	}
	return strings.Join(b, " ")
}

// countTargets says several targets of a deletion as a count and a place
// ("4 log files in your home folder, Projects, logs"), or "" when one of
// them is not a plain path (then each is read).
func countTargets(targets []spokenWord, kind string, recursive bool, home string) string {
	var dirs [][]string
	ext := ""
	for i, t := range targets {
		dir, base, ok := placeOf(t, home)
		if !ok {
			return ""
		}
		e := strings.ToLower(path.Ext(base))
		if i == 0 {
			ext = e
		} else if e != ext {
			ext = ""
		}
		dirs = append(dirs, dir)
	}
	// rm without -r removes no folder, so its targets are files; with -r
	// they may be either.
	if kind == "files" && recursive {
		kind = "items"
	}
	if kind == "files" && len(ext) > 1 && isWordy(ext[1:]) {
		kind = ext[1:] + " files"
	}
	common := dirs[0]
	same := true
	for _, d := range dirs[1:] {
		same = same && equalParts(d, common)
		n := 0
		for n < len(d) && n < len(common) && d[n] == common[n] {
			n++
		}
		common = common[:n]
	}
	count := plural(len(targets), strings.TrimSuffix(kind, "s"), kind)
	switch {
	case same:
		return count + " in " + spokenDir(common)
	case len(common) > 0 && !(len(common) == 1 && common[0] == "/"):
		return count + " under " + spokenDir(common)
	}
	return count + " in several folders"
}

// isWordy: an extension said as a word ("log files"), not a string of
// symbols.
func isWordy(s string) bool {
	if len(s) > 5 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func equalParts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// placeOf is the folder a target is in, as path parts ("~", "Projects"
// for ~/Projects; "/", "tmp" for /tmp; none for the working folder) and
// its own name. ok is false for what is read as written: an expansion, or
// a path with a . or .. part, which can lead anywhere.
func placeOf(w spokenWord, home string) (dir []string, base string, ok bool) {
	if w.dynamic || w.text == "" {
		return nil, "", false
	}
	p := w.text
	if p != "~" && !strings.HasPrefix(p, "~/") && strings.HasPrefix(p, "~") {
		return nil, "", false // another user's home
	}
	if strings.HasPrefix(p, "/") {
		p = Tilde(p, home)
	}
	var parts []string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		parts = []string{"~"}
		p = strings.TrimPrefix(p, "~")
	case strings.HasPrefix(p, "/"):
		parts = []string{"/"}
	}
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "":
			continue
		case ".", "..":
			return nil, "", false
		}
		parts = append(parts, c)
	}
	if len(parts) == 0 {
		return nil, "", false
	}
	if len(parts) == 1 && (parts[0] == "~" || parts[0] == "/") {
		return parts, "", true // the folder itself
	}
	return parts[:len(parts)-1], parts[len(parts)-1], true
}

// spokenPath says one word that may be a path: its name, then where it is.
func spokenPath(w spokenWord, home string) string {
	if !w.dynamic && !strings.Contains(w.text, "/") && w.text != "~" {
		return w.text // a name or a plain word reads as it is
	}
	dir, base, ok := placeOf(w, home)
	if !ok {
		return speakable(w.text)
	}
	if len(dir) == 0 {
		return base
	}
	if dir[0] == "/" && !(len(dir) == 1 && base == "") {
		// Outside home a path is read as written: "/ dev / null".
		return speakable(w.text)
	}
	if base == "" {
		return spokenDir(dir)
	}
	return base + " in " + spokenDir(dir)
}

// spokenDir says a folder given as path parts.
func spokenDir(parts []string) string {
	switch {
	case len(parts) == 0:
		return "this folder"
	case parts[0] == "~":
		return strings.Join(append([]string{"your home folder"}, parts[1:]...), ", ")
	case parts[0] == "/":
		return speakable("/" + strings.Join(parts[1:], "/"))
	}
	return strings.Join(parts, ", ")
}

// spokenFolder says the folder a command runs in (absolute, or in ~ form).
func spokenFolder(dir, home string) string {
	if strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") {
		if d, _, ok := placeOf(spokenWord{text: strings.TrimRight(dir, "/") + "/x"}, home); ok {
			return spokenDir(d)
		}
	}
	return speakable(dir)
}

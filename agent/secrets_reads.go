package agent

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hark-sh/hark/shell/plan"
)

// What a program reads besides its operands. The gate checks every
// operand and every --opt=value already; this is the rest: a file named
// inside an option (grep -fFILE, file -m FILE), a list file whose lines
// name what is read (xargs -a, --files0-from, file -f), a program's own
// text (awk's getline, sed's r and R), names that arrive on standard
// input, and links a program follows inside a folder. Where the target
// cannot be known, the gate asks.

// fileOptions are, per program, the short options (letters) and long
// options whose value is a file the program reads, and those whose value
// is a list naming the files it reads.
type fileOptions struct {
	short, listShort string
	long, listLong   []string
	// takesValue are other short options that take a value, so that a
	// letter inside it is not read as an option.
	takesValue string
	// colons says a file option's value is a colon-separated list of
	// files, each read (file -m, like $MAGIC).
	colons bool
	// dirShort and dirLong take a folder the program opens files in by
	// names from its own text (jq -L and import "config"): a private
	// location anywhere under the folder is read as well.
	dirShort string
	dirLong  []string
	// blob says a value may be REV:PATH (git config --blob), the path
	// being what is read.
	blob bool
}

var readOptions = map[string]fileOptions{
	"grep":    {short: "f", long: []string{"--file"}, takesValue: "eABCmd"},
	"egrep":   {short: "f", long: []string{"--file"}, takesValue: "eABCmd"},
	"fgrep":   {short: "f", long: []string{"--file"}, takesValue: "eABCmd"},
	"zgrep":   {short: "f", long: []string{"--file"}, takesValue: "eABCmd"},
	"rg":      {short: "f", long: []string{"--file", "--ignore-file"}, takesValue: "eABCmgtTM"},
	"file":    {short: "m", listShort: "f", long: []string{"--magic-file"}, listLong: []string{"--files-from"}, takesValue: "eFP", colons: true},
	"sed":     {short: "f", long: []string{"--file"}, takesValue: "el"},
	"jq":      {short: "f", long: []string{"--from-file", "--rawfile", "--slurpfile"}, dirShort: "L", dirLong: []string{"--library-path"}},
	"diff":    {long: []string{"--from-file", "--to-file", "--exclude-from"}, takesValue: "xXCUFIS", short: "X"},
	"tar":     {short: "X", listShort: "T", long: []string{"--exclude-from"}, listLong: []string{"--files-from"}, takesValue: "fCbHV"},
	"rsync":   {long: []string{"--exclude-from", "--include-from"}, listLong: []string{"--files-from"}},
	"xargs":   {listShort: "a", listLong: []string{"--arg-file"}, takesValue: "EIdLnPsJRSeil"},
	"du":      {short: "X", long: []string{"--exclude-from"}, listLong: []string{"--files0-from"}, takesValue: "Bdt"},
	"wc":      {listLong: []string{"--files0-from"}},
	"sort":    {listLong: []string{"--files0-from"}, long: []string{"--random-source"}, takesValue: "kotTS"},
	"shuf":    {long: []string{"--random-source"}, takesValue: "ino"},
	"cpio":    {short: "E", long: []string{"--pattern-file"}, takesValue: "CHIMORF"},
	"tree":    {listLong: []string{"--fromfile"}, takesValue: "LPIoH"},
	"stat":    {takesValue: "cf"},
	"md5sum":  {short: "c", long: []string{"--check"}},
	"sha1sum": {short: "c", long: []string{"--check"}}, "sha256sum": {short: "c", long: []string{"--check"}},
	"sha512sum": {short: "c", long: []string{"--check"}},
	// date prints each line of a -f file it cannot parse in its error.
	"date":    {short: "f", long: []string{"--file"}, takesValue: "dr"},
	"hexdump": {short: "f", long: []string{"--format-file"}, takesValue: "ens"},
	// git's options depend on its subcommand: these are looked up as
	// "git SUB" (gitCommand). config -f prints the file's settings,
	// blame --contents its lines; the others echo lines they reject.
	"git config":   {short: "f", long: []string{"--file", "--blob"}, blob: true},
	"git blame":    {short: "S", long: []string{"--contents", "--ignore-revs-file"}, takesValue: "L"},
	"git annotate": {short: "S", long: []string{"--contents", "--ignore-revs-file"}, takesValue: "L"},
	"git grep":     {short: "f", long: []string{"--pathspec-from-file"}, takesValue: "eABCm"},
	"git log":      {short: "O", long: []string{"--pathspec-from-file"}, takesValue: "SGLn"},
	"git diff":     {short: "O", long: []string{"--pathspec-from-file"}, takesValue: "SGL"},
	"git show":     {short: "O", long: []string{"--pathspec-from-file"}, takesValue: "SGL"},
	"git ls-files": {short: "X", long: []string{"--exclude-from", "--pathspec-from-file"}, takesValue: "x"},
}

// optionReads are the files prog reads through its options, the
// folders it reads anything under (dirs), and why its targets cannot be
// told (a list file names them), or "".
func optionReads(prog string, args []string) (reads, dirs []string, why string) {
	spec, ok := readOptions[prog]
	if prog == "git" {
		var sub string
		sub, args = gitCommand(args)
		spec, ok = readOptions["git "+sub]
	}
	if !ok {
		return nil, nil, ""
	}
	list := func(opt, v string) string {
		return prog + " " + opt + " reads the names of what it reads from " + orStdin(v) + ", which Hark does not follow"
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			return reads, dirs, why
		case strings.HasPrefix(a, "--"):
			name, v, has := strings.Cut(a, "=")
			for _, l := range spec.listLong {
				if longPrefix(name, l) {
					if !has {
						v = next()
					}
					reads = append(reads, v) // the list itself is read too
					if why == "" {
						why = list(l, v)
					}
				}
			}
			for _, l := range spec.long {
				if longPrefix(name, l) {
					if !has {
						v = next()
					}
					if l == "--rawfile" || l == "--slurpfile" {
						v = next() // NAME FILE
					}
					reads = append(reads, spec.split(v)...)
				}
			}
			for _, l := range spec.dirLong {
				if longPrefix(name, l) {
					if !has {
						v = next()
					}
					dirs = append(dirs, v)
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				c := a[j]
				val := a[j+1:]
				switch {
				case strings.IndexByte(spec.listShort, c) >= 0:
					if val == "" {
						val = next()
					}
					reads = append(reads, val)
					if why == "" {
						why = list("-"+string(c), val)
					}
				case strings.IndexByte(spec.short, c) >= 0:
					if val == "" {
						val = next()
					}
					reads = append(reads, spec.split(val)...)
				case strings.IndexByte(spec.dirShort, c) >= 0:
					if val == "" {
						val = next()
					}
					dirs = append(dirs, val)
				case strings.IndexByte(spec.takesValue, c) >= 0:
					if val == "" {
						next()
					}
				default:
					continue
				}
				break
			}
		}
	}
	return reads, dirs, why
}

// gitCommand is git's subcommand and its arguments, past git's own
// options.
func gitCommand(args []string) (sub string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" || a == "--super-prefix":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

// gitDir is the folder git -C moves to before it reads relative paths,
// from dir, or dir.
func gitDir(dir string, args []string) string {
	for i := 0; i+1 < len(args); i++ {
		switch a := args[i]; {
		case a == "-C":
			i++
			if filepath.IsAbs(args[i]) {
				dir = args[i]
			} else {
				dir = filepath.Join(dir, args[i])
			}
		case a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" || a == "--super-prefix":
			i++
		case !strings.HasPrefix(a, "-"):
			return dir
		}
	}
	return dir
}

// split is the files an option's value names: one, or each of a
// colon-separated list, where file prints a magic file's lines in its
// warnings whichever entry of the list it is.
func (spec fileOptions) split(v string) []string {
	switch {
	case spec.colons:
		return strings.Split(v, ":")
	case spec.blob:
		// REV:PATH names PATH in the repository, which may be home.
		if _, p, ok := strings.Cut(v, ":"); ok {
			return []string{v, p}
		}
	}
	return []string{v}
}

func orStdin(v string) string {
	if v == "" || v == "-" {
		return "its input"
	}
	return v
}

// longPrefix says whether name abbreviates the long option l, as
// getopt_long takes any unambiguous prefix (of at least three letters
// here, so that --f is not every --file-like option).
func longPrefix(name, l string) bool {
	return name == l || len(name) >= 4 && strings.HasPrefix(l, name)
}

// awkTextReads are the files an awk program's text reads (getline < "FILE"
// with a plain string) and why the rest cannot be told: a getline from a
// name the program builds, ARGV changed, or a file included.
func awkTextReads(program string) (reads []string, why string) {
	if strings.Contains(program, "ARGV") || strings.Contains(program, "ARGC") {
		return nil, "the awk program changes the files it reads (ARGV), which Hark does not follow"
	}
	if strings.Contains(program, "@include") || strings.Contains(program, "@load") {
		return nil, "the awk program includes a file Hark does not follow"
	}
	rest := program
	for {
		k := strings.Index(rest, "getline")
		if k < 0 {
			return reads, ""
		}
		rest = rest[k+len("getline"):]
		// getline [var] < file: the file is the next word after '<'.
		tail := strings.TrimLeft(rest, " \t")
		if j := strings.IndexAny(tail, "<;}\n)"); j < 0 || tail[j] != '<' {
			continue // getline from the input or a pipe
		} else {
			tail = strings.TrimLeft(tail[j+1:], " \t")
		}
		for strings.HasPrefix(tail, "(") {
			tail = strings.TrimLeft(tail[1:], " \t")
		}
		if !strings.HasPrefix(tail, `"`) {
			return nil, "the awk program reads a file whose name it builds (getline < …), which Hark cannot tell"
		}
		end := strings.IndexByte(tail[1:], '"')
		if end < 0 || strings.Contains(tail[1:end+1], `\`) {
			return nil, "the awk program reads a file whose name Hark cannot read"
		}
		name := tail[1 : end+1]
		after := strings.TrimLeft(tail[end+2:], " \t")
		if after != "" && strings.IndexByte(");}\n><|&", after[0]) < 0 {
			return nil, "the awk program reads a file whose name it builds (getline < …), which Hark cannot tell"
		}
		reads = append(reads, name)
	}
}

// awkProgram is the program text of an awk invocation: the -e/--source
// values, or the first operand; files are its operands after the program
// (var=value ones aside).
func awkProgram(args []string) (programs []string, files []string) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, v, has := strings.Cut(a, "=")
			switch {
			case longPrefix(name, "--source"):
				if !has && i+1 < len(args) {
					i++
					v = args[i]
				}
				programs = append(programs, v)
			case longPrefix(name, "--assign"), longPrefix(name, "--field-separator"):
				if !has {
					i++
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e':
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						v = args[i]
					}
					programs = append(programs, v)
				case 'v', 'F', 'f':
					if a[j+1:] == "" {
						i++
					}
				default:
					continue
				}
				break
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(programs) == 0 && len(rest) > 0 {
		programs, rest = append(programs, rest[0]), rest[1:]
	}
	return programs, rest
}

// sedScriptReads are the files a sed script reads (r and R commands) and
// why the rest cannot be told (e and the s///e flag run commands, which
// read anything). The scan follows sed's grammar: addresses, then one
// command, its arguments, and a separator.
func sedScriptReads(script string) (reads []string, why string) {
	s := script
	i := 0
	skipAddr := func() bool {
		for i < len(s) {
			switch c := s[i]; {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == '!' || c == ' ' || c == '\t':
				i++
			case c == '/' || c == '\\':
				d := byte('/')
				if c == '\\' {
					if i+1 >= len(s) {
						return false
					}
					i++
					d = s[i]
				}
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return false
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return true
			}
		}
		return true
	}
	toEOL := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		v := s[i : i+j]
		i += j
		return v
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', ';', '}':
			i++
			continue
		}
		if !skipAddr() {
			return nil, "Hark cannot read the sed script"
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		switch c {
		case '{', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q':
			if c == 'q' || c == 'Q' || c == 'l' {
				for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
					i++
				}
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			// text to the end of the line (and past escaped newlines)
			for i < len(s) {
				if s[i] == '\\' && i+1 < len(s) {
					i += 2
					continue
				}
				if s[i] == '\n' {
					break
				}
				i++
			}
		case 'r', 'R':
			reads = append(reads, strings.TrimLeft(toEOL(), " \t"))
		case 'w', 'W':
			toEOL()
		case 'e':
			return nil, "the sed script runs commands (e), which read what Hark cannot tell"
		case 's', 'y':
			if i >= len(s) {
				return nil, "Hark cannot read the sed script"
			}
			d := s[i]
			i++
			for part := 0; part < 2; part++ {
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return nil, "Hark cannot read the sed script"
				}
				i++
			}
			if c == 's' {
				for i < len(s) && strings.IndexByte("gpiImMe0123456789w", s[i]) >= 0 {
					switch s[i] {
					case 'e':
						return nil, "the sed script runs commands (s///e), which read what Hark cannot tell"
					case 'w':
						i = len(s) // the rest is a file name it writes
						continue
					}
					i++
				}
			}
		default:
			return nil, "Hark cannot read the sed script"
		}
	}
	return reads, ""
}

// sedScripts are the scripts of a sed invocation: -e/--expression values,
// or the first operand.
func sedScripts(args []string) []string {
	var out, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, v, has := strings.Cut(a, "=")
			switch {
			case longPrefix(name, "--expression"):
				if !has && i+1 < len(args) {
					i++
					v = args[i]
				}
				out = append(out, v)
			case longPrefix(name, "--line-length"):
				if !has {
					i++
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if a[j] == 'e' || a[j] == 'f' || a[j] == 'l' {
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						v = args[i]
					}
					if a[j] == 'e' {
						out = append(out, v)
					}
					break
				}
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(out) == 0 && len(rest) > 0 {
		out = append(out, rest[0])
	}
	return out
}

// programReads are the files prog's own text reads, and why they cannot
// be told.
func programReads(prog string, args []string) ([]string, string) {
	switch prog {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		progs, _ := awkProgram(args)
		var out []string
		for _, p := range progs {
			r, why := awkTextReads(p)
			if why != "" {
				return nil, why
			}
			out = append(out, r...)
		}
		return out, ""
	case "sed", "gsed":
		var out []string
		for _, sc := range sedScripts(args) {
			r, why := sedScriptReads(sc)
			if why != "" {
				return nil, why
			}
			out = append(out, r...)
		}
		return out, ""
	}
	return nil, ""
}

// startedBy is the program xargs or parallel starts with its names, and
// its arguments; "echo" when none is named.
func startedBy(prog string, args []string) (string, []string) {
	spec := readOptions["xargs"]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return path.Base(args[i+1]), args[i+2:]
			}
			return "echo", nil
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && prog == "xargs" && (longPrefix(a, "--arg-file") || longPrefix(a, "--delimiter") || longPrefix(a, "--max-args") || longPrefix(a, "--max-procs") || longPrefix(a, "--max-chars") || longPrefix(a, "--process-slot-var")) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(spec.listShort+"EIdLnPsJRS", a[j]) >= 0 {
					if a[j+1:] == "" {
						i++
					}
					break
				}
				if strings.IndexByte("eil", a[j]) >= 0 {
					break // an optional value, attached only
				}
			}
		default:
			if prog == "parallel" && (a == ":::" || a == "::::") {
				return "echo", nil
			}
			return path.Base(a), args[i+1:]
		}
	}
	return "echo", nil
}

// readsContent says whether prog, given args, shows what files hold.
func readsContent(prog string, args []string) bool {
	return !metaReaders[prog] || readsNames(prog, args)
}

// lineShape is what the gate needs of a line's structure: the statement
// of each simple command (for its redirections) and the command that
// feeds it through a pipe.
type lineShape struct {
	stmt map[*syntax.CallExpr]*syntax.Stmt
	feed map[*syntax.CallExpr]syntax.Command
}

func shapeOf(f *syntax.File) lineShape {
	sh := lineShape{stmt: map[*syntax.CallExpr]*syntax.Stmt{}, feed: map[*syntax.CallExpr]syntax.Command{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if c, ok := x.Cmd.(*syntax.CallExpr); ok {
				sh.stmt[c] = x
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				if c, ok := x.Y.Cmd.(*syntax.CallExpr); ok {
					sh.feed[c] = lastCommand(x.X)
				}
			}
		}
		return true
	})
	return sh
}

// lastCommand is the command of st whose output a pipe after st reads.
func lastCommand(st *syntax.Stmt) syntax.Command {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return lastCommand(b.Y)
	}
	return st.Cmd
}

// stdinFile is the file a statement's input redirection reads, or "";
// hasIn is true when it has one (a here-document or string included).
func stdinFile(st *syntax.Stmt) (w *syntax.Word, hasIn bool) {
	if st == nil {
		return nil, false
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut:
			if r.N == nil || r.N.Value == "0" {
				w, hasIn = r.Word, true
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				w, hasIn = nil, true
			}
		}
	}
	return w, hasIn
}

// namesFed says why the names a program like xargs reads on its input
// cannot be told, or "" when they come from a program that prints names
// only (find, ls, echo …; the gate judges those itself) or from nowhere.
func (g *secretGate) namesFed(sh lineShape, c plan.Call, p plan.Place, started string) string {
	if w, ok := stdinFile(sh.stmt[c.Expr]); ok {
		if w != nil {
			if e := g.env.Expand(p, []*syntax.Word{w}); e.Unknown == "" && len(e.Fields) == 1 && e.Fields[0].Value == "/dev/null" {
				return ""
			}
		}
		return started + " reads files named in what " + c.Name() + " reads on its input, which Hark does not follow"
	}
	feed, ok := sh.feed[c.Expr]
	if !ok {
		return ""
	}
	if fc, ok := feed.(*syntax.CallExpr); ok && len(fc.Args) > 0 {
		if n := path.Base(fc.Args[0].Lit()); n != "" && metaReaders[n] {
			var args []string
			for _, w := range fc.Args[1:] {
				args = append(args, w.Lit())
			}
			if !readsNames(n, args) && !(n == "find" && findRuns(args)) {
				return ""
			}
		}
	}
	return started + " reads files named in the output of another program, which Hark cannot tell"
}

// maxLinkScan bounds the entries the gate looks at under a folder whose
// links a program follows; past it the folder's reads cannot be told.
const maxLinkScan = 5000

// linkInto is the private location that a link under root leads into, as
// a program that follows links would read it (dirs: links to folders are
// entered too, as find -L and grep -R do; shallow: only root's own
// entries, as a bare ls names them); unknown says the folder was too
// large to look through.
func (g *secretGate) linkInto(root string, dirs, shallow bool) (hit string, unknown bool) {
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxLinkScan {
			unknown = true
			return filepath.SkipAll
		}
		if d.Type()&fs.ModeSymlink == 0 {
			if shallow && d.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil
		}
		l := strings.ToLower(real)
		for _, q := range g.private {
			if l == q || strings.HasPrefix(l, q+"/") || dirs && (l == "/" || strings.HasPrefix(q, l+"/")) {
				hit = g.describe(q) + " through the link " + tilde(p, g.home)
				return filepath.SkipAll
			}
		}
		return nil
	})
	return hit, unknown
}

// followsLinks says whether prog, reading folders, reads what links in
// them point to: all reads find starts (-exec cat reads a link to a
// file), and, with dirs, links to folders entered as well.
func followsLinks(prog string, args []string) (follows, dirs bool) {
	switch prog {
	case "find":
		for _, a := range args {
			if a == "-L" || a == "-follow" {
				return true, true
			}
		}
		return findRuns(args), false
	case "grep", "egrep", "fgrep", "zgrep", "ugrep", "ggrep":
		for _, a := range args {
			if a == "--dereference-recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "R") {
				return true, true
			}
		}
	case "rg":
		for _, a := range args {
			if a == "--follow" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "L") {
				return true, true
			}
		}
	case "tar", "bsdtar", "gtar":
		for _, a := range args {
			if a == "--dereference" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "h") {
				return true, true
			}
		}
	case "diff":
		// diff -r follows links unless told not to, and -N prints a
		// whole file that has no match on the other side.
		if !recursive(prog, args) || slicesContains(args, "--no-dereference") {
			return false, false
		}
		return true, true
	}
	return false, false
}

// findStarts are the folders find starts from: its operands before the
// expression, or the folder it runs in.
func findStarts(args []string) []string {
	var out []string
	for _, a := range args {
		switch {
		case a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-O"):
			continue
		case strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "\\(":
			if len(out) == 0 {
				return []string{"."}
			}
			return out
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return []string{"."}
	}
	return out
}

// extraReads says why a call, at p and with its words expanded, reads a
// private location, or cannot be told not to, by the means above.
func (g *secretGate) extraReads(c plan.Call, p plan.Place, prog string, args []string) string {
	reads, dirs, why := optionReads(prog, args)
	if prog == "xargs" || prog == "parallel" {
		if started, sargs := startedBy(prog, args); !readsContent(started, sargs) {
			why = "" // it prints the names, the list's own lines
		}
	}
	if why == "" {
		var more []string
		more, why = programReads(prog, args)
		reads = append(reads, more...)
	}
	if why != "" {
		return why + ", and it may be your credentials or keys"
	}
	dir := p.Dir
	if prog == "git" {
		dir = gitDir(dir, args)
	}
	for i, t := range append(reads, dirs...) {
		if t == "~" || strings.HasPrefix(t, "~/") {
			t = g.home + t[1:]
		}
		hit, covers := g.check(dir, t)
		switch {
		case hit != "" && covers == "":
			return prog + " reads " + hit
		case covers != "" && i >= len(reads):
			return prog + " reads files under " + covers + " by names in its program, " + hit + " among what it can reach"
		}
	}
	if prog == "xargs" || prog == "parallel" {
		started, sargs := startedBy(prog, args)
		if readsContent(started, sargs) {
			if why := g.namesFed(g.shape, c, p, started); why != "" {
				return why + ", and they may be your credentials or keys"
			}
			if fc, ok := g.shape.feed[c.Expr].(*syntax.CallExpr); ok {
				if feed, ok := g.calls[fc]; ok {
					switch n := path.Base(feed.Name()); {
					case n == "find":
						if why := g.followed(feed, "find", true); why != "" {
							return why
						}
					case listers[n]:
						if why := g.listed(feed, n, started); why != "" {
							return why
						}
					}
				}
			}
		}
	}
	if follows, _ := followsLinks(prog, args); follows {
		return g.followedAt(p, prog, args)
	}
	return ""
}

// listers print the names of what a folder holds, bare: a program fed
// those names opens each as it is, a link into a private location
// included, though the names themselves say nothing of where they lead.
var listers = map[string]bool{
	"ls": true, "dir": true, "vdir": true, "eza": true, "exa": true, "lsd": true, "tree": true, "du": true,
}

// listsDeep says whether a lister names what lies below the folders it
// lists, not only their own entries.
func listsDeep(prog string, args []string) bool {
	if prog == "tree" || prog == "du" {
		return true
	}
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--recursive" || a == "--recurse" || a == "--tree":
			return true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "RT"):
			return true
		}
	}
	return false
}

// listed says why the names a lister prints, read by started, may lead
// into a private location: a folder it lists holds a link into one.
func (g *secretGate) listed(c plan.Call, prog, started string) string {
	for _, p := range c.Places {
		e := c.Args(g.env, p)
		if e.Unknown != "" || len(e.Fields) == 0 {
			continue
		}
		var args, roots []string
		opts := true
		for _, f := range e.Fields[1:] {
			a := f.Value
			args = append(args, a)
			switch {
			case opts && a == "--":
				opts = false
			case opts && strings.HasPrefix(a, "-") && a != "-":
			default:
				roots = append(roots, a)
			}
		}
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, r := range roots {
			real, ok := g.folderAt(p, r)
			if !ok {
				continue
			}
			if hit, covers := g.check(p.Dir, r); hit != "" {
				if covers == "" {
					return started + " reads what " + prog + " lists: " + hit
				}
				return started + " reads what " + prog + " lists in " + covers + ", which holds " + hit
			}
			hit, unknown := g.linkInto(real, true, !listsDeep(prog, args))
			switch {
			case hit != "":
				return started + " reads what " + prog + " lists: " + hit
			case unknown:
				return started + " reads the names " + prog + " lists under " + tilde(real, g.home) + ", a folder too large for Hark to look through for links to your credentials or keys"
			}
		}
	}
	return ""
}

// followed is followedAt for a call at each of its places; asFeed says
// the names find prints are read by the program they are fed to.
func (g *secretGate) followed(c plan.Call, prog string, asFeed bool) string {
	for _, p := range c.Places {
		e := c.Args(g.env, p)
		if e.Unknown != "" || len(e.Fields) == 0 {
			continue
		}
		var args []string
		for _, f := range e.Fields[1:] {
			args = append(args, f.Value)
		}
		if asFeed && !slicesContains(args, "-L") && !slicesContains(args, "-follow") {
			args = append(args, "-exec") // the names are read as -exec would read them
		}
		if why := g.followedAt(p, prog, args); why != "" {
			return why
		}
	}
	return ""
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// folderAt resolves r, named in place p, to the folder on disk it names;
// false when it cannot be resolved or is no folder.
func (g *secretGate) folderAt(p plan.Place, r string) (string, bool) {
	real, why := g.env.Resolve(p.Dir, r)
	if why != "" || real == "" {
		return "", false
	}
	fi, err := (plan.OS{}).Stat(real)
	return real, err == nil && fi.IsDir()
}

// followedAt says why prog, following links under the folders it reads,
// may read a private location, or "".
func (g *secretGate) followedAt(p plan.Place, prog string, args []string) string {
	_, dirs := followsLinks(prog, args)
	var roots []string
	if prog == "find" {
		roots = findStarts(args)
	} else {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				roots = append(roots, a)
			} else if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
				roots = append(roots, v) // diff --from-file=DIR
			}
		}
		roots = append(roots, ".")
	}
	for _, r := range roots {
		real, ok := g.folderAt(p, r)
		if !ok {
			continue
		}
		hit, unknown := g.linkInto(real, dirs, false)
		switch {
		case hit != "":
			return prog + " reads " + hit
		case unknown:
			return prog + " follows links under " + tilde(real, g.home) + ", a folder too large for Hark to look through, and they may lead to your credentials or keys"
		}
	}
	return ""
}

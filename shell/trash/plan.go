package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Plan is what Move to Trash would do in place of one deletion command.
// Only plain deletions qualify: one rm, rmdir or find … -delete, nothing
// else in the command line, no redirections, no variables or command
// substitutions, and every target strictly inside the home folder.
type Plan struct {
	Program string   // "rm", "rmdir" or "find"
	Paths   []string // rm and rmdir: the targets, absolute, globs expanded
	// Find is, for find … -delete, the same find with every -delete
	// replaced by -print (and -depth, which -delete implies): a read-only
	// command that lists exactly what the deletion would remove, one path
	// a line. The caller runs it sandboxed and passes its output to
	// FindPaths.
	Find      string
	Recursive bool // rm -r: folders go with everything in them
	EmptyDirs bool // rm -d, rmdir: empty folders go
	Force     bool // rm -f: a missing target is no error
	wd, home  string
	starts    []string // find's starting folders, absolute
}

// PlanFor decides whether command, run in folder wd ("~" or absolute),
// is a plain deletion under home that the Trash can stand in for. The
// error says why not; it is for logs and tests, not for the user.
func PlanFor(command, wd, home string) (Plan, error) {
	home = filepath.Clean(home)
	if wd == "" || wd == "~" {
		wd = home
	} else if strings.HasPrefix(wd, "~/") {
		wd = filepath.Join(home, wd[2:])
	}
	if !filepath.IsAbs(wd) {
		return Plan{}, fmt.Errorf("working folder %q is not absolute", wd)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return Plan{}, err
	}
	if len(f.Stmts) != 1 {
		return Plan{}, errors.New("not a single command")
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return Plan{}, errors.New("redirections or job control")
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return Plan{}, errors.New("not a plain command")
	}
	for _, w := range call.Args {
		if err := plainWord(w); err != nil {
			return Plan{}, err
		}
	}
	name := call.Args[0].Lit() // a quoted or escaped name is not the plain program
	cfg := &expand.Config{
		Env:      expand.ListEnviron("HOME="+home, "PWD="+wd),
		ReadDir2: guardedReadDir(home),
	}
	p := Plan{Program: name, wd: wd, home: home}
	switch name {
	case "rm", "rmdir":
		args, err := fields(cfg, call.Args[1:])
		if err != nil {
			return Plan{}, err
		}
		if err := p.operands(args); err != nil {
			return Plan{}, err
		}
	case "find":
		if err := p.find(cfg, call.Args[1:]); err != nil {
			return Plan{}, err
		}
	default:
		return Plan{}, fmt.Errorf("%q is not rm, rmdir or find", name)
	}
	return p, nil
}

// plainWord refuses every part of a word whose value is only known when
// the shell runs it.
func plainWord(w *syntax.Word) error {
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(x.Value, "~") && !(x.Value == "~" || strings.HasPrefix(x.Value, "~/")) {
				return fmt.Errorf("%s names another user's home", x.Value)
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return errors.New("an expansion inside double quotes")
				}
			}
		default:
			return fmt.Errorf("a %T is only known at run time", part)
		}
	}
	return nil
}

// Bounds on expanding one command's words: a pattern may not make the
// question "may this go to the Trash?" read the whole disk or build a
// million names.
const (
	maxFields  = 10000
	maxDirRead = 2000
)

// guardedReadDir lets globs read folders inside home (and home's parents,
// which globbing checks on the way down), at most maxDirRead of them.
func guardedReadDir(home string) func(string) ([]fs.DirEntry, error) {
	reads := 0
	return func(dir string) ([]fs.DirEntry, error) {
		dir = filepath.Clean(dir)
		if dir != home && !within(dir, home) && !within(home, dir) {
			return nil, fmt.Errorf("a pattern reaches %s, outside the home folder", dir)
		}
		if reads++; reads > maxDirRead {
			return nil, fmt.Errorf("patterns read more than %d folders", maxDirRead)
		}
		return os.ReadDir(dir)
	}
}

// fields expands words as the shell would, up to maxFields names.
func fields(cfg *expand.Config, words []*syntax.Word) ([]string, error) {
	var out []string
	for f, err := range expand.FieldsSeq(cfg, words...) {
		if err != nil {
			return nil, err
		}
		if len(out) == maxFields {
			return nil, fmt.Errorf("more than %d names", maxFields)
		}
		out = append(out, f)
	}
	return out, nil
}

// rmFlags and rmdirFlags are the options that change nothing but how the
// deletion talks or which kinds of file it accepts.
var (
	rmShort = "fiIrRdvx"
	rmLong  = map[string]bool{"--force": true, "--interactive": true, "--recursive": true, "--dir": true,
		"--verbose": true, "--one-file-system": true, "--preserve-root": true}
	rmdirLong = map[string]bool{"--verbose": true}
)

func (p *Plan) operands(args []string) error {
	ended := false
	for _, a := range args {
		switch {
		case !ended && a == "--":
			ended = true
		case !ended && strings.HasPrefix(a, "--"):
			flag, _, _ := strings.Cut(a, "=")
			if p.Program == "rm" && rmLong[flag] {
				p.Recursive = p.Recursive || flag == "--recursive"
				p.EmptyDirs = p.EmptyDirs || flag == "--dir"
				p.Force = p.Force || flag == "--force"
				continue
			}
			if p.Program == "rmdir" && rmdirLong[flag] {
				continue
			}
			return fmt.Errorf("%s %s is not a plain deletion", p.Program, a)
		case !ended && strings.HasPrefix(a, "-") && a != "-":
			for _, c := range a[1:] {
				if p.Program == "rmdir" && c != 'v' || p.Program == "rm" && !strings.ContainsRune(rmShort, c) {
					return fmt.Errorf("%s -%c is not a plain deletion", p.Program, c)
				}
				p.Recursive = p.Recursive || c == 'r' || c == 'R'
				p.EmptyDirs = p.EmptyDirs || c == 'd'
				p.Force = p.Force || c == 'f'
			}
		default:
			abs, err := p.under(a)
			if err != nil {
				return err
			}
			p.Paths = append(p.Paths, abs)
		}
	}
	if p.Program == "rmdir" {
		p.EmptyDirs = true
	}
	if len(p.Paths) == 0 {
		return errors.New("no targets")
	}
	return nil
}

// under resolves a target against the working folder and requires it to
// be strictly inside home.
func (p *Plan) under(a string) (string, error) {
	abs := a
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.wd, abs)
	}
	abs = filepath.Clean(abs)
	if !within(abs, p.home) {
		return "", fmt.Errorf("%s is not inside the home folder", a)
	}
	return abs, nil
}

// findTests are the find primaries that only select; with the count of
// arguments each takes. Anything else (other actions, -exec, -fprint…)
// keeps the command out of the Trash.
var findTests = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1,
	"-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-size": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1,
	"-perm": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-maxdepth": 1, "-mindepth": 1, "-regextype": 1,
	"-empty": 0, "-nouser": 0, "-nogroup": 0, "-readable": 0, "-writable": 0, "-executable": 0,
	"-depth": 0, "-xdev": 0, "-mount": 0, "-prune": 0, "-daystart": 0, "-noleaf": 0, "-true": 0, "-false": 0,
	"-not": 0, "!": 0, "(": 0, ")": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0,
}

func (p *Plan) find(cfg *expand.Config, words []*syntax.Word) error {
	// Options, starting points and primaries are all literal words, so
	// their expansion is quote removal (and globs in starting points).
	args, err := fields(cfg, words)
	if err != nil {
		return err
	}
	i := 0
	var opts []string
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P") {
		opts = append(opts, args[i])
		i++
	}
	var starts []string
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		abs, err := p.findStart(args[i])
		if err != nil {
			return err
		}
		starts = append(starts, abs)
		i++
	}
	if len(starts) == 0 {
		return errors.New("find without a starting folder")
	}
	expr := []string{}
	deletes := false
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-delete" {
			deletes = true
			expr = append(expr, "-print")
			continue
		}
		n, ok := findTests[a]
		if !ok || i+n >= len(args) {
			return fmt.Errorf("find %s is not a plain deletion", a)
		}
		expr = append(expr, args[i:i+n+1]...)
		i += n
	}
	if !deletes {
		return errors.New("find without -delete deletes nothing")
	}
	words2 := append(append(append([]string{"find"}, opts...), starts...), "-depth")
	words2 = append(words2, expr...)
	quoted := make([]string, len(words2))
	for k, w := range words2 {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return err
		}
		quoted[k] = q
	}
	p.Find = strings.Join(quoted, " ")
	p.starts = starts
	return nil
}

// findStart resolves a starting folder: home itself is allowed (what find
// lists under it is checked one by one), anything outside is not.
func (p *Plan) findStart(a string) (string, error) {
	abs := a
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.wd, abs)
	}
	abs = filepath.Clean(abs)
	if abs != p.home && !within(abs, p.home) {
		return "", fmt.Errorf("%s is not inside the home folder", a)
	}
	return abs, nil
}

// FindPaths turns the output of Plan.Find into the paths to trash. Every
// path must be strictly inside home and exist under exactly the name
// listed: a name the listing cannot carry intact (a line break or a
// control character in it) makes the whole set an error rather than a
// silent gap. A folder goes as a whole only when find listed everything
// in it (as find -delete would then empty and remove it); otherwise it
// stays, as find could not remove it, and only its listed contents go.
func (p Plan) FindPaths(out string) ([]string, error) {
	set := map[string]bool{}
	var paths []string
	for _, s := range strings.Split(out, "\n") {
		if s == "" {
			continue
		}
		if !p.fromStart(s) {
			return nil, fmt.Errorf("find listed %q, which is not under %s; a file name with a line break cannot be moved to the Trash, use Delete", s, strings.Join(p.starts, ", "))
		}
		abs, err := p.under(s)
		if err != nil {
			return nil, fmt.Errorf("find would delete %s, which is not inside the home folder", s)
		}
		if _, err := os.Lstat(abs); err != nil {
			return nil, fmt.Errorf("find listed %q, which Hark cannot find again (a name with control characters?); use Delete", s)
		}
		if !set[abs] {
			set[abs] = true
			paths = append(paths, abs)
		}
	}
	var keep []string
	for _, q := range paths {
		fi, err := os.Lstat(q)
		if err == nil && fi.IsDir() && !allListed(q, set) {
			continue
		}
		keep = append(keep, q)
	}
	return keep, nil
}

// fromStart says whether a listed path is one of find's starting folders
// or inside one.
func (p Plan) fromStart(s string) bool {
	for _, st := range p.starts {
		if s == st || within(filepath.Clean(s), st) {
			return true
		}
	}
	return false
}

// allListed says whether every entry below dir is in set.
func allListed(dir string, set map[string]bool) bool {
	all := true
	filepath.WalkDir(dir, func(q string, _ fs.DirEntry, err error) error {
		if err != nil || (q != dir && !set[q]) {
			all = false
			return filepath.SkipAll
		}
		return nil
	})
	return all
}

// Check sorts the targets the way the deletion itself would: a missing
// target is an error unless -f; a folder needs -r, or -d / rmdir and to be
// empty. It returns the paths to move and the problems with the rest.
func (p Plan) Check(paths []string) (ok []string, problems []error) {
	for _, q := range paths {
		fi, err := os.Lstat(q)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !p.Force {
				problems = append(problems, fmt.Errorf("%s: no such file or folder", q))
			}
		case err != nil:
			problems = append(problems, fmt.Errorf("%s: %w", q, unwrapPath(err)))
		case p.Program == "find" || !fi.IsDir() && p.Program == "rm":
			ok = append(ok, q)
		case !fi.IsDir(): // rmdir on a file
			problems = append(problems, fmt.Errorf("%s: not a folder, so rmdir would not remove it", q))
		case p.Recursive:
			ok = append(ok, q)
		case p.EmptyDirs:
			if entries, err := os.ReadDir(q); err != nil || len(entries) > 0 {
				problems = append(problems, fmt.Errorf("%s: the folder is not empty, so %s would not remove it", q, p.Program))
				continue
			}
			ok = append(ok, q)
		default:
			problems = append(problems, fmt.Errorf("%s: is a folder, so rm without -r would not remove it", q))
		}
	}
	return ok, problems
}

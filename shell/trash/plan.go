package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// Plan is what Move to Trash would do in place of one deletion command.
// Only plain deletions qualify: one rm, rmdir or find … -delete, nothing
// else in the command line, no redirections, every word's value known
// before it runs (shell/plan's reading), and every target strictly inside
// the home folder.
type Plan struct {
	Program string // "rm", "rmdir" or "find"
	// Paths are rm's and rmdir's targets in the order given: absolute, the
	// folder part resolved through links as the kernel would (so a path
	// through a link names where it lands), the last name as written,
	// without its trailing slashes.
	Paths []string
	// Find is, for find … -delete, the same find with every -delete
	// replaced by -print (and -depth, which -delete implies): a read-only
	// command that lists exactly what the deletion would remove, one path
	// a line. The caller runs it sandboxed and passes its output to
	// FindPaths.
	Find      string
	Recursive bool // rm -r: folders go with everything in them
	EmptyDirs bool // rm -d, rmdir: empty folders go
	Force     bool // rm -f: a missing target is no error
	// preserveAll is rm --preserve-root=all: a folder on another file
	// system than its parent is skipped.
	preserveAll bool
	ops         []op // per path: how it was written
	wd, home    string
	realHome    string
	starts      []string // find's starting folders, absolute
}

// ErrNoStandIn: the deletion would do something moving its targets to the
// Trash does not (rm -r link/ empties the folder the link points to and
// keeps the link), so nothing is moved.
var ErrNoStandIn = errors.New("Move to Trash cannot stand in for this deletion")

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
	script, err := plan.Parse(command)
	if err != nil {
		return Plan{}, err
	}
	if len(script.File.Stmts) != 1 {
		return Plan{}, errors.New("not a single command")
	}
	st := script.File.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return Plan{}, errors.New("redirections or job control")
	}
	if c, ok := st.Cmd.(*syntax.CallExpr); !ok || len(c.Assigns) > 0 || len(c.Args) == 0 {
		return Plan{}, errors.New("not a plain command")
	}
	realHome := home
	if r, err := filepath.EvalSymlinks(home); err == nil {
		realHome = r
	}
	guard := &homeFS{home: home, realHome: realHome}
	env := plan.Env{Home: home, Dir: wd, Disk: true, FS: guard}
	calls := script.Calls(env)
	if len(calls) != 1 {
		return Plan{}, errors.New("not a plain command")
	}
	call := calls[0]
	if len(call.Places) != 1 || call.Places[0].Unknown != "" || !call.Sure {
		why := call.Unknown()
		if why == "" {
			why = "the command may run in more than one way"
		}
		return Plan{}, errors.New(why)
	}
	x := call.Args(env, call.Places[0])
	switch {
	case guard.refused != "":
		return Plan{}, fmt.Errorf("a pattern reads %s, outside the home folder", guard.refused)
	case x.Unknown != "":
		return Plan{}, fmt.Errorf("the words are only known at run time: %s", x.Unknown)
	case x.NoRun != "":
		return Plan{}, fmt.Errorf("bash would not run it: %s", x.NoRun)
	}
	// The name must be the plain word rm, rmdir or find: a quoted or
	// escaped one is not the program the reading here is about.
	name := call.Name()
	if len(x.Fields) == 0 || x.Fields[0].Value != name || x.Fields[0].Glob {
		return Plan{}, fmt.Errorf("%q is not rm, rmdir or find", name)
	}
	args := make([]string, 0, len(x.Fields)-1)
	for _, f := range x.Fields[1:] {
		args = append(args, f.Value)
	}
	p := Plan{Program: name, wd: filepath.Clean(wd), home: home, realHome: realHome}
	switch name {
	case "rm":
		err = p.rmArgs(args)
	case "rmdir":
		err = p.rmdirArgs(args)
	case "find":
		err = p.find(args)
	default:
		return Plan{}, fmt.Errorf("%q is not rm, rmdir or find", name)
	}
	if err != nil {
		return Plan{}, err
	}
	return p, nil
}

// homeFS is the file system patterns are matched through: folders inside
// home only, so that asking "may this go to the Trash?" never lists what
// lies outside it. A refused read makes the whole plan a refusal rather
// than a pattern that silently matched nothing.
type homeFS struct {
	plan.OS
	home, realHome string
	refused        string
}

func (h *homeFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if real != h.realHome && !within(real, h.realHome) {
		if h.refused == "" {
			h.refused = dir
		}
		return nil, fmt.Errorf("%s is outside the home folder", dir)
	}
	return os.ReadDir(real)
}

// longOpt is one long option of a GNU program, as getopt_long reads it.
type longOpt struct {
	name   string
	id     string // options with the same id are one option
	optArg bool   // takes an optional =VALUE
}

var (
	rmLong = []longOpt{
		{name: "dir", id: "d"}, {name: "force", id: "f"}, {name: "interactive", id: "interactive", optArg: true},
		{name: "one-file-system", id: "one-file-system"}, {name: "no-preserve-root", id: "no-preserve-root"},
		{name: "preserve-root", id: "preserve-root", optArg: true}, {name: "-presume-input-tty", id: "presume-input-tty"},
		{name: "recursive", id: "r"}, {name: "verbose", id: "v"}, {name: "help", id: "help"}, {name: "version", id: "version"},
	}
	rmdirLong = []longOpt{
		{name: "ignore-fail-on-non-empty", id: "ignore-fail-on-non-empty"}, {name: "parents", id: "p"},
		{name: "verbose", id: "v"}, {name: "help", id: "help"}, {name: "version", id: "version"},
	}
)

// long finds the option "--s" names the way getopt_long does: an exact
// name, else the one option the text abbreviates; two different options
// it could abbreviate are an error, as is a value for an option without
// one.
func long(prog string, opts []longOpt, s string) (o longOpt, val string, hasVal bool, err error) {
	name, val, hasVal := strings.Cut(s, "=")
	var found []longOpt
	for _, o := range opts {
		if o.name == name {
			found = []longOpt{o}
			break
		}
		if strings.HasPrefix(o.name, name) && (len(found) == 0 || found[0].id != o.id) {
			found = append(found, o)
		}
	}
	switch {
	case len(found) == 0:
		return o, "", false, fmt.Errorf("%s does not know --%s, so it would stop with an error", prog, name)
	case len(found) > 1:
		return o, "", false, fmt.Errorf("%s --%s is ambiguous, so it would stop with an error", prog, name)
	case hasVal && !found[0].optArg:
		return o, "", false, fmt.Errorf("%s --%s takes no value, so it would stop with an error", prog, found[0].name)
	}
	return found[0], val, hasVal, nil
}

// whenWords are --interactive's values, each with what it means; like
// rm, a value may be abbreviated while it names one meaning.
var whenWords = []struct{ word, mode string }{
	{"never", "never"}, {"no", "never"}, {"none", "never"},
	{"once", "once"}, {"always", "always"}, {"yes", "always"},
}

func interactiveWhen(v string) (string, error) {
	mode := ""
	for _, w := range whenWords {
		if w.word == v {
			return w.mode, nil
		}
		if strings.HasPrefix(w.word, v) {
			if mode != "" && mode != w.mode {
				return "", fmt.Errorf("rm --interactive=%s is ambiguous, so it would stop with an error", v)
			}
			mode = w.mode
		}
	}
	if mode == "" {
		return "", fmt.Errorf("rm --interactive=%s is not a value rm knows", v)
	}
	return mode, nil
}

// optionLike is what rm reads as an option (before --).
func optionLike(a string) bool { return strings.HasPrefix(a, "-") && a != "-" }

// rmArgs reads rm's arguments as GNU rm does; where GNU and BSD rm (macOS)
// would read them differently, or rm would ask or stop, it refuses.
func (p *Plan) rmArgs(args []string) error {
	interactive := "" // the last of -f, -i, -I, --interactive wins
	ended, operands := false, 0
	for _, a := range args {
		if ended || !optionLike(a) {
			if err := p.operand(a); err != nil {
				return err
			}
			operands++
			continue
		}
		if operands > 0 {
			// GNU rm takes it as an option, BSD rm as a name to remove.
			return fmt.Errorf("rm %s comes after a target, which GNU and BSD rm read differently", a)
		}
		if a == "--" {
			ended = true
			continue
		}
		if s, ok := strings.CutPrefix(a, "--"); ok {
			o, val, hasVal, err := long("rm", rmLong, s)
			if err != nil {
				return err
			}
			switch o.id {
			case "d":
				p.EmptyDirs = true
			case "f":
				p.Force, interactive = true, "never"
			case "r":
				p.Recursive = true
			case "v":
			case "interactive":
				mode := "always"
				if hasVal {
					if mode, err = interactiveWhen(val); err != nil {
						return err
					}
				}
				if mode != "never" {
					p.Force = false
				}
				interactive = mode
			case "preserve-root":
				if hasVal && val != "all" {
					return fmt.Errorf("rm --preserve-root=%s is not a value rm knows", val)
				}
				p.preserveAll = p.preserveAll || hasVal
			default:
				return fmt.Errorf("rm --%s is not a plain deletion", o.name)
			}
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 'd':
				p.EmptyDirs = true
			case 'f':
				p.Force, interactive = true, "never"
			case 'i':
				p.Force, interactive = false, "always"
			case 'I':
				p.Force, interactive = false, "once"
			case 'r', 'R':
				p.Recursive = true
			case 'v':
			default:
				return fmt.Errorf("rm -%c is not a plain deletion", c)
			}
		}
	}
	if operands == 0 {
		return errors.New("no targets")
	}
	switch {
	case interactive == "always":
		return errors.New("rm -i asks before each removal, and no one can answer it")
	case interactive == "once" && (p.Recursive || operands > 3):
		return errors.New("rm -I asks once before removing, and no one can answer it")
	}
	return nil
}

// rmdirArgs reads rmdir's arguments; only -v is a plain deletion.
func (p *Plan) rmdirArgs(args []string) error {
	p.EmptyDirs = true
	ended, operands := false, 0
	for _, a := range args {
		switch {
		case ended || !optionLike(a):
			if err := p.operand(a); err != nil {
				return err
			}
			operands++
			continue
		case operands > 0:
			return fmt.Errorf("rmdir %s comes after a target, which GNU and BSD rmdir read differently", a)
		case a == "--":
			ended = true
		case strings.HasPrefix(a, "--"):
			o, _, _, err := long("rmdir", rmdirLong, a[2:])
			if err != nil {
				return err
			}
			if o.id != "v" {
				return fmt.Errorf("rmdir --%s is not a plain deletion", o.name)
			}
		default:
			for _, c := range a[1:] {
				if c != 'v' {
					return fmt.Errorf("rmdir -%c is not a plain deletion", c)
				}
			}
		}
	}
	if operands == 0 {
		return errors.New("no targets")
	}
	return nil
}

// operand records one target as the program receives it. rm refuses a
// last name of . or .. (rmdir fails on them), so the plan does too; the
// rest of the checks depend on the disk and wait for Check.
func (p *Plan) operand(a string) error {
	if a == "" {
		return fmt.Errorf("%s '' names nothing", p.Program)
	}
	s := strings.TrimRight(a, "/")
	if s == "" {
		return fmt.Errorf("%s is not inside the home folder", a)
	}
	i := strings.LastIndex(s, "/")
	dir, base := s[:i+1], s[i+1:]
	if base == "." || base == ".." {
		return fmt.Errorf("%s refuses to remove '.' or '..': %s", p.Program, a)
	}
	q, err := p.resolve(dir, base)
	if err != nil {
		return fmt.Errorf("%s: %w", a, err)
	}
	// The kernel's own reading of the folder part, to hold the model to:
	// where it finds no folder the target is missing, whatever the
	// spelling cleans to (a .. after a dangling link); where it finds
	// another folder than the model, nothing is offered.
	raw := dir
	if !filepath.IsAbs(raw) {
		raw = p.wd + "/" + dir
	}
	o := op{slash: len(s) < len(a)}
	if fi, err := os.Stat(raw); err != nil {
		o.dirErr = err
	} else if fi2, err := os.Stat(filepath.Dir(q)); err != nil || !os.SameFile(fi, fi2) || !fi.IsDir() {
		return fmt.Errorf("%s: the folder it is in could not be told for sure", a)
	}
	p.Paths = append(p.Paths, q)
	p.ops = append(p.ops, o)
	return nil
}

// op is how one target was written.
type op struct {
	slash  bool  // with a trailing slash: the kernel follows a final link
	dirErr error // the folder part names no folder (ENOENT, ENOTDIR)
}

// resolve is the path the kernel reaches for dir/base run in the working
// folder: dir through its links (a .. after a link climbs from where the
// link lands), base as written. It must lie strictly inside home.
func (p *Plan) resolve(dir, base string) (string, error) {
	if dir == "" {
		dir = "."
	}
	parent, why := plan.Env{}.Resolve(p.wd, dir)
	if why != "" {
		return "", errors.New(why)
	}
	q := filepath.Join(parent, base)
	if !within(q, p.realHome) {
		return "", fmt.Errorf("%s is not inside the home folder", q)
	}
	return q, nil
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

func (p *Plan) find(args []string) error {
	split := plan.ReadFind(args)
	var opts []string
	for _, k := range split.Head {
		if a := args[k]; a != "-H" && a != "-L" && a != "-P" {
			return fmt.Errorf("find %s is not a plain deletion", a)
		}
		opts = append(opts, args[k])
	}
	var starts []string
	for _, k := range split.Starts {
		abs, err := p.findStart(args[k])
		if err != nil {
			return err
		}
		starts = append(starts, abs)
	}
	i := split.Expr
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
// path must be strictly inside home, also once its folders' links are
// followed, and exist under exactly the name listed: a name the listing
// cannot carry intact (a line break or a control character in it) makes
// the whole set an error rather than a silent gap. A folder goes as a
// whole only when find listed everything in it (as find -delete would then
// empty and remove it); otherwise it stays, as find could not remove it,
// and only its listed contents go. The paths returned are where the
// kernel finds them (folders' links followed).
func (p Plan) FindPaths(out string) ([]string, error) {
	set := map[string]bool{}
	var paths []string
	real := map[string]string{}
	for _, s := range strings.Split(out, "\n") {
		if s == "" {
			continue
		}
		if !p.fromStart(s) {
			return nil, fmt.Errorf("find listed %q, which is not under %s; a file name with a line break cannot be moved to the Trash, use Delete", s, strings.Join(p.starts, ", "))
		}
		abs := filepath.Clean(s)
		if !within(abs, p.home) {
			return nil, fmt.Errorf("find would delete %s, which is not inside the home folder", s)
		}
		q, err := p.resolve(filepath.Dir(abs), filepath.Base(abs))
		if err != nil {
			return nil, fmt.Errorf("find would delete %s: %w", s, err)
		}
		if _, err := os.Lstat(q); err != nil {
			return nil, fmt.Errorf("find listed %q, which Hark cannot find again (a name with control characters?); use Delete", s)
		}
		if !set[abs] {
			set[abs] = true
			real[abs] = q
			paths = append(paths, abs)
		}
	}
	var keep []string
	for _, q := range paths {
		fi, err := os.Lstat(real[q])
		if err == nil && fi.IsDir() && !allListed(q, set) {
			continue
		}
		keep = append(keep, real[q])
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

// Check sorts the targets the way the deletion itself would, one after
// the other as rm and rmdir take them: a missing target (or one already
// removed by an earlier one) is an error unless -f; a name written with a
// trailing slash must be a folder; a folder needs -r, or -d / rmdir and to
// be empty (of what the earlier targets leave). It returns the paths to
// move and the problems with the rest. Where the deletion would do what a
// move cannot stand in for, ok is empty and the one problem wraps
// ErrNoStandIn.
func (p Plan) Check(paths []string) (ok []string, problems []error) {
	if p.Program == "find" {
		for _, q := range paths {
			if _, err := os.Lstat(q); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					problems = append(problems, fmt.Errorf("%s: %w", q, unwrapPath(err)))
				}
				continue
			}
			ok = append(ok, q)
		}
		return ok, problems
	}
	gone := map[string]bool{} // what the earlier targets remove
	isGone := func(q string) bool {
		for ; ; q = filepath.Dir(q) {
			if gone[q] {
				return true
			}
			if q == filepath.Dir(q) {
				return false
			}
		}
	}
	empty := func(q string) bool {
		entries, err := os.ReadDir(q)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if !gone[filepath.Join(q, e.Name())] {
				return false
			}
		}
		return true
	}
	used := map[string]int{}
	for _, q := range paths {
		why, standIn := p.checkOne(q, p.opFor(q, used), isGone, empty)
		if standIn != nil {
			return nil, []error{standIn}
		}
		if why != nil {
			if why != errSkip {
				problems = append(problems, why)
			}
			continue
		}
		gone[q] = true
		ok = append(ok, q)
	}
	return ok, problems
}

// opFor is how the next use of path q among the plan's targets was
// written.
func (p Plan) opFor(q string, used map[string]int) op {
	n := used[q]
	used[q]++
	for i, r := range p.Paths {
		if r != q || i >= len(p.ops) {
			continue
		}
		if n == 0 {
			return p.ops[i]
		}
		n--
	}
	return op{}
}

// checkOne is what rm or rmdir does with one target: nil when it removes
// it, a problem when it refuses, or (second) a reason nothing may move.
func (p Plan) checkOne(q string, o op, isGone func(string) bool, empty func(string) bool) (why, standIn error) {
	slash := o.slash
	missing := func(err error) (error, error) {
		if p.Force {
			return errSkip, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: not a folder", show(q, slash)), nil
		}
		return fmt.Errorf("%s: no such file or folder", show(q, slash)), nil
	}
	if o.dirErr != nil {
		if errors.Is(o.dirErr, fs.ErrNotExist) || errors.Is(o.dirErr, syscall.ENOTDIR) {
			return missing(o.dirErr)
		}
		return fmt.Errorf("%s: %w", q, unwrapPath(o.dirErr)), nil
	}
	if isGone(q) {
		return missing(fs.ErrNotExist)
	}
	fi, err := os.Lstat(q)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return missing(err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", q, unwrapPath(err)), nil
	}
	isDir := fi.IsDir()
	if slash && !isDir {
		// The slash makes the kernel follow a link and insist on a folder.
		st, err := os.Stat(q)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return missing(err)
		case err != nil:
			return fmt.Errorf("%s: %w", show(q, slash), unwrapPath(err)), nil
		case !st.IsDir():
			return missing(syscall.ENOTDIR)
		case p.Program == "rm" && p.Recursive:
			return nil, fmt.Errorf("%w: rm -r %s would empty the folder the link points to and keep the link", ErrNoStandIn, show(q, slash))
		case p.Program == "rm" && !p.EmptyDirs:
			return fmt.Errorf("%s: is a folder, so rm without -r would not remove it", show(q, slash)), nil
		}
		if p.Program == "rm" && !empty(q) {
			return fmt.Errorf("%s: the folder the link points to is not empty, so rm -d would not remove it", show(q, slash)), nil
		}
		if p.Force { // the kernel's "not a folder", which -f passes over
			return errSkip, nil
		}
		return fmt.Errorf("%s: a link to a folder, which %s cannot remove through the slash", show(q, slash), p.Program), nil
	}
	switch {
	case !isDir && p.Program == "rm":
		return nil, nil
	case !isDir:
		return fmt.Errorf("%s: not a folder, so rmdir would not remove it", q), nil
	case p.Program == "rm" && p.Recursive:
		if d, err := deviceOf(q); err == nil {
			if pd, err := deviceOf(filepath.Dir(q)); err == nil && d != pd {
				if p.preserveAll {
					return fmt.Errorf("%s: on another file system than its folder, so rm --preserve-root=all skips it", q), nil
				}
				return nil, fmt.Errorf("%w: %s is a mount point, which rm -r would empty but not remove", ErrNoStandIn, q)
			}
		}
		return nil, nil
	case p.EmptyDirs:
		if !empty(q) {
			return fmt.Errorf("%s: the folder is not empty, so %s would not remove it", q, p.Program), nil
		}
		return nil, nil
	}
	return fmt.Errorf("%s: is a folder, so rm without -r would not remove it", q), nil
}

// errSkip marks a target rm -f passes over in silence.
var errSkip = errors.New("skipped")

func show(q string, slash bool) string {
	if slash {
		return q + "/"
	}
	return q
}

package policy

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// The floor (recursive deletion of /, ~ or a system root, …) is judged on
// the words bash would pass and in every folder a command may run in, both
// as shell/plan models them, so that the policy, the rules and the preview
// share one reading of the line.
//
// The policy never reads the disk or the environment, so plan walks the
// line in symbolic folders: homeMark stands for the home folder (whatever
// it is, ~ is protected), and startMark for a starting folder nobody
// named. Both are absolute paths no real folder has (they hold NUL bytes),
// so what plan computes from them (a cd .. , a /proc/self/cwd) is mapped
// back without guessing.
const (
	homesMark = "/\x00homes" // the folder that holds the home folders (~/..)
	homeMark  = homesMark + "/\x00you"
)

// startMark is deep enough that no realistic run of cd .. leaves it: an
// ancestor of it is "some folder above the start", not the root.
var startMark = "/" + strings.TrimSuffix(strings.Repeat("\x00start/", 32), "/")

// planEnv is what plan may know about a line the policy classifies.
// Hark's runner starts every command with OLDPWD set to its own folder.
var planEnv = plan.Env{Home: homeMark, OldPwdIsStart: true}

// planDir maps a folder as the policy spells it ("~", "~/src", "/usr",
// "~bob", or a plan path already) to plan's absolute form; "" when it
// cannot be told.
func planDir(dir string) string {
	switch {
	case dir == "":
		return ""
	case strings.HasPrefix(dir, "~"):
		name, rest, _ := strings.Cut(dir, "/")
		switch name {
		case "~":
			return filepath.Clean(homeMark + "/" + rest)
		case "~+", "~-":
			return ""
		}
		return filepath.Clean(homesMark + "/" + name[1:] + "/" + rest)
	case filepath.IsAbs(dir):
		return filepath.Clean(dir)
	}
	return ""
}

// dirList splits the folders a classifier holds in cwd; none known is the
// unknown starting folder.
func dirList(cwd string) []string {
	if cwd == "" {
		return []string{startMark}
	}
	return strings.Split(cwd, "\n")
}

// joinDirs is the cwd form of a set of folders, each once.
func joinDirs(dirs []string) string {
	var out []string
	for _, d := range dirs {
		if d != "" && !contains(out, d) {
			out = append(out, d)
		}
	}
	return strings.Join(out, "\n")
}

// placesOf walks f once per starting folder and returns, for each simple
// command, every state plan says the shell may be in when it runs.
func placesOf(f *syntax.File, src, cwd string, seed child) map[*syntax.CallExpr][]plan.Place {
	s := &plan.Script{Src: src, File: f}
	out := map[*syntax.CallExpr][]plan.Place{}
	for _, start := range dirList(cwd) {
		env := planEnv
		env.Dir = start
		env.Args, env.Exported = seed.args, seed.exports
		for _, call := range s.Calls(env) {
			out[call.Expr] = append(out[call.Expr], call.Places...)
		}
	}
	return out
}

// child is what a shell started by the command being judged knows when
// it starts: its positional parameters ($0 first; nil when not known)
// and the variables exported to it, in plan's form.
type child struct {
	args    []string
	exports map[string]string
}

// childArgs are the words after a -c script as the child's positional
// parameters, or nil when one of them is only known when it runs.
func childArgs(name string, words []arg) []string {
	if len(words) == 0 {
		return []string{name} // $0 is the shell's name
	}
	out := make([]string, len(words))
	for i, w := range words {
		switch {
		case !w.plain():
			return nil
		case w.home:
			out[i] = planDir(w.val)
		case strings.HasPrefix(w.val, "~"):
			return nil // ~bob or a quoted ~: not followed
		default:
			out[i] = w.val
		}
		if out[i] == "" && w.val != "" {
			return nil
		}
	}
	return out
}

// callDirs is the cwd form of the folders x may run in: plan's, and the
// folder the cd commands met so far lead to when followed in the order
// they are written. The latter only ever adds a folder; it stands in
// where plan cannot tell (a function never called, a line after eval)
// and keeps every verdict at least as strict as it was before plan.
func (c *classifier) callDirs(x *syntax.CallExpr) string {
	var dirs []string
	for _, p := range c.places[x] {
		if p.Unknown == "" {
			dirs = append(dirs, p.Dir)
		}
	}
	if c.cdCwd != "" {
		dirs = append(dirs, dirList(c.cdCwd)...)
	}
	return joinDirs(dirs)
}

// protectedIn reports whether target, run in the plan folder dir, names
// the file-system root, a home folder, a system root or everything inside
// one of them, after the aliases of / and of dir are taken back
// (/proc/self/root, /proc/PID/root, /proc/self/cwd, ~+, //, /./, /../).
// Options.Home and Options.Homes are recognised on the cleaned path, so
// that /var/home//alice is the home /var/home/alice is, and a pattern is
// protected when it may match a protected folder.
func (pol *Policy) protectedIn(target arg, dir string) (string, bool) {
	p := target.val
	if p == "" && target.plain() {
		return "", false // rm -rf "" names nothing, not the folder it runs in
	}
	if target.home || strings.HasPrefix(p, "~") {
		name, rest, slash := strings.Cut(p, "/")
		switch {
		case name == "~":
			p = homeMark + "/" + rest
		case name == "~+" && slash && !under(dir, startMark):
			p = dir + "/" + rest
		default:
			// ~bob, ~-, ~+ where the folder is unknown: someone's whole
			// home, or a folder only known when the command runs.
			if !slash || stripAll(cleanPath("/"+rest)) == "/" {
				return name, true
			}
			return "", false
		}
	} else if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	q, why := plan.Normalize(dir, p)
	if why != "" {
		return "", false
	}
	if root, ok := pol.protectedPath(q, target); ok {
		return root, true
	}
	// The kernel, and bash's pathname expansion, take a '..' from where a
	// link leads, not from the folder holding it: after cd into a link
	// to ~/sub, ../* is everything in home. The spelling's reading above
	// stays, as a link may be pointed elsewhere before the command runs.
	if phys, ok := pol.physical(p); ok && phys != q {
		return pol.protectedPath(phys, target)
	}
	return "", false
}

// physical is the clean path p (absolute, as written) reaches when each
// '..' in it is taken from where the links before it lead, as the kernel
// walks it. ok is false when p has no '..' or Options.Resolve cannot tell:
// no disk to read, a folder nobody named, or a pattern before the '..'.
func (pol *Policy) physical(p string) (string, bool) {
	if pol.resolve == nil {
		return "", false
	}
	comps := strings.Split(p, "/")
	i := len(comps) - 1
	for i >= 0 && comps[i] != ".." {
		i--
	}
	if i < 0 {
		return "", false
	}
	// Only the part up to the last '..' is walked on the disk: what
	// follows it is the name the command acts on, which rm -rf removes
	// as a link rather than following.
	prefix := strings.Join(comps[:i+1], "/")
	switch {
	case strings.ContainsAny(prefix, "*?["):
		return "", false
	case strings.HasPrefix(prefix, "/proc/"), strings.HasPrefix(prefix, "/dev/"):
		return "", false // Normalize reads their aliases for the command, not for Hark
	case strings.HasPrefix(prefix, homeMark+"/"):
		if pol.home == "" {
			return "", false
		}
		prefix = pol.home + prefix[len(homeMark):]
	case strings.ContainsRune(prefix, 0):
		return "", false
	}
	r := pol.resolve(prefix)
	if !filepath.IsAbs(r) {
		return "", false
	}
	return filepath.Clean(r + "/" + strings.Join(comps[i+1:], "/")), true
}

// protectedPath is protectedIn's judgement of the clean plan path q that
// target names.
func (pol *Policy) protectedPath(q string, target arg) (string, bool) {
	whole := stripAll(q) != q || strings.HasSuffix(target.val, "/") || strings.HasSuffix(target.val, "/.")
	q = stripAll(pol.homeOf(q))
	if root, ok := rootName(q); ok {
		return root, true
	}
	if r := pol.landing(q, whole); r != "" && r != q {
		if root, ok := rootName(stripAll(pol.homeOf(r))); ok {
			return root, true
		}
	}
	if slices.Contains(pol.homeParents, q) {
		return q, true
	}
	if target.glob {
		return pol.patternRoot(q)
	}
	return "", false
}

// landing is where the plan path q lands once Options.Resolve follows its
// links, or "" when that cannot be told. The last name is followed only
// when the command acts on what it holds (whole: h/, h/., h/*): rm -rf h
// removes the link h, rm -rf h/ empties the folder it points to.
func (pol *Policy) landing(q string, whole bool) string {
	if pol.resolve == nil || strings.ContainsAny(q, "*?[") {
		return ""
	}
	real := q
	switch {
	case under(q, homeMark) && pol.home != "":
		real = pol.home + q[len(homeMark):]
	case strings.ContainsRune(q, 0):
		return "" // a folder nobody named
	}
	if whole {
		return filepath.Clean(pol.resolve(real))
	}
	dir, base := path.Split(real)
	if base == "" {
		return ""
	}
	return path.Join(pol.resolve(filepath.Clean(dir)), base)
}

// patternRoot names the protected folder a pattern path (clean, with its
// trailing wildcards stripped) may match: /var/home/ali*, /var/h?me/alice,
// /b* or /h*/* delete what the folder they match holds, whatever the
// spelling, so a pattern is judged by the folders it can reach rather than
// the letters it is written with.
func (pol *Policy) patternRoot(q string) (string, bool) {
	if !strings.ContainsAny(q, "*?[") {
		return "", false
	}
	var homesDirs []string
	try := func(cand, name string) (string, bool) {
		if matchPath(q, cand) {
			return name, true
		}
		return "", false
	}
	if pol.home != "" {
		if r, ok := try(pol.home, "~"); ok {
			return r, true
		}
	}
	for _, h := range pol.homes {
		if r, ok := try(h, h); ok {
			return r, true
		}
	}
	homesDirs = append(homesDirs, pol.homeParents...)
	for r, k := range paths {
		if k != systemRoot && k != homes {
			continue
		}
		if got, ok := try(r, r); ok {
			return got, true
		}
		if k == homes {
			homesDirs = append(homesDirs, r)
		}
	}
	for _, h := range homesDirs {
		if got, ok := try(h, h); ok {
			return got, true
		}
		// someone's whole home in a folder of homes: any last name
		if i := strings.LastIndexByte(q, '/'); i > 0 && matchPath(q[:i], h) {
			return q, true
		}
	}
	return "", false
}

// matchPath reports whether the pattern path pat matches the clean path p
// name by name, as pathname expansion does (a / is never matched by *).
func matchPath(pat, p string) bool {
	ps, qs := strings.Split(pat, "/"), strings.Split(p, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ok, err := path.Match(ps[i], qs[i]); err != nil || !ok {
			if !strings.EqualFold(ps[i], qs[i]) {
				return false
			}
		}
	}
	return true
}

// rootName names a cleaned plan path when it is protected.
func rootName(root string) (string, bool) {
	switch {
	case root == homeMark:
		return "~", true
	case root == homesMark:
		return "~/..", true
	case path.Dir(root) == homesMark:
		return "~" + path.Base(root), true
	case under(root, homesMark), under(root, startMark):
		return "", false
	case root != "/" && strings.HasPrefix(startMark, root+"/"):
		return "", false // some folder above a start nobody named
	}
	if k := rootKind(root); k == systemRoot || k == homes {
		return root, true
	}
	// Someone's whole home directory, named by path.
	if rootKind(path.Dir(root)) == homes {
		return root, true
	}
	return "", false
}

// foldedRoots are the system roots and home folders of paths by their
// lower-case spelling: macOS file systems ignore case by default, so
// /users/me and /LIBRARY there are /Users/me and /Library. Elsewhere a
// differently cased name is only ever judged more strictly.
var foldedRoots = func() map[string]pathKind {
	m := map[string]pathKind{}
	for p, k := range paths {
		if k == systemRoot || k == homes {
			m[strings.ToLower(p)] = k
		}
	}
	return m
}()

// rootKind is the kind of p as a system root or home folder, whatever
// its case.
func rootKind(p string) pathKind {
	if k, ok := paths[p]; ok {
		return k
	}
	return foldedRoots[strings.ToLower(p)]
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// fromPlan spells a plan path as the policy's words do: the home folder as
// ~, a path below the unknown start as relative.
func fromPlan(v string) arg {
	switch {
	case under(v, homeMark):
		return arg{val: "~" + v[len(homeMark):], home: true}
	case v == startMark:
		return arg{val: "."}
	case under(v, startMark):
		return arg{val: v[len(startMark)+1:]}
	}
	return arg{val: v}
}

// maxBraceWords bounds the words brace expansion may add to one command;
// past it a word stays one, marked as a brace expansion, and call refuses
// the command: the floor cannot be judged on words it did not read, so
// `rm -rf {/,{1..20000}}` must not run with --yes or an allow rule.
const maxBraceWords = 10000

// words are x's words as bash would pass them after brace expansion, so
// that `{sudo,} id` is judged as `sudo id` and `rm {-rf,~}` as
// `rm -rf ~`. A word plan cannot expand (a variable only known when the
// command runs) stays as written, with its brace flag.
func (c *classifier) words(x *syntax.CallExpr) []arg {
	args, _ := c.wordsWithin(x)
	return args
}

// wordsWithin is words, and whether some brace expansion was past the
// bound and left unread.
func (c *classifier) wordsWithin(x *syntax.CallExpr) (args []arg, overflow bool) {
	args = make([]arg, 0, len(x.Args))
	budget := maxBraceWords
	for _, w := range x.Args {
		a := decodeWord(w)
		if a.brace {
			n := braceCount(w, budget)
			overflow = overflow || n > budget
			if n <= budget {
				if fs, ok := c.braceWords(x, w, a); ok {
					budget -= len(fs)
					args = append(args, fs...)
					continue
				}
			}
		}
		args = append(args, a)
	}
	return args, overflow
}

// braceCount is how many words brace expansion makes of w, or more than
// limit when that is more than limit, counted without making them: a
// hostile {a,b}{a,b}… must not cost the time of a million words.
func braceCount(w *syntax.Word, limit int) int {
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	syntax.SplitBraces(&cp)
	return partsCount(cp.Parts, limit)
}

func partsCount(parts []syntax.WordPart, limit int) int {
	n := 1
	for _, p := range parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				if k += partsCount(e.Parts, limit); k > limit {
					break
				}
			}
		}
		if n *= max(k, 1); n > limit {
			return limit + 1
		}
	}
	return n
}

// sequenceLen is the length of {x..y[..step]}, counted generously; an
// end that is not a number or a letter counts as one word.
func sequenceLen(b *syntax.BraceExp) int {
	if len(b.Elems) < 2 {
		return 1
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	x, err1 := strconv.Atoi(from)
	y, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil {
		if len(from) == 1 && len(to) == 1 {
			x, y = int(from[0]), int(to[0])
		} else {
			return 1
		}
	}
	if x > y {
		x, y = y, x
	}
	if y-x < 0 || y-x > 1<<30 {
		return 1 << 30
	}
	return y - x + 1
}

func (c *classifier) braceWords(x *syntax.CallExpr, w *syntax.Word, a arg) ([]arg, bool) {
	at := plan.Place{Dir: dirList(c.cwd)[0]}
	for _, p := range c.places[x] {
		if p.Unknown == "" {
			at = p
			break
		}
	}
	ex := planEnv.Expand(at, []*syntax.Word{w})
	if ex.Unknown != "" || ex.NoRun != "" {
		return nil, false
	}
	out := make([]arg, len(ex.Fields))
	for i, f := range ex.Fields {
		out[i] = fromPlan(f.Value)
		out[i].glob = f.Pattern
		out[i].escapedOp = a.escapedOp
	}
	return out, true
}

// chdir moves the folders the command being judged runs in to dir, as env
// -C does for the command it runs, and returns what puts them back. A
// folder only known at run time leaves none known.
func (c *classifier) chdir(dir arg) (restore func()) {
	saved := c.cwd
	var dirs []string
	if dir.plain() && knownDir(dir) && dir.val != "" {
		for _, d := range dirList(c.cwd) {
			switch {
			case dir.home || strings.HasPrefix(dir.val, "~"):
				dirs = append(dirs, planDir(dir.val))
			case strings.HasPrefix(dir.val, "/"):
				dirs = append(dirs, filepath.Clean(dir.val))
			default:
				dirs = append(dirs, filepath.Clean(d+"/"+dir.val))
			}
		}
	}
	c.cwd = joinDirs(dirs)
	return func() { c.cwd = saved }
}

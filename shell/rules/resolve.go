package rules

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
)

// resolver is what one decision knows of the disk. It names every path the
// way the kernel will find it when the command runs, so that a folder
// scope and the floor are applied to where a name lands, not to how it is
// spelt: patterns are expanded, links followed, '..' taken physically, and
// /proc's aliases of / and of the command's own folder taken back.
type resolver struct {
	home     string // as the user's settings name it
	realHome string // with links followed
	env      plan.Env
	gitdirs  map[string][]string // per folder: the repositories its .git links to
}

func newResolver(home string) *resolver {
	r := &resolver{home: home, env: plan.Env{Home: home, Disk: true}, gitdirs: map[string][]string{}}
	r.realHome = r.real(home)
	return r
}

// path is where p, named by a command run in dir, lands; why says why that
// is only known when the command runs.
func (r *resolver) path(dir, p string) (string, string) {
	p, why := unproc(dir, p)
	if why != "" {
		return "", why
	}
	return r.env.Resolve(dir, p)
}

// real is p with links followed, or p itself when that cannot be told.
func (r *resolver) real(p string) string {
	q, why := r.path("/", p)
	if why != "" {
		return path.Clean(p)
	}
	return q
}

// lexical is p made absolute and clean without looking at the disk, with
// /proc's aliases taken back first, so that its '..' is not cleaned
// against an alias.
func lexical(dir, p string) (string, string) {
	p, why := unproc(dir, p)
	if why != "" {
		return "", why
	}
	return plan.Normalize(dir, p)
}

// unproc takes back the /proc names of / and of the command's own folder
// at the start of p before anything cleans it: /proc/self/cwd/.. is the
// folder above the command's, which cleaning first would turn into
// /proc/self and then, followed from Hark's own process, into the folder
// above Hark's. What follows the alias is kept as written, for the disk
// walk to take physically.
func unproc(dir, p string) (string, string) {
	if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	for range 8 {
		var comps []string
		for _, c := range strings.Split(p, "/") {
			if c != "" && c != "." {
				comps = append(comps, c)
			}
		}
		if len(comps) < 3 || comps[0] != "proc" {
			return p, ""
		}
		who, kind, rest := comps[1], comps[2], comps[3:]
		if kind == "task" { // /proc/self/task/TID/root is the process's root
			if len(comps) < 5 {
				return p, ""
			}
			kind, rest = comps[4], comps[5:]
		}
		self := who == "self" || who == "thread-self"
		if !self && !digits(who) {
			return p, ""
		}
		switch kind {
		case "root":
			p = "/" + strings.Join(rest, "/")
		case "cwd":
			if !self {
				return "", p + " is another process's folder, only known when the command runs"
			}
			p = dir + "/" + strings.Join(rest, "/")
		default:
			return p, "" // fd, map_files and the rest: plan.Normalize says
		}
	}
	return "", "the path goes through /proc aliases more often than Hark follows"
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// target is one path a command names, as spelt (made absolute and clean)
// and where it lands.
type target struct{ lex, real string }

// spot is one Place of a call with the paths it names there.
type spot struct {
	dir     target
	targets []target
}

// spots are the folders c may run in, each with the paths c names there,
// or why they cannot be told.
func (r *resolver) spots(c call) ([]spot, string) {
	if len(c.places) == 0 {
		return nil, "Hark cannot tell where it runs"
	}
	var out []spot
	for _, p := range c.places {
		if p.Unknown != "" {
			return nil, p.Unknown
		}
		ex := r.env.Expand(p, c.words)
		if ex.Unknown != "" {
			return nil, ex.Unknown
		}
		if ex.NoRun != "" {
			continue // bash does not run it from here
		}
		sp := spot{dir: target{lex: p.Dir, real: r.real(p.Dir)}}
		values := make([]string, 0, len(ex.Fields))
		for _, f := range ex.Fields {
			values = append(values, f.Value)
		}
		// A pattern also names the folder it lists: a name created there
		// between now and the run is matched too, and `~/*` touches home.
		for _, a := range c.args {
			if strings.ContainsAny(a, "*?[") {
				values = append(values, patternFolder(a, p.Dir, r.home))
			}
		}
		for _, v := range candidates(values) {
			lex, why := lexical(p.Dir, v)
			if why != "" {
				return nil, why
			}
			real, why := r.path(p.Dir, v)
			if why != "" {
				return nil, why
			}
			sp.targets = append(sp.targets, target{lex: lex, real: real})
		}
		out = append(out, sp)
	}
	return out, ""
}

// candidates are the paths among a command's arguments: every argument
// that is not an option, and the value of an option that carries one
// (--output=/x, -o/x). Bare words count as relative paths: a branch name
// is harmless that way, a file is not missed.
func candidates(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		cand := a
		if strings.HasPrefix(a, "-") {
			switch {
			case strings.Contains(a, "="):
				cand = a[strings.IndexByte(a, '=')+1:]
			case strings.ContainsAny(a, "/~"):
				cand = a[strings.IndexAny(a, "/~"):]
			default:
				continue
			}
			if cand == "" {
				continue
			}
		}
		out = append(out, cand)
	}
	return out
}

// patternFolder is the folder before the first pattern component of p.
func patternFolder(p, wd, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	case !strings.HasPrefix(p, "/"):
		p = wd + "/" + p
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.ContainsAny(s, "*?[") {
			return "/" + strings.Join(parts[:i], "/")
		}
	}
	return p
}

// leaves returns the first folder or path of c that is not inside folder
// (resolved), or "".
func (r *resolver) leaves(sps []spot, folder string) string {
	for _, sp := range sps {
		if !within(sp.dir.real, folder) {
			return sp.dir.real
		}
		for _, t := range sp.targets {
			if !within(t.real, folder) {
				return t.real
			}
		}
	}
	return ""
}

// floor returns the protected path c touches at any of its spots, or "".
// The folder counts when it lies inside a protected tree (a command run
// inside ~/.ssh touches it whatever it names), and so do the repositories
// that a .git file or link in the folder or above a target points to.
func (r *resolver) floor(sps []spot) string {
	for _, sp := range sps {
		var gds []string
		gds = append(gds, r.gitDirsAbove(sp.dir.real)...)
		for _, t := range sp.targets {
			gds = append(gds, r.gitDirsAbove(t.real)...)
		}
		for _, t := range sp.targets {
			if p := r.protected(t); p != "" {
				return p
			}
			for _, gd := range gds {
				if within(t.real, gd) || within(t.lex, gd) {
					return gd
				}
			}
		}
		for _, d := range []string{sp.dir.lex, sp.dir.real} {
			if p := protectedPath(d, r.home); p != "" && !within(r.home, d) && !within(r.realHome, d) {
				return p
			}
			for _, gd := range gds {
				if within(d, gd) {
					return gd
				}
			}
		}
	}
	return ""
}

// protected is the protected path t touches, spelt or landed, against
// home as named and as resolved.
func (r *resolver) protected(t target) string {
	for _, p := range []string{t.lex, t.real} {
		for _, h := range []string{r.home, r.realHome} {
			if f := protectedPath(p, h); f != "" {
				return f
			}
		}
	}
	return ""
}

// maxGitDepth bounds how many folders above a path are searched for .git.
const maxGitDepth = 64

// gitDirsAbove are the repositories that a .git file (`gitdir: PATH`, as
// worktrees and submodules write it) or a .git link in p or a folder above
// it points to, with their common folder: their hooks and config run code
// just as .git's do, whatever they are called.
func (r *resolver) gitDirsAbove(p string) []string {
	var out []string
	for range maxGitDepth {
		out = append(out, r.gitDirsAt(p)...)
		if p == "/" || p == "." || p == "" {
			break
		}
		p = filepath.Dir(p)
	}
	return out
}

func (r *resolver) gitDirsAt(dir string) []string {
	if v, ok := r.gitdirs[dir]; ok {
		return v
	}
	var out []string
	g := filepath.Join(dir, ".git")
	fi, err := os.Lstat(g)
	switch {
	case err != nil:
	case fi.Mode()&fs.ModeSymlink != 0:
		out = append(out, r.real(g))
	case fi.Mode().IsRegular():
		if gd := readGitdir(g); gd != "" {
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(dir, gd)
			}
			gd = r.real(gd)
			out = append(out, gd)
			if cd := readFirstLine(filepath.Join(gd, "commondir")); cd != "" {
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(gd, cd)
				}
				out = append(out, r.real(cd))
			}
		}
	}
	r.gitdirs[dir] = out
	return out
}

// readGitdir is the PATH of a .git file's `gitdir: PATH` line, or "".
func readGitdir(name string) string {
	l := readFirstLine(name)
	if v, ok := strings.CutPrefix(l, "gitdir:"); ok {
		return strings.TrimSpace(v)
	}
	return ""
}

// readFirstLine reads at most a few kilobytes: a .git file is one line,
// and a huge one is not git's.
func readFirstLine(name string) string {
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return "" // a fifo would block the question
	}
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 512), 4096)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}

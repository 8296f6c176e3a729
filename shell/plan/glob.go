package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/pattern"
)

var errNotDir = syscall.ENOTDIR

// glob is pathname expansion of the escaped pattern pat in folder dir, as
// bash 5.2 does it:
//   - a name that starts with '.' matches only a component whose pattern
//     starts with a literal '.', unless dotglob is on or GLOBIGNORE is set;
//     '.' and '..' are never matched (globskipdots);
//   - a component before a '/' matches folders only (links to folders too);
//     a final component without pattern characters must exist;
//   - ** under globstar matches any depth of folders, not through links;
//   - names matching GLOBIGNORE's patterns are dropped;
//   - the result is sorted, and keeps the pattern's own form (relative
//     stays relative, a trailing slash stays).
func (x *expander) glob(dir, pat string) ([]string, error) {
	comps := splitPattern(pat)
	bases := []string{""}
	if strings.HasPrefix(pat, "/") {
		bases = []string{"/"}
		comps = comps[1:]
	}
	o := x.p.Opts
	for i, c := range comps {
		last := i == len(comps)-1
		var next []string
		switch {
		case c == "":
			// "//" or a trailing "/": the names so far must be folders.
			for _, b := range bases {
				if b == "" || b == "/" {
					next = append(next, b)
					continue
				}
				if ok, _ := x.env.fs().IsDir(x.at(dir, b)); ok {
					next = append(next, b+"/")
				}
			}
		case !pattern.HasMeta(c, 0) && !strings.ContainsAny(c, "()|"):
			lit := unescapePattern(c)
			for _, b := range bases {
				p := join(b, lit)
				if last {
					if _, err := x.env.fs().Lstat(x.at(dir, p)); err == nil {
						next = append(next, p)
					}
				} else if ok, _ := x.env.fs().IsDir(x.at(dir, p)); ok {
					next = append(next, p)
				}
			}
		case c == "**" && o.GlobStar:
			for _, b := range bases {
				found, err := x.starStar(dir, b, last)
				if err != nil {
					return nil, err
				}
				next = append(next, found...)
			}
		default:
			rx, err := componentRegexp(c, o)
			if errors.Is(err, errCaseClass) {
				return nil, err
			}
			if err != nil {
				return nil, nil // bash: a bad pattern matches nothing and stays as written
			}
			explicitDot := strings.HasPrefix(c, ".") || strings.HasPrefix(c, `\.`)
			for _, b := range bases {
				names, err := x.list(dir, b)
				if err != nil {
					if errors.Is(err, errTooMany) {
						return nil, err
					}
					continue
				}
				for _, n := range names {
					if strings.HasPrefix(n.name, ".") && !explicitDot && !o.DotGlob && o.GlobIgnore == "" {
						continue
					}
					if !rx.MatchString(n.name) {
						continue
					}
					p := join(b, n.name)
					if !last && !n.dir {
						continue
					}
					next = append(next, p)
				}
			}
		}
		bases = next
		if len(bases) == 0 {
			return nil, nil
		}
		if len(bases) > maxFields {
			return nil, fmt.Errorf("a pattern matches more than %d names", maxFields)
		}
	}
	if o.GlobIgnore != "" {
		bases = slices.DeleteFunc(bases, func(m string) bool { return ignored(m, o) })
	}
	slices.Sort(bases)
	return bases, nil
}

var errCaseClass = errors.New("a character class under nocaseglob")

var errTooMany = fmt.Errorf("patterns read more than %d folders", maxDirReads)

type entry struct {
	name string
	dir  bool // a folder, or a link to one
}

func (x *expander) list(dir, b string) ([]entry, error) {
	if x.reads++; x.reads > maxDirReads {
		return nil, errTooMany
	}
	d := x.at(dir, b)
	if b == "" {
		d = dir
	}
	ents, err := x.env.fs().ReadDir(d)
	if err != nil {
		return nil, err
	}
	out := make([]entry, 0, len(ents))
	for _, e := range ents {
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 { // a link counts as the folder it points to
			isDir, _ = x.env.fs().IsDir(filepath.Join(d, e.Name()))
		}
		out = append(out, entry{e.Name(), isDir})
	}
	return out, nil
}

// starStar is ** under globstar: b itself and every folder below it (and,
// as the last component, every name below it), not through links, hidden
// ones only under dotglob.
func (x *expander) starStar(dir, b string, last bool) ([]string, error) {
	var out []string
	if last {
		if b != "" {
			out = append(out, b)
		}
	} else {
		out = append(out, b)
	}
	var walk func(p string) error
	walk = func(p string) error {
		ents, err := x.list(dir, p)
		if err != nil {
			if errors.Is(err, errTooMany) {
				return err
			}
			return nil
		}
		for _, e := range ents {
			if strings.HasPrefix(e.name, ".") && !x.p.Opts.DotGlob && x.p.Opts.GlobIgnore == "" {
				continue
			}
			q := join(p, e.name)
			fi, err := x.env.fs().Lstat(x.at(dir, q))
			realDir := err == nil && fi.IsDir()
			if last || realDir {
				out = append(out, q)
			}
			if realDir {
				if err := walk(q); err != nil {
					return err
				}
			}
			if len(out) > maxFields {
				return fmt.Errorf("a pattern matches more than %d names", maxFields)
			}
		}
		return nil
	}
	if err := walk(b); err != nil {
		return nil, err
	}
	return out, nil
}

func componentRegexp(c string, o Options) (*regexp.Regexp, error) {
	mode := pattern.Filenames | pattern.EntireString | pattern.GlobLeadingDot
	if o.NoCaseGlob {
		if strings.Contains(c, "[:") {
			// bash keeps [:upper:] and [:lower:] to their case
			return nil, errCaseClass
		}
		mode |= pattern.NoGlobCase
	}
	if o.ExtGlob {
		mode |= pattern.ExtendedOperators
	}
	s, err := pattern.Regexp(c, mode)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(s)
}

// ignored says whether GLOBIGNORE drops the match m.
func ignored(m string, o Options) bool {
	base := filepath.Base(strings.TrimSuffix(m, "/"))
	if base == "." || base == ".." {
		return true
	}
	for _, g := range strings.Split(o.GlobIgnore, ":") {
		if g == "" {
			continue
		}
		rx, err := componentRegexp(g, Options{ExtGlob: o.ExtGlob, NoCaseGlob: o.NoCaseGlob})
		if err == nil && rx.MatchString(m) {
			return true
		}
	}
	return false
}

// splitPattern splits an escaped pattern at its unescaped slashes.
func splitPattern(pat string) []string {
	var out []string
	start := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '/':
			out = append(out, pat[start:i])
			start = i + 1
		}
	}
	return append(out, pat[start:])
}

func join(b, name string) string {
	switch {
	case b == "":
		return name
	case b == "/":
		return b + name
	}
	// A base that ends in '/' came from "//" in the pattern, which bash
	// keeps: "$HOME/"/* is /home/u//a.
	return b + "/" + name
}

// at is the path the kernel opens for p, a pattern's matched part, run in
// dir: a '..' after a link is taken from where the link leads (after cd
// link, ../* lists the folder holding the link's target), as bash's
// pathname expansion hands the spelling to the kernel.
func (x *expander) at(dir, p string) string {
	comps := strings.Split(p, "/")
	i := len(comps) - 1
	for i >= 0 && comps[i] != ".." {
		i--
	}
	if i < 0 {
		return abs(dir, p)
	}
	// Each name before the last '..' was matched as a folder on the way
	// here, so the walk only has links to follow.
	head, _ := x.env.Resolve(dir, strings.Join(comps[:i+1], "/"))
	if head == "" {
		return abs(dir, p)
	}
	return filepath.Join(append([]string{head}, comps[i+1:]...)...)
}

func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

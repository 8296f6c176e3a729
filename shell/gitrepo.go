package shell

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// repoPrograms answers the policy's question (PolicyOptions.RepoPrograms):
// does the git repository that a command would use from dir have
// configuration that names a program which sandboxed git would still run?
// The sandbox's environment switches off hooks, fsmonitor, the pager and
// signing and credential programs (gitGuards), but not an external diff or
// the textconv, diff and filter drivers a repository names for its files,
// in its config or a file it includes. Such a repository makes the
// command ask, and so does one whose configuration the scan cannot read
// whole.
// Relative directories, like the runner's, are under home.
func repoPrograms(home string) func(dir string) string {
	return func(dir string) string {
		dir, ok := underHome(dir, home)
		if !ok {
			return "" // ~user: the runner refuses it anyway
		}
		for _, cfg := range repoConfigFiles(filepath.Clean(dir)) {
			if what := configNamesProgram(cfg, home); what != "" {
				return what
			}
		}
		return ""
	}
}

// repoConfigFiles finds the repository git would discover from dir, as git
// does, by walking up to the first .git folder or gitfile, and returns its
// config files: the shared one and the worktree's.
func repoConfigFiles(dir string) []string {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil {
			gitDir := dotgit
			if !fi.IsDir() { // a gitfile of a worktree or submodule
				b, err := os.ReadFile(dotgit)
				if err != nil {
					return nil
				}
				target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
				if !ok {
					return nil
				}
				gitDir = strings.TrimSpace(target)
				if !filepath.IsAbs(gitDir) {
					gitDir = filepath.Join(d, gitDir)
				}
			}
			files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
			if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				c := strings.TrimSpace(string(common))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				files = append(files, filepath.Join(c, "config"))
			}
			return files
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// maxConfigSize bounds what the scan reads of one configuration file; a
// larger one asks rather than being read in part.
const maxConfigSize = 4 << 20

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// configNamesProgram reads one git config file whole, and every file it
// includes, for the keys that name programs, and returns the first as git
// would write it, or "". What it cannot read as git would (a file too
// large, unreadable or malformed, an include it cannot follow or one that
// comes round again) it reports too: a scan that stops early could miss
// the key git would act on. A file that does not exist is no configuration.
func configNamesProgram(path, home string) string {
	return scanConfig(path, home, nil)
}

func scanConfig(path, home string, seen []string) string {
	if len(seen) > maxIncludeDepth {
		return "includes nested deeper than git follows"
	}
	abs := filepath.Clean(path)
	for _, s := range seen {
		if s == abs {
			return "an include that includes itself (" + path + ")"
		}
	}
	seen = append(seen, abs)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && len(seen) == 1 {
			return ""
		}
		return "configuration that cannot be read (" + path + ")"
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return "configuration that cannot be read (" + path + ")"
	}
	if len(b) > maxConfigSize {
		return "configuration too large to check (" + path + ")"
	}
	entries, ok := parseGitConfig(b)
	if !ok {
		return "configuration that cannot be parsed as git parses it (" + path + ")"
	}
	for _, e := range entries {
		if what := programKey(e.name); what != "" {
			return what
		}
		if e.name != "include.path" && !(strings.HasPrefix(e.name, "includeif.") && strings.HasSuffix(e.name, ".path")) {
			continue
		}
		inc, ok := includePath(e, path, home)
		if !ok {
			return "an include that cannot be followed (" + e.value + ")"
		}
		if what := scanConfig(inc, home, seen); what != "" {
			return what
		}
	}
	return ""
}

// programKey returns name when it is a key whose value is a program that
// git diff, log or status run: an external diff, a diff driver's textconv
// or command, a filter's clean, smudge or process.
func programKey(name string) string {
	if name == "diff.external" {
		return name
	}
	for _, k := range []struct{ section, key string }{
		{"diff.", ".textconv"}, {"diff.", ".command"},
		{"filter.", ".clean"}, {"filter.", ".smudge"}, {"filter.", ".process"},
	} {
		if strings.HasPrefix(name, k.section) && strings.HasSuffix(name, k.key) && len(name) > len(k.section)+len(k.key) {
			return name
		}
	}
	return ""
}

// includePath resolves an include's path as git does: ~/ under home,
// relative to the including file's folder. ~user, %(prefix) and a key
// without a value are not followed.
func includePath(e configEntry, from, home string) (string, bool) {
	p := e.value
	if !e.hasValue || p == "" {
		return "", false
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home == "" {
			return "", false
		}
		p = filepath.Join(home, rest)
	} else if strings.HasPrefix(p, "~") || strings.HasPrefix(p, "%(") {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return p, true
}

// configEntry is one key of a git config file: its full name (section,
// subsection and key, as git names it: lower case but for the
// subsection) and its value.
type configEntry struct {
	name     string
	value    string
	hasValue bool
}

// parseGitConfig reads a git config file by git's own grammar, character
// by character rather than by lines (a lone carriage return separates
// entries, a backslash continues a value on the next line, a section
// header can share a line with a key), and reports false where git would
// refuse the file.
func parseGitConfig(b []byte) ([]configEntry, bool) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := &configReader{b: b}
	var out []configEntry
	base := ""
	comment := false
	for {
		c, eof := r.next()
		switch {
		case c == '\n':
			if eof {
				return out, true
			}
			comment = false
			continue
		case comment || configSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			var ok bool
			if base, ok = r.section(); !ok || base == "" {
				return nil, false
			}
			continue
		case !configAlpha(c):
			return nil, false
		}
		e, ok := r.entry(base, c)
		if !ok {
			return nil, false
		}
		out = append(out, e)
	}
}

type configReader struct {
	b []byte
	i int
}

// next returns the next character, with CR LF read as LF and the end of
// the file as a final LF.
func (r *configReader) next() (c byte, eof bool) {
	if r.i >= len(r.b) {
		return '\n', true
	}
	c = r.b[r.i]
	r.i++
	if c == '\r' && r.i < len(r.b) && r.b[r.i] == '\n' {
		r.i++
		c = '\n'
	}
	return c, false
}

func configSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func configAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func configKeyChar(c byte) bool { return configAlpha(c) || c >= '0' && c <= '9' || c == '-' }

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// section reads a section header after its '[': [name], [name.sub] (the
// old form, all lower case) or [name "sub"] (the subsection as written).
func (r *configReader) section() (string, bool) {
	var name []byte
	for {
		c, eof := r.next()
		switch {
		case eof:
			return "", false
		case c == ']':
			return string(name), true
		case configSpace(c):
			for configSpace(c) {
				if c == '\n' {
					return "", false
				}
				c, _ = r.next()
			}
			if c != '"' {
				return "", false
			}
			name = append(name, '.')
			for {
				c, _ = r.next()
				if c == '\n' {
					return "", false
				}
				if c == '"' {
					break
				}
				if c == '\\' {
					if c, _ = r.next(); c == '\n' {
						return "", false
					}
				}
				name = append(name, c)
			}
			if c, _ = r.next(); c != ']' {
				return "", false
			}
			return string(name), true
		case !configKeyChar(c) && c != '.':
			return "", false
		}
		name = append(name, lowerByte(c))
	}
}

// entry reads a key, whose first letter is first, and its value if any.
func (r *configReader) entry(base string, first byte) (configEntry, bool) {
	key := []byte{lowerByte(first)}
	var c byte
	for {
		var eof bool
		c, eof = r.next()
		if eof || !configKeyChar(c) {
			break
		}
		key = append(key, lowerByte(c))
	}
	for c == ' ' || c == '\t' {
		c, _ = r.next()
	}
	e := configEntry{name: base + "." + string(key)}
	if c == '\n' {
		return e, true
	}
	if c != '=' {
		return e, false
	}
	v, ok := r.value()
	e.value, e.hasValue = v, true
	return e, ok
}

// value reads a value after its '=': quotes, escapes, a backslash before
// the end of a line, comments, and the spaces git trims.
func (r *configReader) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	trim := 0
	for {
		c, _ := r.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			if trim > 0 {
				v = v[:trim]
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if configSpace(c) && !quote {
			if trim == 0 {
				trim = len(v)
			}
			if len(v) > 0 {
				v = append(v, c)
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		trim = 0
		switch c {
		case '\\':
			c, _ = r.next()
			switch c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			v = append(v, c)
		case '"':
			quote = !quote
		default:
			v = append(v, c)
		}
	}
}

package plan

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// Normalize is the absolute path that target names when a command runs in
// dir, with the spellings the kernel maps elsewhere taken back to what they
// name: /proc/self/root, /proc/thread-self/root and /proc/PID/root are /
// (a sandbox or container root aside, every process of this user shares
// it), /proc/self/cwd and /proc/thread-self/cwd are dir. It cleans the path
// lexically (Resolve follows links). why is non-empty when the path names
// something only known when the command runs (/dev/fd/N, /proc/PID/cwd of
// another process, /dev/stdin).
func Normalize(dir, target string) (p, why string) {
	raw := target
	if !filepath.IsAbs(raw) {
		raw = dir + "/" + raw
	}
	// Walk the names as the kernel does: an alias is a link to what it
	// names, so a '..' after /proc/self/cwd is the parent of dir, not
	// /proc/self.
	cur := "/"
	for _, c := range strings.Split(raw, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		cur = filepath.Join(cur, c)
		q, why := unalias(dir, cur)
		if why != "" {
			return "", why
		}
		cur = q
	}
	return cur, ""
}

// unalias takes back the alias the path p (clean, absolute) ends in.
func unalias(dir, p string) (string, string) {
	switch {
	case p == "/dev/stdin" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/fd":
		return "", p + " names an open file only known when the command runs"
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return p, ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) == 4 && parts[1] == "task" && isDigits(parts[2]) {
		parts = []string{parts[0], parts[3]} // /proc/self/task/TID/X is /proc/self/X
	}
	if len(parts) != 2 {
		return p, ""
	}
	who, kind := parts[0], parts[1]
	self := who == "self" || who == "thread-self"
	if !self && !isDigits(who) {
		return p, ""
	}
	switch kind {
	case "root":
		return "/", ""
	case "cwd":
		if self {
			return filepath.Clean(dir), ""
		}
		return "", p + " is another process's folder, only known when the command runs"
	case "fd", "map_files":
		return "", p + " names an open file only known when the command runs"
	}
	return p, ""
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

// Resolve is the path target names when a command runs in dir, as the
// kernel finds it: symbolic links are followed and each '..' applies to the
// folder reached so far, not to the spelling (so dir/link/.. is the folder
// that holds the link's target), /proc aliases are taken back as Normalize
// does, and the part that does not exist yet is joined as written. A path
// through a link that leaves a folder is therefore seen where it lands.
func (env Env) Resolve(dir, target string) (string, string) {
	raw := target
	if !filepath.IsAbs(raw) {
		raw = dir + "/" + raw
	}
	f := env.fs()
	cur := "/"
	comps := strings.Split(raw, "/")
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		// The aliases of / and of the command's own folder before the
		// disk: /proc/self here is Hark's process, not the command's.
		if q, why := unalias(dir, next); why != "" {
			return "", why
		} else if q != next {
			cur = q
			continue
		}
		fi, err := f.Lstat(next)
		if err != nil {
			return filepath.Clean(filepath.Join(append([]string{next}, comps[i+1:]...)...)), ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			real, err := f.EvalSymlinks(next)
			if err != nil { // a dangling link: the command acts on the link
				return filepath.Clean(filepath.Join(append([]string{next}, comps[i+1:]...)...)), ""
			}
			next = real
		}
		cur = next
	}
	return cur, ""
}

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
	p = target
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	for range 8 { // each pass strips one alias; /proc/self/root/proc/self/root/… too
		q, why := unalias(dir, p)
		if why != "" {
			return "", why
		}
		if q == p {
			return p, ""
		}
		p = q
	}
	return "", "the path goes through /proc aliases more often than Hark follows"
}

func unalias(dir, p string) (string, string) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		switch {
		case p == "/dev/stdin" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/fd" || strings.HasPrefix(p, "/dev/fd/"):
			return "", p + " names an open file only known when the command runs"
		}
		return p, ""
	}
	who, sub, _ := strings.Cut(rest, "/")
	kind, tail, _ := strings.Cut(sub, "/")
	self := who == "self" || who == "thread-self"
	if !self && !isDigits(who) {
		return p, ""
	}
	switch kind {
	case "root":
		return filepath.Clean("/" + tail), ""
	case "cwd":
		if self {
			return filepath.Join(dir, tail), ""
		}
		return "", p + " is another process's folder, only known when the command runs"
	case "fd", "map_files":
		return "", p + " names an open file only known when the command runs"
	case "task":
		// /proc/self/task/TID/root and …/cwd are the same as the process's.
		_, inner, _ := strings.Cut(tail, "/")
		if inner == "" {
			return p, ""
		}
		return unalias(dir, "/proc/"+who+"/"+inner)
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
	// The aliases of / and of the command's own folder first: /proc/self
	// is Hark's process, not the command's, when links are followed here.
	q, why := Normalize(dir, raw)
	if why != "" {
		return "", why
	}
	if clean := filepath.Clean(raw); q != clean {
		raw = q
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

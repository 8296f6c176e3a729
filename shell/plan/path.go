package plan

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Normalize is the absolute path that target names when a command runs in
// dir, with the spellings the kernel maps elsewhere taken back to what they
// name: /proc/self/root, /proc/thread-self/root and /proc/PID/root are /
// (a sandbox or container root aside, every process of this user shares
// it), /proc/self/cwd and /proc/thread-self/cwd are dir. It cleans the path
// lexically (Resolve follows links), except that a '..' is taken as the
// kernel takes it after the links of /proc and /dev: /dev/fd is
// /proc/self/fd (on Linux), /proc/thread-self is /proc/self/task/TID and
// /proc/net is /proc/self/net, so /dev/fd/.. is /proc/self and
// /proc/thread-self/../.. is /proc/self too. why is non-empty when the path
// names something only known when the command runs (/dev/fd/N, /proc/PID/cwd
// of another process, /dev/stdin).
func Normalize(dir, target string) (p, why string) {
	raw := target
	if !filepath.IsAbs(raw) {
		raw = dir + "/" + raw
	}
	// Walk the names as the kernel does: an alias is a link to what it
	// names, so a '..' after /proc/self/cwd is the parent of dir, not
	// /proc/self.
	cur := "/"
	comps := strings.Split(raw, "/")
	for i, c := range comps {
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
			return "", spelt(comps[:i+1]) + why
		}
		cur = q
	}
	if why := openFiles(cur); why != "" {
		return "", spelt(comps) + why
	}
	return cur, ""
}

// spelt is the path of comps as written, for messages: the user reads
// /dev/fd/3, not the /proc/self/fd/3 it stands for.
func spelt(comps []string) string {
	return "/" + strings.Join(slices.DeleteFunc(slices.Clone(comps), func(c string) bool { return c == "" }), "/")
}

// devFdIsLink says whether /dev/fd is a link to /proc/self/fd, as on Linux;
// macOS mounts a file system of its own there, whose parent is /dev.
var devFdIsLink = runtime.GOOS != "darwin"

// threadSelf stands for the TID of /proc/thread-self, a link to
// /proc/PID/task/TID: the thread is only known when the command runs, but
// its folder's parent is /proc/self/task all the same.
const threadSelf = "thread-self"

// procSelf reports whether p (clean, absolute) is /proc/self or under it:
// the command's own process, which Resolve must not look up on the disk,
// where it would be Hark's.
func procSelf(p string) bool { return p == "/proc/self" || strings.HasPrefix(p, "/proc/self/") }

// openFile is unalias's reason for a path that names an open file.
const openFile = " names an open file only known when the command runs"

// unalias takes back the alias the path p (clean, absolute) ends in. The
// links of /dev and /proc are replaced by what they point to, so that a
// '..' after them goes where the kernel goes. why, when the path is only
// known when the command runs, is said of the spelling, which the caller
// puts before it.
func unalias(dir, p string) (string, string) {
	switch p {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return "", openFile
	case "/dev/fd":
		if devFdIsLink {
			return "/proc/self/fd", ""
		}
		return p, ""
	case "/proc/thread-self":
		return "/proc/self/task/" + threadSelf, ""
	case "/proc/net", "/proc/mounts":
		return "/proc/self/" + filepath.Base(p), ""
	}
	if !devFdIsLink && strings.HasPrefix(p, "/dev/fd/") {
		return "", openFile
	}
	who, kind, rest, ok := procParts(p)
	if !ok {
		return p, ""
	}
	self := who == "self"
	switch {
	case kind == "root" && rest == 0:
		return "/", ""
	case kind == "cwd" && rest == 0:
		if self {
			return filepath.Clean(dir), ""
		}
		return "", " is another process's folder, only known when the command runs"
	case (kind == "fd" || kind == "map_files") && rest > 0:
		return "", openFile
	}
	return p, ""
}

// procParts splits a path under /proc/PID (or /proc/self) into the process,
// the name under it (what /proc/PID/task/TID/X is taken for: the thread
// shares the process's root, folder and files as far as a path can tell)
// and how many names follow that one. ok is false for any other path, and
// for /proc/PID and /proc/PID/task/TID themselves.
func procParts(p string) (who, kind string, rest int, ok bool) {
	tail, found := strings.CutPrefix(p, "/proc/")
	if !found {
		return "", "", 0, false
	}
	parts := strings.Split(tail, "/")
	if who = parts[0]; who != "self" && !isDigits(who) {
		return "", "", 0, false
	}
	parts = parts[1:]
	if len(parts) >= 2 && parts[0] == "task" && (isDigits(parts[1]) || parts[1] == threadSelf) {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return "", "", 0, false
	}
	return who, parts[0], len(parts) - 1, true
}

// openFiles says why p, where a walk ended, is only known when the command
// runs: a folder of open files, such as /proc/self/fd. As with unalias, the
// caller puts the spelling before it.
func openFiles(p string) string {
	if _, kind, rest, ok := procParts(p); ok && rest == 0 && (kind == "fd" || kind == "map_files") {
		return " holds open files only known when the command runs"
	}
	if !devFdIsLink && p == "/dev/fd" {
		return " holds open files only known when the command runs"
	}
	return ""
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
			return "", spelt(comps[:i+1]) + why
		} else if q != next || procSelf(q) {
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

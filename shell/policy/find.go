package policy

import (
	"strings"
	"unicode"

	"github.com/hark-sh/hark/shell/plan"
)

// findRunsCommands reports whether find's arguments include -exec and
// friends, whose command ends with an escaped ";".
func findRunsCommands(args []arg) bool {
	for _, a := range args {
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			return true
		}
	}
	return false
}

// findCheck: find is read-only unless it deletes, writes files or runs
// commands; the command after -exec is classified like any other.
func findCheck(in *invocation) {
	if in.extra {
		in.confirm("more arguments arrive at run time, so they cannot be checked")
		return
	}
	args := in.args
	split := plan.ReadFind(argVals(args))
	var starts []arg
	for _, k := range split.Starts {
		starts = append(starts, args[k])
	}
	i := split.Expr
	// BSD find -f names a starting point that may start with '-', so the
	// file names it produces could read as options.
	pathsAreOperands := !contains(argVals(args), "-f")
	// deletes: files go (by -delete, or rm on each match, which cannot
	// remove a folder); execDeletes: rm -r, or rm on unnarrowed matches.
	deletes, execDeletes, deleteAction := false, false, false
	// tests: the expression narrows what matches by name before the first
	// action, and no operator could widen it again (-o, ",", negation).
	// Deleting the *.tmp files under ~ is then an ordinary deletion to
	// confirm, not the erasure of a home folder; `find ~ -delete -name x`
	// deletes everything before the test is reached. rm -r run on matches
	// stays forbidden: a matched folder goes with everything in it.
	tests, widens, acted := false, false, false
	for ; i < len(args); i++ {
		a := args[i]
		if a.expanded || a.brace {
			in.confirmOpt(a.val, "argument is only known at run time and could be a predicate")
			return
		}
		v := a.val
		switch {
		case findNameTests[v]:
			// A pattern with no letter or digit ('*', '.*') matches anything.
			if !acted && i+1 < len(args) && strings.IndexFunc(args[i+1].val, func(r rune) bool {
				return unicode.IsLetter(r) || unicode.IsDigit(r)
			}) >= 0 {
				tests = true
			}
		case v == "-o" || v == "-or" || v == "," || v == "!" || v == "-not":
			widens = true
		case v == "-delete":
			deletes, deleteAction = true, true
			if !tests {
				widens = true // nothing narrowed what it deletes
			}
			acted = true
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			inner := findExecWords(args[i+1:j], pathsAreOperands)
			if len(inner) == 0 {
				in.confirmOpt(v, "runs a command for each file")
				i = j
				continue
			}
			name := inner[0].val
			if k := strings.LastIndexByte(name, '/'); k >= 0 {
				name = name[k+1:]
			}
			switch name {
			case "rm", "unlink", "shred", "srm", "truncate":
				if _, recursive := hasFlag(inner[1:], "rR", "--recursive"); recursive || !tests {
					execDeletes = true
				} else {
					deletes = true
				}
			}
			n := len(in.c.v.reasons)
			in.c.run(in.text, in.label+" "+v+" ", inner, false)
			// A read-only program given each file name runs no other code
			// and changes nothing; -ok asks on a terminal Hark does not have.
			if len(in.c.v.reasons) > n || !findExecReadOnly[name] || v == "-ok" || v == "-okdir" || inner[0].val != name {
				in.confirmOpt(v, "runs a command for each file")
			}
			acted = true
			i = j
		case strings.HasPrefix(v, "-fprint") || v == "-fls":
			in.confirmAs(Write, v, "writes a file")
			return
		case findPrimaries[v] > 0 || strings.HasPrefix(v, "-newer") && len(v) == 8:
			if i+findPrimaries[v] >= len(args) {
				in.confirmOpt(v, "its value is missing")
				return
			}
			if !findNameTests[v] {
				i += max(findPrimaries[v], 1)
			}
		case findPrimaries[v] == 0 && (v == "(" || v == ")" || v == "-a" || v == "-and" || findFlags[v]):
		default:
			// Anything else is a typo, a primary of another find, or words
			// that were meant as a second command (`find . -exec ls {} \; rm x`).
			in.confirmOpt(v, "not a known find expression")
			return
		}
		if findNameTests[v] {
			i++ // the pattern
		}
	}
	if deletes || execDeletes {
		if len(starts) == 0 && in.c.cwd != "" {
			starts = append(starts, arg{val: "."})
		}
		for _, s := range starts {
			if root, ok := in.c.p.protectedTarget(s, in.c.cwd); ok && (execDeletes || !tests || widens) {
				in.forbidAs(Delete, "", "deleting everything under "+root+" is never run")
				return
			}
		}
		if deleteAction {
			in.confirmAs(Delete, "-delete", "deletes files")
		}
	}
}

// findPrimaries are the find primaries (GNU and BSD) that take values,
// with how many; findFlags are those that take none.
var findPrimaries = map[string]int{
	"-type": 1, "-xtype": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1,
	"-cmin": 1, "-Btime": 1, "-Bmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-Bnewer": 1, "-user": 1,
	"-group": 1, "-uid": 1, "-gid": 1, "-perm": 1, "-inum": 1, "-links": 1, "-maxdepth": 1, "-mindepth": 1,
	"-samefile": 1, "-fstype": 1, "-used": 1, "-printf": 1, "-regextype": 1, "-flags": 1, "-xattrname": 1,
	"-context": 1, "-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-lname": 1, "-ilname": 1,
}

var findFlags = map[string]bool{
	"-print": true, "-print0": true, "-ls": true, "-prune": true, "-quit": true, "-true": true, "-false": true,
	"-empty": true, "-executable": true, "-readable": true, "-writable": true, "-nouser": true, "-nogroup": true,
	"-depth": true, "-mount": true, "-xdev": true, "-noleaf": true, "-follow": true, "-daystart": true,
	"-ignore_readdir_race": true, "-noignore_readdir_race": true, "-warn": true, "-nowarn": true, "-xattr": true,
	"-sparse": true, "-acl": true, "-help": true, "--help": true, "-version": true, "--version": true,
}

// findExecReadOnly are the programs find -exec may run on each file without
// asking: they only read the files named, and their arguments are checked
// like any other command's.
var findExecReadOnly = map[string]bool{
	"cat": true, "grep": true, "egrep": true, "fgrep": true, "head": true, "tail": true, "wc": true,
	"stat": true, "file": true, "ls": true, "du": true, "md5sum": true, "md5": true, "shasum": true,
	"sha1sum": true, "sha256sum": true, "sha512sum": true, "cksum": true, "strings": true, "basename": true,
	"dirname": true, "realpath": true, "readlink": true, "echo": true,
}

// findExecWords marks the words of find -exec that hold "{}": find puts a
// file name there, known only at run time. A lone "{}" (or one that starts
// a word) is a path beginning with a starting point, never an option,
// unless BSD find -f allowed a starting point that starts with '-'.
func findExecWords(words []arg, pathsAreOperands bool) []arg {
	out := make([]arg, len(words))
	for k, w := range words {
		out[k] = w
		if strings.Contains(w.val, "{}") {
			out[k].expanded = true
			out[k].path = pathsAreOperands && strings.HasPrefix(w.val, "{}")
		}
	}
	return out
}

// findNameTests select files by name or path. Only they count as narrowing a
// -delete under a protected folder: -type f or -mtime +0 still match nearly
// everything there.
var findNameTests = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-lname": true, "-ilname": true,
}

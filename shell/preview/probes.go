package preview

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
)

// findArgs are find's primaries that take arguments, and how many; a
// "-delete" in one of those places is a name, not the action.
var findArgs = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1,
	"-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-perm": 1, "-size": 1,
	"-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-Btime": 1, "-Bmin": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-samefile": 1, "-inum": 1, "-links": 1,
	"-maxdepth": 1, "-mindepth": 1, "-fstype": 1, "-used": 1, "-context": 1, "-regextype": 1,
	"-files0-from": 1, "-printf": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2,
	"-flags": 1, "-depth": 0,
}

// findOutputs are find's actions that print or write; in the preview's
// find they are replaced by an expression that is always true, so only
// the matches of the action being previewed are printed.
var findOutputs = map[string]bool{"-print": true, "-print0": true, "-ls": true, "-printf": true, "-fprint": true, "-fprint0": true, "-fls": true, "-fprintf": true}

// findRunners run other programs: what they return decides the rest of
// the expression, so a preview cannot evaluate it without running them.
var findRunners = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// previewFind counts what `find … -delete` would delete by running the
// same find with -delete replaced, at the same place in the expression, by
// -print0: -delete is an action that is true when it succeeds, so the
// replacement selects exactly what the real command deletes, even when
// filters follow it (`find . -delete -name x` deletes everything). The
// real command's -delete implies -depth, so the preview says -depth too.
func previewFind(a *analyzer, st *state, _ string, args []field) {
	for _, f := range args {
		if f.unknown != "" {
			a.unknown("find "+f.val, f.unknown)
			return
		}
	}
	vals := make([]string, len(args))
	for k, f := range args {
		vals[k] = f.val
	}
	split := plan.ReadFind(vals)
	var head, starts []string
	for _, k := range split.Head {
		head = append(head, vals[k])
	}
	for _, k := range split.Starts {
		starts = append(starts, vals[k])
	}
	i := split.Expr
	expr := args[i:]
	var out []string
	deletes, pruned, depth := false, false, false
	var rm *findRm
	for j := 0; j < len(expr); j++ {
		tok := expr[j].val
		switch {
		case findRunners[tok]:
			end := j + 1
			for end < len(expr) && expr[end].val != ";" && expr[end].val != "+" {
				end++
			}
			r := execRm(tok, expr[j+1:min(end, len(expr))])
			if r == nil || end == len(expr) {
				a.unknown("find", tok+" runs another program, which a preview does not do")
				return
			}
			// -exec rm … {} is true when rm succeeds, as -delete is, so
			// it is replaced the same way.
			rm = r
			out = append(out, "-print0")
			j = end
		case tok == "-prune":
			pruned = true
			out = append(out, tok)
		case tok == "-depth" || tok == "-d":
			depth = true
			out = append(out, tok)
		case tok == "-delete":
			out = append(out, "-print0")
			deletes = true
		case findOutputs[tok]:
			j += findArgs[tok]
			out = append(out, "(", "-type", "d", "-o", "!", "-type", "d", ")")
		default:
			out = append(out, tok)
			for k := 0; k < findArgs[tok] && j+1 < len(expr); k++ {
				j++
				out = append(out, expr[j].val)
			}
		}
	}
	if !deletes && rm == nil {
		return
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	if rm != nil && !deletes {
		// No -delete: find walks as written, -prune included.
		a.runFind(st.dir, append(append(head, starts...), out...), rm)
		return
	}
	if pruned && !depth {
		if runtime.GOOS == "linux" {
			// GNU find stops before it starts: -prune cannot work under
			// the -depth that -delete turns on.
			a.note("find: refuses to run, because -delete turns on -depth, under which -prune does nothing", false)
			return
		}
		a.say("find: -prune does nothing here, because -delete turns on -depth")
	}
	argv := append(append(append(head, starts...), "-depth"), out...)
	a.runFind(st.dir, argv, rm)
}

// findRm is an `-exec rm … {}` action of find.
type findRm struct{ recursive bool }

// execRm reads the command of a find -exec or -execdir: rm with its usual
// flags and {} as an operand, or nil for anything else (another program's
// success or failure would decide the rest of the expression).
func execRm(action string, words []field) *findRm {
	if action != "-exec" && action != "-execdir" || len(words) < 2 || filepath.Base(words[0].val) != "rm" {
		return nil
	}
	o := parseOpts(words[1:], "", "interactive")
	if o.has("iI", "interactive") {
		return nil
	}
	for _, f := range o.operands {
		if f.val != "{}" {
			return nil
		}
	}
	if len(o.operands) == 0 {
		return nil
	}
	return &findRm{recursive: o.has("rR", "recursive")}
}

// runFind runs find and counts what it prints, NUL-separated. rm, when
// set, is the `-exec rm` that the printing replaced: without -r it skips
// folders, with -r it removes each matched folder whole.
func (a *analyzer) runFind(dir string, argv []string, rm *findRm) {
	cmd := exec.CommandContext(a.ctx, "find", argv...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		a.unknown("find", err.Error())
		return
	}
	if err := cmd.Start(); err != nil {
		a.unknown("find", "find could not start ("+err.Error()+")")
		return
	}
	var t tally
	var listed []string
	var removed []string // folders rm -r takes whole
	var more int64       // matches beyond those listed
	skipped := 0
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	sc.Split(splitNUL)
	for sc.Scan() {
		p := sc.Text()
		if p == "." {
			continue // neither -delete nor rm removes the folder find starts in
		}
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(dir, full)
		}
		if slices.ContainsFunc(removed, func(d string) bool { return strings.HasPrefix(full, d+"/") }) {
			continue // inside a folder already counted whole
		}
		fi, err := os.Lstat(full)
		switch {
		case err != nil:
			continue
		case fi.IsDir() && rm != nil && !rm.recursive:
			skipped++
			continue
		case fi.IsDir() && rm != nil:
			t.add(a.walk(full))
			removed = append(removed, full)
			a.touch(full, true)
		case fi.IsDir():
			t.Folders++
			a.touch(full, false)
		default:
			t.Files++
			t.Bytes += fi.Size()
			a.touch(full, false)
		}
		if len(listed) < maxListed {
			listed = append(listed, a.shown(p))
		} else {
			more++
		}
	}
	werr := cmd.Wait()
	if a.ctx.Err() != nil {
		t.Partial = true
	} else if werr != nil && t.empty() {
		a.unknown("find", "find failed: "+firstLine(stderr.String(), werr))
		return
	}
	if skipped > 0 {
		a.note("find: matches "+count(int64(skipped), "folder", "folders")+", which rm without -r refuses", false)
	}
	if t.empty() && skipped > 0 {
		return
	}
	if t.empty() {
		a.note("find: matches nothing, so it deletes nothing", true)
		return
	}
	a.add(effDelete, t, func(size string) string { return "find matches " + t.words(size) })
	a.list(listed, int64(len(listed))+more)
}

// list adds up to maxListed paths as lines, and how many more there are.
func (a *analyzer) list(paths []string, total int64) {
	for _, p := range paths {
		a.say("  " + p)
	}
	if more := total - int64(len(paths)); more > 0 {
		a.say("  … and " + Thousands(more) + " more")
	}
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// previewGit covers the git commands that throw work away: clean (by its
// own dry run), reset --hard and checkout or restore of paths (by the
// changed files they would overwrite).
func previewGit(a *analyzer, st *state, _ string, args []field) {
	dir := st.dir
	var global []string
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		f := args[i]
		if f.unknown != "" {
			a.unknown("git", f.unknown)
			return
		}
		switch {
		case f.val == "-C" && i+1 < len(args):
			i++
			if args[i].unknown != "" {
				a.unknown("git -C "+args[i].val, args[i].unknown)
				return
			}
			dir = a.abs(&state{dir: dir}, args[i].val)
		case strings.HasPrefix(f.val, "--git-dir=") || strings.HasPrefix(f.val, "--work-tree="):
			global = append(global, f.val)
		case f.val == "-c" && i+1 < len(args):
			i++ // a setting for the real command; the preview keeps its guards
		case f.val == "--no-pager" || f.val == "-P" || f.val == "--no-replace-objects" || f.val == "--literal-pathspecs":
		default:
			return // an option the preview does not follow
		}
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].val, args[i+1:]
	for _, f := range rest {
		if f.unknown != "" {
			a.unknown("git "+sub+" "+f.val, f.unknown)
			return
		}
	}
	switch sub {
	case "clean":
		a.gitClean(dir, global, rest)
	case "reset":
		if hasArg(rest, "--hard") {
			a.gitLost(dir, global, "git reset --hard", true, nil)
		}
	case "checkout":
		a.gitCheckout(dir, global, rest)
	case "restore":
		o := parseOpts(rest, "s", "source", "pathspec-from-file")
		worktree := o.has("W", "worktree") || !o.has("S", "staged")
		if !worktree || len(o.operands) == 0 {
			return
		}
		_, src := o.short['s']
		if _, ok := o.long["source"]; ok {
			src = true
		}
		a.gitLost(dir, global, "git restore", src || o.has("S", "staged"), vals(o.operands))
	}
}

func hasArg(args []field, s string) bool {
	for _, f := range args {
		if f.val == "--" {
			return false
		}
		if policy.LongMatch(f.val, s) {
			return true
		}
	}
	return false
}

func vals(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.val
	}
	return out
}

// gitCheckout previews the forms of checkout that overwrite changed files:
// `checkout -- PATHS`, `checkout REV -- PATHS`, `checkout .` and
// `checkout -f`.
func (a *analyzer) gitCheckout(dir string, global []string, rest []field) {
	var before, paths []string
	dashes := false
	force := false
	for _, f := range rest {
		switch {
		case dashes:
			paths = append(paths, f.val)
		case f.val == "--":
			dashes = true
		case f.val == "-f" || policy.LongMatch(f.val, "--force"):
			force = true
		case strings.HasPrefix(f.val, "-"):
			if f.val == "-b" || f.val == "-B" || f.val == "--orphan" {
				return // a new branch keeps local changes
			}
		default:
			before = append(before, f.val)
		}
	}
	switch {
	case dashes && len(paths) > 0:
		a.gitLost(dir, global, "git checkout", len(before) > 0, paths)
	case !dashes && len(before) == 1 && before[0] == ".":
		a.gitLost(dir, global, "git checkout", false, []string{"."})
	case force:
		a.gitLost(dir, global, "git checkout -f", true, nil)
	}
}

// gitClean runs the same clean as a dry run and lists what it would remove.
func (a *analyzer) gitClean(dir string, global []string, rest []field) {
	if !cleanForced(rest) {
		// Without -f git clean removes nothing, unless the user's
		// configuration says otherwise.
		out, _ := a.git(dir, append(append([]string{}, global...), "config", "--type=bool", "--get", "clean.requireForce"))
		if strings.TrimSpace(out) != "false" {
			a.note("git clean: refuses to remove anything without -f", false)
			return
		}
	}
	argv := append(append([]string{}, global...), "clean", "-n")
	for _, f := range rest {
		v := f.val
		if slices.ContainsFunc([]string{"--force", "--dry-run", "--quiet", "--interactive"}, func(l string) bool { return policy.LongMatch(v, l) }) {
			continue
		}
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1 {
			// A cluster like -fdx: drop the letters that would stop the dry
			// run from printing, keep the others (and -e's pattern).
			var kept strings.Builder
			for j, r := range v[1:] {
				if r == 'e' {
					kept.WriteString(v[1+j:])
					break
				}
				if !strings.ContainsRune("fnqi", r) {
					kept.WriteRune(r)
				}
			}
			if kept.Len() == 0 {
				continue
			}
			v = "-" + kept.String()
		}
		argv = append(argv, v)
	}
	out, err := a.git(dir, argv)
	if err != nil {
		a.unknown("git clean", err.Error())
		return
	}
	var t tally
	var listed []string
	for _, l := range strings.Split(out, "\n") {
		p, ok := strings.CutPrefix(l, "Would remove ")
		if !ok {
			continue
		}
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(dir, full)
		}
		a.touch(full, true)
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			t.add(a.walk(full))
		} else if err == nil {
			t.Files++
			t.Bytes += fi.Size()
		}
		if len(listed) < maxListed {
			listed = append(listed, p)
		}
	}
	if len(listed) == 0 && t.empty() {
		a.note("git clean: nothing to remove", true)
		return
	}
	a.add(effDelete, t, func(size string) string { return "git clean removes " + t.words(size) + " not tracked by git" })
	a.list(listed, int64(strings.Count(out, "Would remove ")))
}

// cleanForced says whether git clean's arguments include -f (alone, in a
// cluster like -fdx, or as --force) or -i, which asks instead.
func cleanForced(rest []field) bool {
	for _, f := range rest {
		v := f.val
		if v == "--" {
			return false
		}
		if policy.LongMatch(v, "--force") || policy.LongMatch(v, "--interactive") {
			return true
		}
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") {
			cluster, _, _ := strings.Cut(v[1:], "e") // what follows -e is its pattern
			if strings.ContainsAny(cluster, "fi") {
				return true
			}
		}
	}
	return false
}

// gitLost lists the files whose uncommitted changes a command overwrites:
// against HEAD when the command resets the index too (reset --hard,
// checkout REV -- …), else the changes not yet staged.
func (a *analyzer) gitLost(dir string, global []string, what string, againstHead bool, paths []string) {
	argv := append(append([]string{}, global...), "diff", "--name-only", "-z", "--no-ext-diff", "--no-textconv", "--no-renames")
	if againstHead {
		argv = append(argv, "HEAD")
	}
	argv = append(append(argv, "--"), paths...)
	out, err := a.git(dir, argv)
	if err != nil {
		a.unknown(what, err.Error())
		return
	}
	var names []string
	for _, n := range strings.Split(out, "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		a.note(what+": no uncommitted changes to lose", true)
		return
	}
	t := tally{Files: int64(len(names))}
	a.add(effLose, t, func(size string) string { return what + " overwrites changes in " + t.words(size) + ":" })
	if len(names) > maxListed {
		a.list(names[:maxListed], int64(len(names)))
	} else {
		a.list(names, int64(len(names)))
	}
}

// git runs a read-only git command in dir and returns its output. Inside
// the sandbox, the environment already switches off the programs a
// repository's configuration could name (hooks, fsmonitor, pager).
func (a *analyzer) git(dir string, argv []string) (string, error) {
	full := append([]string{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}, argv...)
	cmd := exec.CommandContext(a.ctx, "git", full...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(a.ctx.Err(), context.DeadlineExceeded) {
		return "", errors.New("git took longer than the preview's time bound")
	}
	if err != nil {
		return "", fmt.Errorf("git %s failed: %s", argv[len(global(argv))], firstLine(stderr.String(), err))
	}
	return stdout.String(), nil
}

// global is the leading --git-dir/--work-tree options of argv.
func global(argv []string) []string {
	n := 0
	for n < len(argv) && strings.HasPrefix(argv[n], "--") {
		n++
	}
	return argv[:n]
}

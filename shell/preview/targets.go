package preview

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
)

// effect is what a command does to a target; each has the verb that the
// summary uses for it.
type effect int

const (
	effDelete effect = iota
	effMove
	effCopy
	effReplace
	effOverwrite
	effWriteInto
	effAppend
	effCreate
	effResize
	effMode
	effOwner
	effGroup
	effLose
)

var verbs = [...]string{
	effDelete:    "deletes",
	effMove:      "moves",
	effCopy:      "copies",
	effReplace:   "replaces",
	effOverwrite: "overwrites",
	effWriteInto: "writes into",
	effAppend:    "appends to",
	effCreate:    "creates",
	effResize:    "resizes",
	effMode:      "changes permissions of",
	effOwner:     "changes the owner of",
	effGroup:     "changes the group of",
	effLose:      "throws away uncommitted changes to",
}

// part is what one effect adds up to over the whole command.
type part struct {
	eff effect
	t   tally
}

// line is one line of the target list. One that counts toward a total
// writes its size only when the preview is rendered, once the Scale of
// that total is known.
type line struct {
	text   string                   // a line that counts nothing
	sized  func(size string) string // a line that counts, given its size as written
	after  string                   // words added to the line later (", to ~/x")
	counts bool
	eff    effect
	t      tally
}

// add counts t under eff and keeps the line that sized writes for the
// target list.
func (a *analyzer) add(eff effect, t tally, sized func(size string) string) {
	var p *part
	for _, q := range a.parts {
		if q.eff == eff {
			p = q
		}
	}
	if p == nil {
		p = &part{eff: eff}
		a.parts = append(a.parts, p)
	}
	p.t.add(t)
	a.lines = append(a.lines, line{sized: sized, counts: true, eff: eff, t: t})
}

// say keeps a line that counts nothing.
func (a *analyzer) say(text string) {
	a.lines = append(a.lines, line{text: text})
}

// note keeps a line about a target that changes nothing: missing, or
// refused by the program.
func (a *analyzer) note(text string, missing bool) {
	a.say(text)
	if missing {
		a.missing++
	} else {
		a.refused = append(a.refused, text)
	}
}

// programs are the commands a preview knows, by program name.
var programs = map[string]func(a *analyzer, st *state, name string, args []field){
	"rm":       previewRemove,
	"unlink":   previewRemove,
	"rmdir":    previewRemove,
	"shred":    previewShred,
	"mv":       previewTransfer,
	"cp":       previewTransfer,
	"chmod":    previewPermissions,
	"chown":    previewPermissions,
	"chgrp":    previewPermissions,
	"truncate": previewTruncate,
	"tee":      previewTee,
	"dd":       previewDD,
	"find":     previewFind,
	"git":      previewGit,
	"ln":       previewLink,
	"sed":      previewSedInPlace,
	"mkdir":    previewCreate,
	"touch":    previewCreate,
	"tar":      previewArchive,
	"zip":      previewArchive,
	"unzip":    previewArchive,
	"gzip":     previewArchive,
	"gunzip":   previewArchive,
}

// opts is a command line split the way getopt would: GNU tools accept
// options anywhere before "--", and a long option by any unambiguous
// prefix of its name (rm --recu is rm --recursive).
type opts struct {
	short    map[rune]string // -x, with its argument if it takes one
	long     map[string]string
	operands []field
}

// targetDir is the folder -t DIR or --target-directory=DIR names (mv,
// cp, ln), and whether one was given.
func (o opts) targetDir() (field, bool) {
	if d, ok := o.short['t']; ok {
		return field{val: d}, true
	}
	if d, ok := o.longVal("target-directory"); ok {
		return field{val: d}, true
	}
	return field{}, false
}

// longVal is the value of the long option name, given whole or
// abbreviated, and whether it was given.
func (o opts) longVal(name string) (string, bool) {
	for typed, v := range o.long {
		if longIs(typed, name) {
			return v, true
		}
	}
	return "", false
}

// longIs says whether typed (a long option's name as given, without its
// dashes) is, or abbreviates, name: the classifier's reading.
func longIs(typed, name string) bool { return policy.LongMatch("--"+typed, "--"+name) }

func (o opts) has(short string, long ...string) bool {
	for _, r := range short {
		if _, ok := o.short[r]; ok {
			return true
		}
	}
	for _, l := range long {
		if _, ok := o.longVal(l); ok {
			return true
		}
	}
	return false
}

// parseOpts splits args; shortArg lists the short options that take an
// argument and longArg the long ones.
func parseOpts(args []field, shortArg string, longArg ...string) opts {
	o := opts{short: map[rune]string{}, long: map[string]string{}}
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.unknown != "" || f.val == "-" || !strings.HasPrefix(f.val, "-"):
			o.operands = append(o.operands, f)
		case f.val == "--":
			o.operands = append(o.operands, args[i+1:]...)
			return o
		case strings.HasPrefix(f.val, "--"):
			name, val, hasVal := strings.Cut(f.val[2:], "=")
			if !hasVal && slices.ContainsFunc(longArg, func(l string) bool { return longIs(name, l) }) && i+1 < len(args) {
				i++
				val = args[i].val
			}
			o.long[name] = val
		default:
			cluster := []rune(f.val[1:])
			for j, r := range cluster {
				if strings.ContainsRune(shortArg, r) {
					val := string(cluster[j+1:])
					if val == "" && i+1 < len(args) {
						i++
						val = args[i].val
					}
					o.short[r] = val
					break
				}
				o.short[r] = ""
			}
		}
	}
	return o
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func previewRemove(a *analyzer, st *state, name string, args []field) {
	o := parseOpts(args, "", "interactive")
	recursive := name == "rm" && o.has("rR", "recursive")
	for _, f := range o.operands {
		a.target(st, effDelete, f, recursive, name, o.has("d", "dir"))
	}
}

func previewShred(a *analyzer, st *state, _ string, args []field) {
	o := parseOpts(args, "ns", "iterations", "size", "random-source")
	eff := effOverwrite
	if o.has("u", "remove") {
		eff = effDelete
	}
	for _, f := range o.operands {
		a.target(st, eff, f, false, "shred", false)
	}
}

func previewTruncate(a *analyzer, st *state, _ string, args []field) {
	o := parseOpts(args, "sr", "size", "reference")
	for _, f := range o.operands {
		a.written(st, effResize, "", f, o.has("c", "no-create"))
	}
}

func previewTee(a *analyzer, st *state, _ string, args []field) {
	o := parseOpts(args, "", "output-error")
	eff := effOverwrite
	if o.has("a", "append") {
		eff = effAppend
	}
	for _, f := range o.operands {
		a.written(st, eff, "tee ", f, false)
	}
}

func previewDD(a *analyzer, st *state, _ string, args []field) {
	eff := effOverwrite
	for _, f := range args {
		if v, ok := strings.CutPrefix(f.val, "conv="); ok && strings.Contains(v, "notrunc") {
			eff = effWriteInto
		}
	}
	for _, f := range args {
		if v, ok := strings.CutPrefix(f.val, "of="); ok {
			a.written(st, eff, "dd of=", field{val: v, unknown: f.unknown}, false)
		}
	}
}

// previewTransfer covers mv and cp: what moves or is copied, and which
// existing files at the destination it replaces.
func previewTransfer(a *analyzer, st *state, name string, args []field) {
	o := parseOpts(args, "tS", "target-directory", "suffix", "backup", "sparse", "reflink", "preserve", "no-preserve", "update")
	recursive := name == "mv" || o.has("rRa", "recursive", "archive")
	update, _ := o.longVal("update")
	keep := o.has("n", "no-clobber") || update == "none"
	srcs := o.operands
	dest, dirGiven := o.targetDir()
	if !dirGiven {
		if len(srcs) < 2 {
			return // a usage error: the program says so itself
		}
		dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
	}
	destAbs := ""
	if dest.unknown != "" {
		a.unknown(a.shown(dest.val), dest.unknown)
	} else {
		destAbs = a.abs(st, dest.val)
	}
	intoDir := dirGiven
	if destAbs != "" && !o.has("T", "no-target-directory") {
		if fi, err := os.Stat(destAbs); err == nil && fi.IsDir() {
			intoDir = true
		}
	}
	if len(srcs) > 1 && !intoDir && destAbs != "" {
		a.note(a.display(st, dest.val)+": not a folder, so "+name+" refuses to put several files there", false)
		return
	}
	eff := effMove
	if name == "cp" {
		eff = effCopy
	}
	for _, s := range srcs {
		if !a.target(st, eff, s, recursive, name, false) || destAbs == "" {
			continue
		}
		land, landShown := destAbs, dest.val
		if intoDir {
			base := filepath.Base(strings.TrimSuffix(a.abs(st, s.val), "/"))
			land, landShown = filepath.Join(destAbs, base), filepath.Join(dest.val, base)
		}
		a.lines[len(a.lines)-1].after += ", to " + a.display(st, landShown)
		a.landing(name, land, a.display(st, landShown), a.abs(st, s.val), keep)
	}
}

// previewLink covers ln -f, which replaces what is at the link's place;
// without -f, ln refuses to replace anything, so there is nothing to show.
func previewLink(a *analyzer, st *state, _ string, args []field) {
	o := parseOpts(args, "tS", "target-directory", "suffix", "backup")
	force := o.has("f", "force") // without it ln replaces nothing: only the scope needs the link's place
	srcs := o.operands
	dest, dirGiven := o.targetDir()
	if !dirGiven {
		switch len(srcs) {
		case 0:
			return
		case 1:
			dest = field{val: "."} // ln -sf /x/y makes ./y
		default:
			dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
		}
	}
	if dest.unknown != "" {
		a.unknown(a.shown(dest.val), dest.unknown)
		return
	}
	destAbs := a.abs(st, dest.val)
	intoDir := dirGiven
	if !o.has("T", "no-target-directory") && !o.has("n", "no-dereference") {
		if fi, err := os.Stat(destAbs); err == nil && fi.IsDir() {
			intoDir = true
		}
	}
	for _, s := range srcs {
		if s.unknown != "" {
			a.unknown(a.shown(s.val), s.unknown)
			continue
		}
		land, landShown := destAbs, dest.val
		if intoDir {
			base := filepath.Base(strings.TrimSuffix(s.val, "/"))
			land, landShown = filepath.Join(destAbs, base), filepath.Join(dest.val, base)
		}
		if force {
			a.landing("ln", land, a.display(st, landShown), "", false)
		} else {
			a.change(land, false, false, false)
		}
	}
}

// previewSedInPlace covers sed -i, which rewrites each file it is given,
// read as plan.ReadSed reads sed's line. GNU sed takes -i's backup suffix
// attached (-i.bak); BSD and macOS sed take it as the next argument,
// often an empty one.
func previewSedInPlace(a *analyzer, st *state, _ string, args []field) {
	vals := make([]string, len(args))
	for i, f := range args {
		if f.unknown == "" {
			vals[i] = f.val // a word Hark cannot tell stays "": an operand
		}
	}
	sed := plan.ReadSed(vals, runtime.GOOS != "linux")
	if !sed.InPlace {
		return
	}
	for _, i := range sed.Files {
		a.written(st, effOverwrite, "sed -i ", args[i], true)
	}
}

// landing notes what already exists where a moved or copied file lands;
// shown is how the line names it.
func (a *analyzer) landing(tool, land, shown, src string, keep bool) {
	fi, err := os.Lstat(land)
	if err != nil {
		a.change(land, false, false, false) // made there
		return                              // nothing there: nothing is replaced
	}
	a.change(land, fi.IsDir(), true, false)
	if same, err := os.Lstat(src); err == nil && os.SameFile(fi, same) {
		return
	}
	if !keep {
		a.touch(land, fi.IsDir()) // cp merges into a folder there, replacing what has the same names
	}
	switch {
	case keep:
		a.say(shown + ": exists and is kept (" + tool + " -n)")
	case fi.IsDir():
		if tool == "mv" {
			a.say(shown + ": a folder is already there; mv replaces it only if it is empty")
		} else {
			a.say(shown + ": a folder is already there; cp merges into it, replacing files with the same names")
		}
	default:
		kind := kindOf(fi)
		a.add(effReplace, tally{Files: 1, Bytes: fi.Size()}, func(size string) string {
			return shown + ": " + kind + " already there, " + size + ", replaced"
		})
	}
}

// previewPermissions covers chmod, chown and chgrp: the first operand is
// the mode or owner, the rest are targets.
func previewPermissions(a *analyzer, st *state, name string, args []field) {
	eff := map[string]effect{"chmod": effMode, "chown": effOwner, "chgrp": effGroup}[name]
	var rest []field
	haveSpec := false
	for i, f := range args {
		if name, _, _ := strings.Cut(f.val, "="); f.unknown == "" && policy.LongMatch(name, "--reference") {
			haveSpec = true
		}
		if name == "chmod" && !haveSpec && isModeArg(f.val) {
			// chmod -w file: -w is the mode, not an option.
			rest = append(append(rest, args[:i]...), args[i+1:]...)
			haveSpec = true
			break
		}
	}
	if rest == nil {
		rest = args
	}
	o := parseOpts(rest, "", "reference", "from")
	targets := o.operands
	if !haveSpec {
		if len(targets) == 0 {
			return
		}
		targets = targets[1:]
	}
	recursive := o.has("R", "recursive")
	for _, f := range targets {
		a.target(st, eff, f, recursive, name, false)
	}
}

// isModeArg says whether a chmod argument that starts with "-" is a mode
// (-w, -rwx, -x+r) rather than one of chmod's options (-R, -f, -v, -c and
// BSD's -H, -L, -P, -h).
func isModeArg(s string) bool {
	if len(s) < 2 || s[0] != '-' || strings.HasPrefix(s, "--") {
		return false
	}
	for _, r := range s[1:] {
		if !strings.ContainsRune("RfvcHLPh", r) {
			return strings.Trim(s[1:], "rwxXstugoa+-=,01234567") == ""
		}
	}
	return false
}

// target previews one named file or folder under eff. It reports whether
// the target exists (and is not refused).
func (a *analyzer) target(st *state, eff effect, f field, recursive bool, tool string, emptyDirs bool) bool {
	if a.late() {
		return false
	}
	if f.unknown != "" {
		a.unknown(a.shown(f.val), f.unknown)
		return false
	}
	p := a.abs(st, f.val)
	if a.already(eff, p) {
		return false
	}
	shown := a.display(st, f.val)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		a.note(shown+": no such file or folder", true)
		return false
	}
	if err != nil {
		a.unknown(shown, "it cannot be read ("+errText(err)+")")
		return false
	}
	switch eff {
	case effDelete, effMove, effOverwrite, effResize, effWriteInto, effAppend, effLose, effMode, effOwner, effGroup:
		a.change(p, fi.IsDir() && (recursive || eff == effMove), true, eff == effDelete || eff == effMove)
	}
	switch {
	case fi.IsDir() && (recursive || eff == effMove):
		a.counted[eff][len(a.counted[eff])-1].whole = true
		a.touch(p, true)
		t := a.walk(p)
		a.add(eff, t, func(size string) string { return shown + ": " + wholeFolder(t, size) })
	case fi.IsDir() && eff == effDelete:
		empty := isEmptyDir(p)
		switch {
		case (tool == "rmdir" || emptyDirs) && empty:
			a.touch(p, false)
			a.add(eff, tally{Folders: 1}, func(string) string { return shown + ": empty folder" })
		case tool == "rmdir" || emptyDirs:
			a.note(shown+": folder that is not empty, so "+tool+" refuses it", false)
		default:
			a.note(shown+": folder, so "+tool+" without -r refuses it", false)
		}
		return false
	case fi.IsDir() && eff == effCopy:
		a.note(shown+": folder, so cp without -r skips it", false)
		return false
	case fi.IsDir():
		a.touch(p, false)
		a.add(eff, tally{Folders: 1}, func(string) string { return shown + ": folder (only the folder itself)" })
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(p)
		// The link counts as itself: the bytes of the path it holds,
		// which the line shows so that the lines add up to the total.
		desc := "link to " + a.shown(to)
		note := ""
		switch eff {
		case effDelete, effMove:
			note = " (only the link itself)"
		case effMode, effOwner, effGroup:
			note = " (" + tool + " changes what it points to)"
			if real, err := filepath.EvalSymlinks(p); err == nil {
				a.touch(real, false)
			}
		}
		a.touch(p, false)
		a.add(eff, tally{Files: 1, Bytes: fi.Size()}, func(size string) string { return shown + ": " + desc + ", " + size + note })
	default:
		a.touch(p, false)
		kind := kindOf(fi)
		a.add(eff, tally{Files: 1, Bytes: fi.Size()}, func(size string) string { return shown + ": " + kind + ", " + size })
	}
	return true
}

// wholeFolder describes a folder taken with everything it holds, t
// counting the folder itself. The folder is one of the folders the total
// above counts, so a line with folders inside names the same number and
// says where it comes from: "8 folders (this one and 7 inside), 19 files"
// under "Deletes 8 folders, 19 files", never "folder with 7 folders".
func wholeFolder(t tally, size string) string {
	inner := t
	inner.Folders--
	switch {
	case inner.empty():
		return "empty folder"
	case inner.Folders == 0:
		return "folder with " + inner.words(size)
	}
	folders := count(t.Folders, "folder", "folders")
	return strings.Replace(t.words(size), folders, folders+" (this one and "+Thousands(inner.Folders)+" inside)", 1)
}

// written previews a file that a redirection or a writing program opens:
// it is created, overwritten, appended to or resized. label says how
// ("> ", "tee ", "dd of=").
func (a *analyzer) written(st *state, eff effect, label string, f field, noCreate bool) {
	if a.late() {
		return
	}
	if f.unknown != "" {
		a.unknown(label+a.shown(f.val), f.unknown)
		return
	}
	p := a.abs(st, f.val)
	if a.already(eff, p) {
		return
	}
	shown := label + a.display(st, f.val)
	fi, err := os.Stat(p) // writes go through a link to what it points to
	if real, rerr := filepath.EvalSymlinks(p); rerr == nil {
		a.touch(real, false)
		a.change(real, false, err == nil && fi.Mode().IsRegular(), false)
	} else {
		a.change(p, false, false, false)
	}
	a.touch(p, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if noCreate {
			a.note(shown+": no such file", true)
			return
		}
		if _, perr := os.Stat(filepath.Dir(p)); perr != nil {
			if a.made[filepath.Clean(filepath.Dir(p))] {
				// An earlier part of the line makes it: read in order.
				a.add(effCreate, tally{Files: 1}, func(string) string { return shown + ": new file, in a folder the command makes first" })
				return
			}
			a.note(shown+": its folder does not exist, so this fails", false)
			return
		}
		a.add(effCreate, tally{Files: 1}, func(string) string { return shown + ": new file" })
	case err != nil:
		a.unknown(shown, "it cannot be read ("+errText(err)+")")
	case fi.IsDir():
		a.note(shown+": a folder, which cannot be written like a file", false)
	case !fi.Mode().IsRegular():
		a.say(shown + ": " + kindOf(fi) + ", written to")
	default:
		how := map[effect]string{effOverwrite: "overwritten", effAppend: "appended to", effWriteInto: "written into", effResize: "resized"}[eff]
		a.add(eff, tally{Files: 1, Bytes: fi.Size()}, func(size string) string { return shown + ": existing file, " + size + ", " + how })
	}
}

// already says whether the current command's p, under eff, was counted
// at another folder it may run in (as itself or inside a folder counted
// whole), and else marks it counted.
func (a *analyzer) already(eff effect, p string) bool {
	if a.counted == nil {
		a.counted = map[effect][]counted{}
	}
	p = filepath.Clean(p)
	for _, q := range a.counted[eff] {
		if p == q.path || q.whole && strings.HasPrefix(p, q.path+"/") {
			return true
		}
	}
	a.counted[eff] = append(a.counted[eff], counted{path: p})
	return false
}

// touch records a path the preview shows as changed (with everything
// under it when whole), so that a test can hold the preview to what bash
// then does.
func (a *analyzer) touch(p string, whole bool) {
	a.touched = append(a.touched, counted{path: filepath.Clean(p), whole: whole})
}

// late says whether the time bound has passed, and counts the target
// that is then left unlooked at.
func (a *analyzer) late() bool {
	if a.ctx.Err() == nil {
		return false
	}
	a.skipped++
	return true
}

// walk counts root and everything under it. Links are counted as
// themselves and never followed; the walk stops at the time bound and
// marks the tally partial.
func (a *analyzer) walk(root string) tally {
	t := tally{Folders: 1}
	stack := []string{root}
	seen := 0
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable: its contents cannot be counted
		}
		for _, e := range entries {
			if seen++; seen%256 == 0 && a.ctx.Err() != nil {
				t.Partial = true
				return t
			}
			if e.IsDir() {
				t.Folders++
				stack = append(stack, filepath.Join(dir, e.Name()))
				continue
			}
			t.Files++
			if info, err := e.Info(); err == nil {
				t.Bytes += info.Size()
			}
		}
	}
	return t
}

func isEmptyDir(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}

func kindOf(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "link"
	case m&fs.ModeNamedPipe != 0:
		return "pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// errText is an error without the path that the line already shows.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// previewCreate covers mkdir and touch: they make what they name (touch
// changes only the times of what exists), which no line shows, but the
// run's scope needs: the place is recorded for it (see Quiet).
func previewCreate(a *analyzer, st *state, name string, args []field) {
	o := parseOpts(args, map[string]string{"mkdir": "m", "touch": "drt"}[name], "mode", "context", "date", "reference", "time")
	for _, f := range o.operands {
		if f.unknown != "" {
			a.unknown(name+" "+a.shown(f.val), f.unknown)
			continue
		}
		p := a.abs(st, f.val)
		_, err := os.Lstat(p)
		a.change(p, false, err == nil, false)
		if name == "mkdir" {
			if a.made == nil {
				a.made = map[string]bool{}
			}
			a.made[filepath.Clean(p)] = true
		}
	}
}

// previewArchive covers what tar, zip, unzip, gzip and gunzip write, for
// the run's scope alone (see Quiet): the archive tar -c or zip makes, the
// folder tar -x or unzip fills (-C, -d, or the one it runs in), and the
// file gzip and gunzip replace. A mode it cannot tell, or a name it cannot
// know, makes the preview unsure, and the scope falls back to the folder
// the command runs in.
func previewArchive(a *analyzer, st *state, name string, args []field) {
	here := field{val: st.dir}
	switch name {
	case "tar":
		o := parseOpts(args, "fCbHKLNTVXg", "file", "directory", "exclude", "transform", "files-from", "format", "owner", "group", "mode", "mtime", "newer", "use-compress-program")
		mode := ""
		for k := range o.short {
			if strings.ContainsRune("cxtrudA", k) {
				mode += string(k)
			}
		}
		for k := range o.long {
			switch {
			case longIs(k, "create"):
				mode += "c"
			case longIs(k, "extract"), longIs(k, "get"):
				mode += "x"
			case longIs(k, "list"):
				mode += "t"
			}
		}
		if mode == "" && len(o.operands) > 0 && !strings.HasPrefix(o.operands[0].val, "-") {
			// tar czf a.tgz …: the first word is the options, bundled
			mode, o = bundledTar(args)
		}
		file, hasFile := o.short['f']
		if !hasFile {
			file, hasFile = o.longVal("file")
		}
		switch {
		case mode == "t":
		case strings.ContainsAny(mode, "cru") && hasFile && file != "" && file != "-":
			a.written(st, effCreate, "tar ", field{val: file}, false)
		case mode == "x":
			dir := here
			if c, ok := o.short['C']; ok {
				dir = field{val: c}
			} else if c, ok := o.longVal("directory"); ok {
				dir = field{val: c}
			}
			a.change(a.abs(st, dir.val), true, true, false)
		default:
			a.unknown("tar", "Hark cannot tell what this tar writes")
		}
	case "zip":
		o := parseOpts(args, "btnxiP", "temp-path", "suffixes", "exclude", "include", "password")
		if len(o.operands) > 0 {
			a.written(st, effCreate, "zip ", o.operands[0], false)
		}
	case "unzip":
		o := parseOpts(args, "dxP", "")
		dir := here
		if d, ok := o.short['d']; ok {
			dir = field{val: d}
		}
		a.change(a.abs(st, dir.val), true, true, false)
	case "gzip", "gunzip":
		o := parseOpts(args, "S", "suffix")
		for _, f := range o.operands {
			if f.unknown != "" {
				a.unknown(name, f.unknown)
				continue
			}
			a.change(a.abs(st, f.val), false, true, true) // replaced by its (un)compressed twin
		}
	}
}

// bundledTar reads tar's old form, options bundled in the first word
// without a dash (tar czf a.tgz dir): f and C take the next words.
func bundledTar(args []field) (string, opts) {
	o := opts{short: map[rune]string{}, long: map[string]string{}}
	first, rest := args[0].val, args[1:]
	mode := ""
	for _, k := range first {
		switch {
		case strings.ContainsRune("cxtru", k):
			mode += string(k)
			o.short[k] = ""
		case k == 'f' || k == 'C':
			if len(rest) > 0 {
				o.short[k], rest = rest[0].val, rest[1:]
			}
		default:
			o.short[k] = ""
		}
	}
	o.operands = rest
	return mode, o
}

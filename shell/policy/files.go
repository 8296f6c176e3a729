package policy

import "strings"

// rmCheck: rm always asks; a recursive deletion of /, a home directory or a
// system root (directly, through a glob, or after cd) is never run.
func rmCheck(in *invocation) {
	recursive, unknownFlags := false, false
	var targets []arg
	ended := false
	for _, a := range in.args {
		v := a.val
		if a.expanded && !a.home {
			unknownFlags = true // could be -rf
		}
		if !ended && v == "--" {
			ended = true
			continue
		}
		if !ended && a.option() && !a.expanded {
			switch {
			case v == "--no-preserve-root":
				in.forbid("--no-preserve-root: deleting / is never run")
				return
			case longMatch(v, "--recursive"):
				recursive = true
			case !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], "rR"):
				recursive = true
			}
			continue
		}
		targets = append(targets, a)
	}
	// Arguments xargs or find -exec add later do not take away the ones written here.
	if recursive || unknownFlags {
		for _, t := range targets {
			if root, ok := in.c.p.protectedTarget(t, in.c.cwd); ok {
				in.forbid("recursive deletion of " + root + " is never run")
				return
			}
			if name, root, ok := emptyVariableRoot(in.c.p, t, in.c.assigned, in.c.cwd); ok {
				in.forbid("recursive deletion of " + root + " if $" + name + " is empty is never run")
				return
			}
		}
	}
	if recursive || unknownFlags {
		if what := unknownTargets(targets); what != "" && in.c.opaque {
			in.confirm("deletes " + what + ", which Hark cannot know before it runs")
			return
		}
	}
	in.confirm("deletes files")
}

// unknownTargets names the targets whose value is only known when the
// command runs ("what $1 holds"), or "".
func unknownTargets(targets []arg) string {
	var what []string
	for _, t := range targets {
		switch {
		case !t.expanded || t.home:
		case strings.Contains(t.val, "…"):
			what = append(what, "the names a command prints")
		default:
			what = append(what, "what "+t.val+" holds")
		}
	}
	return strings.Join(what, " and ")
}

// emptyVariableRoot reports whether target names a protected root once
// the variables in it that this command never assigns are empty, as they
// may well be: "$dir/", "/$x", "~/$sub" and "/usr/$x/*" all qualify. It
// returns the first such variable and the root.
func emptyVariableRoot(pol *Policy, t arg, assigned map[string]bool, cwd string) (string, string, bool) {
	v := t.val
	if !t.expanded || strings.Contains(v, "…") {
		return "", "", false
	}
	var b strings.Builder
	first := ""
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			b.WriteByte(v[i])
			continue
		}
		j := i + 1
		for j < len(v) && (v[j] == '_' || v[j] >= 'a' && v[j] <= 'z' || v[j] >= 'A' && v[j] <= 'Z' || v[j] >= '0' && v[j] <= '9') {
			j++
		}
		name := v[i+1 : j]
		switch {
		case name == "" || assigned[name]:
			return "", "", false
		case trustedParams[name]:
			b.WriteString(v[i:j])
		case first == "":
			first = name
		}
		i = j - 1
	}
	rest := b.String()
	if first == "" || rest == "" {
		return "", "", false
	}
	root, ok := pol.protectedTarget(arg{val: rest, home: t.home || strings.HasPrefix(rest, "~")}, cwd)
	return first, root, ok
}

// deleteCheck: unlink and shred delete; shredding a device erases a disk.
func deleteCheck(why string) check {
	return func(in *invocation) {
		for _, a := range operands(in.args) {
			if isDiskDevice(a.val) {
				in.forbidAs(Disk, "", "erasing a disk is never run")
				return
			}
			if root, ok := in.c.p.protectedTarget(a, in.c.cwd); ok && in.name == "shred" {
				in.forbid("destroying the files of " + root + " is never run")
				return
			}
		}
		in.confirm(why)
	}
}

// permCheck: recursive permission or ownership changes of protected
// directories are never run; any other change asks.
func permCheck(why string) check {
	return func(in *invocation) {
		recursive := false
		var ops []arg
		ended := false
		for _, a := range in.args {
			if !ended && a.val == "--" {
				ended = true
				continue
			}
			if !ended && a.option() && !(in.name == "chmod" && isModeLike(a.val)) {
				if strings.HasPrefix(a.val, "--") {
					recursive = recursive || longMatch(a.val, "--recursive")
				} else if strings.ContainsRune(a.val[1:], 'R') {
					recursive = true
				}
				continue
			}
			ops = append(ops, a)
		}
		if recursive && len(ops) > 1 {
			for _, t := range ops[1:] {
				if root, ok := in.c.p.protectedTarget(t, in.c.cwd); ok {
					in.forbid("recursive change of " + root + " is never run")
					return
				}
				if name, root, ok := emptyVariableRoot(in.c.p, t, in.c.assigned, in.c.cwd); ok {
					in.forbid("recursive change of " + root + " if $" + name + " is empty is never run")
					return
				}
			}
		}
		in.confirm(why)
	}
}

// isModeLike reports whether a chmod argument starting with '-' is a mode
// ("-x", "-w") rather than an option.
func isModeLike(v string) bool {
	return len(v) > 1 && strings.Trim(v[1:], "rwxXst") == ""
}

func teeCheck(in *invocation) {
	for _, a := range operands(in.args) {
		if isDiskDevice(a.val) {
			in.forbidAs(Disk, "", "writing onto a disk device erases it and is never run")
			return
		}
	}
	for _, a := range operands(in.args) {
		if paths[a.val] != sink {
			in.confirm("writes files")
			return
		}
	}
}

func ddCheck(in *invocation) {
	for _, a := range in.args {
		if out, ok := strings.CutPrefix(a.val, "of="); ok {
			switch {
			case isDiskDevice(out):
				in.forbidAs(Disk, a.val, "writing onto a disk device erases it and is never run")
			case paths[out] != sink:
				in.confirmOpt(a.val, "writes a file")
			}
		}
	}
}

// diskTargetCheck: copying onto a disk device erases it; any other copy
// asks. Only the destination counts: reading a disk into an image is fine.
func diskTargetCheck(why string) check {
	return func(in *invocation) { diskTarget(in, why) }
}

func diskTarget(in *invocation, why string) {
	ops := operands(in.args)
	var dests []arg
	if len(ops) > 1 {
		dests = append(dests, ops[len(ops)-1])
	}
	for i, a := range in.args {
		if a.val == "-t" && i+1 < len(in.args) {
			dests = append(dests, in.args[i+1])
		} else if v, ok := strings.CutPrefix(a.val, "--target-directory="); ok {
			dests = append(dests, arg{val: v})
		}
	}
	for _, d := range dests {
		if isDiskDevice(d.val) {
			in.forbidAs(Disk, "", "writing onto a disk device erases it and is never run")
			return
		}
	}
	switch in.name {
	case "mv":
		// Moving /, a home folder or a system root (or everything in one)
		// away is its deletion from where it was.
		for i, a := range ops {
			if i == len(ops)-1 && len(dests) > 0 && dests[0].val == a.val && !hasTargetDir(in.args) {
				break // the destination
			}
			if root, ok := in.c.p.protectedTarget(a, in.c.cwd); ok {
				in.forbid("moving " + root + " away is never run")
				return
			}
		}
	case "rsync":
		if rsyncDeletes(in.args) {
			for _, d := range dests {
				if root, ok := in.c.p.protectedTarget(d, in.c.cwd); ok {
					in.forbid("--delete into " + root + " removes everything the source lacks and is never run")
					return
				}
			}
		}
	}
	versionOr(why)(in)
}

func hasTargetDir(args []arg) bool {
	for _, a := range args {
		if a.val == "-t" || strings.HasPrefix(a.val, "--target-directory") {
			return true
		}
	}
	return false
}

// rsyncDeletes says whether rsync removes files at the destination that
// the source lacks (--delete and its variants, abbreviated or not).
func rsyncDeletes(args []arg) bool {
	for _, a := range args {
		if a.val == "--" {
			return false
		}
		if strings.HasPrefix(a.val, "--del") {
			return true
		}
	}
	return false
}

// tarCheck: tar only lists with -t (--list) and no option outside a short
// list of ones that choose what to print: others extract or create, run
// programs (--to-command, -I, --use-compress-program, --checkpoint-action,
// --info-script, --rsh-command) or write files (--index-file, -g). GNU
// tar opens host:file over rsh unless --force-local.
func tarCheck(in *invocation) {
	listing, forceLocal := false, false
	var files []string
	args := in.args
	letters := func(cluster string, dashed bool, rest *[]arg) bool {
		for j := 0; j < len(cluster); j++ {
			c := cluster[j]
			switch {
			case c == 't':
				listing = true
			case strings.IndexByte("vzjJZOqP", c) >= 0:
			case c == 'f' || c == 'T' || c == 'X':
				var val string
				switch {
				case dashed && j+1 < len(cluster):
					val, j = cluster[j+1:], len(cluster) // -fNAME
				case len(*rest) > 0:
					val, *rest = (*rest)[0].val, (*rest)[1:]
				}
				if c == 'f' {
					files = append(files, val)
				}
			case strings.IndexByte("xcruAd", c) >= 0:
				in.confirm("creates or extracts archives")
				return false
			default:
				in.confirmOpt("-"+string(c), "can write files or run programs")
				return false
			}
		}
		return true
	}
	rest := args
	// The old style: a first word without a dash is a cluster of letters
	// whose values follow in order.
	if len(rest) > 0 && !strings.HasPrefix(rest[0].val, "-") {
		first := rest[0].val
		rest = rest[1:]
		if !letters(first, false, &rest) {
			return
		}
	}
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		v := a.val
		switch {
		case v == "--":
			rest = nil
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			switch {
			case longMatch(name, "--list"):
				listing = true
			case longMatch(name, "--file"):
				if !hasVal && len(rest) > 0 {
					val, rest = rest[0].val, rest[1:]
				}
				files = append(files, val)
			case longMatch(name, "--force-local"):
				forceLocal = true
			case longMatch(name, "--files-from") || longMatch(name, "--exclude-from") || longMatch(name, "--exclude") || longMatch(name, "--quoting-style") || longMatch(name, "--occurrence"):
				if !hasVal && !longMatch(name, "--occurrence") && len(rest) > 0 {
					rest = rest[1:]
				}
			case longMatch(name, "--verbose") || longMatch(name, "--gzip") || longMatch(name, "--gunzip") || longMatch(name, "--bzip2") ||
				longMatch(name, "--xz") || longMatch(name, "--zstd") || longMatch(name, "--lzma") || longMatch(name, "--lzip") ||
				longMatch(name, "--wildcards") || longMatch(name, "--no-wildcards") || longMatch(name, "--anchored") ||
				longMatch(name, "--no-anchored") || longMatch(name, "--numeric-owner") || longMatch(name, "--full-time") ||
				longMatch(name, "--utc") || longMatch(name, "--ignore-case") || longMatch(name, "--null") || longMatch(name, "--to-stdout") ||
				longMatch(name, "--absolute-names") || longMatch(name, "--show-transformed-names") || longMatch(name, "--verbatim-files-from"):
			default:
				in.confirmOpt(v, "can write files or run programs")
				return
			}
		case a.option():
			if !letters(v[1:], true, &rest) {
				return
			}
		}
	}
	if !listing {
		in.confirm("creates or extracts archives")
		return
	}
	for _, f := range files {
		if i := strings.IndexByte(f, ':'); i >= 0 && !forceLocal && !strings.Contains(f[:i], "/") {
			in.confirmAs(Network, "-f "+f, "reads an archive on another machine over the network")
			return
		}
	}
}

// sortOptions are GNU and BSD sort's options.
var sortOptions = optionSpec{
	short: "ktSTo",
	long: []string{"--key", "--field-separator", "--buffer-size", "--temporary-directory", "--output", "--batch-size",
		"--compress-program", "--files0-from", "--random-source", "--parallel", "--sort"},
	flags: []string{"--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort",
		"--ignore-nonprinting", "--month-sort", "--human-numeric-sort", "--numeric-sort", "--random-sort", "--reverse",
		"--version-sort", "--check", "--merge", "--stable", "--unique", "--zero-terminated", "--debug", "--help", "--version"},
	abbrev: true,
}

// sortCheck: sort writes its output to the file -o names, its temporary
// files to the folder -T names (GNU sort leaves them there when killed),
// and runs the program --compress-program names on them.
func sortCheck(in *invocation) {
	p := sortOptions.parse(in.args)
	if p.unsure != "" {
		in.confirmOpt(p.unsure, "cannot tell whether the abbreviated option writes a file")
		return
	}
	if f, ok := p.has("--compress-program"); ok {
		in.confirmAs(Code, f, "runs a program to compress its temporary files")
		return
	}
	if f, ok := p.has("-o", "--output"); ok {
		in.confirmOpt(f, "writes its output to a file")
		return
	}
	if f, ok := p.has("-T", "--temporary-directory"); ok {
		in.confirmOpt(f, "writes temporary files to the folder it names")
	}
}

// xxdValue are xxd's options that take a value: written alone (-s) they
// take the next word; in the same word (-s10) the rest is the value.
const xxdValue = "cglnosR"

// xxdCheck: xxd reads options only up to its first operand, and then
// takes the operands as [infile [outfile]], so in `xxd in.txt -pwned` the
// second is the file it writes, whatever it looks like ("-" alone is
// standard output). A long spelling (-len 16) is counted as if it took no
// value, which can only make xxd ask.
func xxdCheck(in *invocation) {
	i := 0
	for ; i < len(in.args); i++ {
		v := in.args[i].val
		if v == "--" {
			i++
			break
		}
		if !in.args[i].option() {
			break
		}
		o := strings.TrimPrefix(v, "-")
		if len(o) > 1 && o[0] == '-' {
			o = o[1:]
		}
		if len(o) == 1 && strings.IndexByte(xxdValue, o[0]) >= 0 {
			i++
		}
	}
	ops := in.args[min(i, len(in.args)):]
	if len(ops) > 1 && ops[1].val != "-" {
		in.confirmOpt(ops[1].val, "writes its output to a file")
	}
}

package policy

import (
	"slices"
	"strings"
	"unicode"
)

// aptConfig: -o and -c set APT configuration, which names the programs APT
// runs (Dir::Bin::dpkg, hooks).
var aptConfig = noFlags("sets configuration that names programs to run", "oc", "--option", "--config-file")

// brewFormulaFile: brew info, deps, desc and the like load a formula or
// cask given as a file (x.rb, ./x, /path/x) or URL, and a formula is Ruby
// that runs as it loads. Named formulae come from installed taps.
func brewFormulaFile(in *invocation) {
	for _, a := range operands(in.args) {
		v := a.val
		if strings.HasSuffix(v, ".rb") || strings.Contains(v, "://") || a.home ||
			strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
			in.confirmAs(Code, v, "loads a formula file, which is Ruby code that runs")
			return
		}
	}
}

// checkRm: rm always asks; a recursive deletion of /, a home directory or a
// system root (directly, through a glob, or after cd) is never run.
func checkRm(in *invocation) {
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
			if root, ok := protectedTarget(t, in.c.cwd); ok {
				in.forbid("recursive deletion of " + root + " is never run")
				return
			}
			if name, root, ok := emptyVariableRoot(t, in.c.assigned, in.c.cwd); ok {
				in.forbid("recursive deletion of " + root + " if $" + name + " is empty is never run")
				return
			}
		}
	}
	in.confirm("deletes files")
}

// emptyVariableRoot reports whether target names a protected root once
// the variables in it that this command never assigns are empty, as they
// may well be: "$dir/", "/$x", "~/$sub" and "/usr/$x/*" all qualify. It
// returns the first such variable and the root.
func emptyVariableRoot(t arg, assigned map[string]bool, cwd string) (string, string, bool) {
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
	root, ok := protectedTarget(arg{val: rest, home: t.home || strings.HasPrefix(rest, "~")}, cwd)
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
				if root, ok := protectedTarget(t, in.c.cwd); ok {
					in.forbid("recursive change of " + root + " is never run")
					return
				}
				if name, root, ok := emptyVariableRoot(t, in.c.assigned, in.c.cwd); ok {
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

// checkFind: find is read-only unless it deletes, writes files or runs
// commands; the command after -exec is classified like any other.
func checkFind(in *invocation) {
	if in.extra {
		in.confirm("more arguments arrive at run time, so they cannot be checked")
		return
	}
	args := in.args
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || args[i].val == "-E" || args[i].val == "-X" || args[i].val == "-s" || args[i].val == "-x" || args[i].val == "-d") {
		i++
	}
	var starts []arg
	for i < len(args) && !args[i].option() && args[i].val != "(" && args[i].val != "!" && args[i].val != "," {
		starts = append(starts, args[i])
		i++
	}
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
			case "rm", "unlink", "shred", "srm":
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
			if root, ok := protectedTarget(s, in.c.cwd); ok && (execDeletes || !tests || widens) {
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

// cdCheck remembers when the shell moves into a protected directory, so a
// later `rm -rf *` is known to mean that directory.
func cdCheck(in *invocation) {
	if !inThisShell(in) {
		return // under a wrapper cd changes nothing that follows
	}
	ops := operands(in.args)
	stack := false
	for _, a := range in.args {
		stack = stack || stackEntry(a.val)
	}
	if !slices.Contains(in.c.cdEarlier, in.c.cdPath) {
		in.c.cdEarlier = append(in.c.cdEarlier, in.c.cdPath)
	}
	switch {
	case in.c.cdPath == cdUnknown:
	case in.name == "popd" || in.name == "pushd" && len(ops) == 0 || stack:
		// The directory stack is not followed: popd, pushd alone and
		// pushd +N go back to a directory an earlier pushd left.
		in.c.cdPath = cdUnknown
	case len(ops) == 0:
		in.c.cdPath = "~"
	case !ops[0].plain() || ops[0].val == "-" || !knownDir(ops[0]):
		in.c.cdPath = cdUnknown
	case ops[0].home || strings.HasPrefix(ops[0].val, "/"):
		in.c.cdPath = ops[0].val
	default:
		in.c.cdPath = joinPath(in.c.cdPath, ops[0].val)
	}
	if len(ops) == 0 {
		in.c.cwd = "~"
		return
	}
	if root, ok := protectedTarget(ops[0], in.c.cwd); ok {
		in.c.cwd = root
		return
	}
	in.c.cwd = ""
}

// inThisShell reports whether a builtin runs in the shell itself: alone,
// or under builtin and command, which run it there all the same (builtin
// cd / moves the shell as cd / does), not under a program like nice.
func inThisShell(in *invocation) bool {
	label := in.label
	for {
		rest, ok := strings.CutPrefix(label, "builtin ")
		if !ok {
			rest, ok = strings.CutPrefix(label, "command ")
		}
		if !ok {
			return label == in.name
		}
		label = rest
	}
}

// knownDir reports whether a plain directory argument names a place the
// classifier can follow: not through $PWD, $OLDPWD or the like, whose
// values are only known when the command runs, and not ~+, ~- or ~user,
// which are those and other users' homes, however they start.
func knownDir(a arg) bool {
	if strings.ContainsRune(a.val, '$') {
		return false
	}
	return !strings.HasPrefix(a.val, "~") || a.val == "~" || strings.HasPrefix(a.val, "~/")
}

// stackEntry reports whether a cd or pushd operand names an entry of the
// directory stack (+N, -N in bash and zsh) rather than a directory.
func stackEntry(v string) bool {
	if len(v) < 2 || v[0] != '+' && v[0] != '-' {
		return false
	}
	for _, c := range v[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// joinPath appends a relative path to base ("" is the starting directory).
func joinPath(base, rel string) string {
	if base == "" {
		return rel
	}
	return strings.TrimSuffix(base, "/") + "/" + rel
}

func hostnameCheck(in *invocation) {
	if len(operands(in.args)) > 0 {
		in.confirm("changes the host name")
	} else if f, ok := hasFlag(in.args, "Fb", "--file", "--boot"); ok {
		in.confirmOpt(f, "changes the host name")
	}
}

func dateCheck(in *invocation) {
	for _, a := range in.args {
		if strings.HasPrefix(a.val, "--") {
			if longMatch(a.val, "--set") {
				in.confirmOpt(a.val, "sets the clock")
				return
			}
			continue
		}
		// -s in a cluster, before any letter that takes the rest as its value.
		for j := 1; a.option() && j < len(a.val) && !strings.ContainsRune("dfrvzI", rune(a.val[j])); j++ {
			if a.val[j] == 's' {
				in.confirmOpt(a.val, "sets the clock")
				return
			}
		}
	}
	// BSD date sets the clock from an operand unless -j is given, even with
	// -f, -r or -v; GNU date refuses an operand after -d, -f or -r.
	convert := false
	var ops []arg
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		switch {
		case !a.option():
			ops = append(ops, a)
		case v == "-r" || v == "-f" || v == "-v" || v == "-d" || v == "-z":
			convert = convert || v == "-d"
			i++ // the option's value
		case strings.HasPrefix(v, "--"):
			name, _, hasVal := strings.Cut(v, "=")
			if longMatch(name, "--date") || longMatch(name, "--reference") || longMatch(name, "--file") {
				convert = true
			}
			if !hasVal && (longMatch(name, "--date") || longMatch(name, "--reference") || longMatch(name, "--file")) {
				i++
			}
		case strings.HasPrefix(v, "-d"):
			convert = true // GNU -dSTRING; BSD date has no -d
		case !strings.HasPrefix(v, "-v") && !strings.HasPrefix(v, "-I") && strings.ContainsRune(v, 'j'):
			convert = true
		}
	}
	for _, a := range ops {
		if !strings.HasPrefix(a.val, "+") && !convert {
			in.confirmOpt(a.val, "sets the clock")
			return
		}
	}
}

func sysctlCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "wpf", "--write", "--load", "--system"); ok {
		in.confirmOpt(f, "changes kernel settings")
		return
	}
	for _, a := range in.args {
		if strings.Contains(a.val, "=") {
			in.confirmOpt(a.val, "changes kernel settings")
			return
		}
	}
}

func topCheck(in *invocation) {
	if _, ok := hasFlag(in.args, "lbn"); !ok {
		in.confirm("is interactive; use top -l 1 (macOS) or top -b -n 1 (Linux)")
	}
}

// psCheck asks when ps would print processes' environments: `E` in a
// cluster (macOS -E; ps accepts BSD clusters without the dash there too) or
// a dash-less `e` (procps' BSD option). On macOS ps is setuid and runs
// outside the sandbox, so it reads the environment of every process of the
// user, Hark's own and the terminal's included, with the secrets Hark keeps
// from commands. Letters that take a value (-o pid,user …) consume the rest
// of their cluster or the next argument, which is never read as options.
func psCheck(in *invocation) {
	const dashValue, bsdValue = "oOGgupUtCqs", "oOpUtk"
	skip := false
	for _, a := range in.args {
		v := a.val
		if skip {
			skip = false
			continue
		}
		if strings.HasPrefix(v, "--") {
			continue // long options name no environment; their values may follow
		}
		letters, values := v, bsdValue
		if strings.HasPrefix(v, "-") {
			letters, values = v[1:], dashValue
		}
		for i, c := range letters {
			switch {
			case c == 'E' || c == 'e' && values == bsdValue:
				in.confirmOpt(v, "shows other processes' environment variables, which can hold passwords and tokens")
				return
			case strings.ContainsRune(values, c):
				skip = i == len(letters)-1
			}
			if strings.ContainsRune(values, c) {
				break
			}
		}
	}
}

// pgrepCheck: pgrep -f matches whole argument lists, which the macOS
// sandbox keeps closed (kern.procargs2, where environments live too), so
// there it would find nothing and say, wrongly, that nothing runs. On macOS
// it asks and runs unsandboxed once approved, as the programs that need
// closed services do.
func pgrepCheck(in *invocation) {
	if !in.c.p.seatbelt {
		return
	}
	if opt, ok := hasFlag(in.args, "f", "--full"); ok {
		in.confirmAs(System, opt, "reads other processes' arguments, which the macOS sandbox keeps closed, so it runs only after you approve")
	}
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

func mountCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "a", "--all"); ok {
		in.confirmOpt(f, "mounts file systems")
		return
	}
	if len(operands(in.args)) > 0 {
		in.confirm("mounts file systems")
	}
}

// ifconfigCheck: ifconfig only shows an interface named alone. Whatever
// follows the name sets something, options included: -arp, -promisc,
// -alias and -allmulti turn features off.
func ifconfigCheck(in *invocation) {
	named := false
	for _, a := range in.args {
		if named {
			in.confirm("changes network interfaces")
			return
		}
		named = !a.option()
	}
}

func networksetupCheck(in *invocation) {
	if len(in.args) == 0 {
		return
	}
	v := strings.ToLower(in.args[0].val)
	for _, p := range []string{"-get", "-list", "-print", "-version", "-help", "-isnetworkserviceenabled", "-showpppoestatus"} {
		if strings.HasPrefix(v, p) {
			return
		}
	}
	in.confirmOpt(in.args[0].val, "changes network settings")
}

func ipCheck(in *invocation) {
	for _, a := range in.args {
		// ip accepts -b, -batch and any abbreviation of it, with one or two dashes.
		o := a.val
		if strings.HasPrefix(o, "--") {
			o = o[1:]
		}
		if o == "-b" || len(o) >= 3 && strings.HasPrefix("-batch", o) {
			in.confirmOpt(a.val, "runs ip commands from a file")
			return
		}
	}
	var words []string
	for _, a := range in.args {
		if !a.option() {
			words = append(words, a.val)
		}
	}
	if f, ok := hasFlag(in.args, "", "-resolve", "--resolve"); ok || contains(argVals(in.args), "-r") {
		if f == "" {
			f = "-r"
		}
		in.confirmAs(Network, f, "looks names up on the network")
		return
	}
	if len(words) < 2 {
		return // `ip`, `ip addr`, `ip -br a`: lists
	}
	// ip takes any unique prefix of an object or a verb, and which verb a
	// prefix means depends on the object: `ip l s` is `ip link set`. Only
	// the verbs written out in full are read-only.
	switch words[1] {
	case "show", "list", "lst", "get":
		return
	}
	if strings.HasPrefix("monitor", words[0]) && len(words[0]) >= 3 {
		return
	}
	in.confirmOpt(words[1], "changes network configuration")
}

func killCheck(in *invocation) {
	if len(in.args) == 1 && (in.args[0].val == "-l" || in.args[0].val == "-L") {
		return
	}
	for i, a := range in.args {
		if i > 0 && (a.val == "-1") {
			in.forbidOpt("-1", "stopping every process is never run")
			return
		}
	}
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		if a.val == "-s" || a.val == "-n" {
			i++ // the signal
			continue
		}
		if a.val == "1" {
			in.forbidOpt("1", "stopping init or launchd brings the machine down and is never run")
			return
		}
	}
	in.confirm("stops processes")
}

func initCheck(in *invocation) {
	for _, a := range in.args {
		if a.val == "0" || a.val == "6" {
			in.forbid("shutting down or restarting the machine is never run")
			return
		}
	}
	in.confirm("changes the system run level")
}

func nvramCheck(in *invocation) {
	for _, a := range in.args {
		v := a.val
		// -d, -c and -f delete, clear or set variables, alone or bundled (-xf).
		if a.option() && strings.ContainsAny(v[1:], "dcf") || strings.Contains(v, "=") || a.expanded || a.glob || a.brace {
			in.forbid("changing firmware variables is never run")
			return
		}
	}
}

func securityCheck(in *invocation) {
	if len(in.args) >= 2 && in.args[0].val == "authorizationdb" && in.args[1].val != "read" {
		in.forbid("changing authorization rules is never run")
		return
	}
	// Listing which keychains are searched reads no secret; -s changes
	// the list. Everything else can read or change secrets.
	if len(in.args) > 0 && !in.args[0].expanded {
		switch in.args[0].val {
		case "list-keychains", "default-keychain", "login-keychain":
			rest := in.args[1:]
			if len(rest) == 0 || len(rest) == 2 && rest[0].val == "-d" && rest[1].plain() {
				return
			}
		}
	}
	in.confirm("works with keychains and secrets")
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

// mdutilCheck: -s reports indexing status (-a for all volumes, -v more
// detail); -i, -E, -d and the rest change or erase the index.
func mdutilCheck(in *invocation) {
	status := false
	for _, a := range in.args {
		if !a.option() {
			continue
		}
		if strings.Trim(a.val[1:], "sav") != "" {
			in.confirmOpt(a.val, "changes Spotlight indexing")
			return
		}
		status = status || strings.ContainsRune(a.val, 's')
	}
	if !status {
		in.confirm("changes Spotlight indexing")
	}
}

// spctlCheck: --status and assessments read Gatekeeper's state; the rest
// changes it.
func spctlCheck(in *invocation) {
	if len(in.args) == 1 && in.args[0].val == "--status" {
		return
	}
	assess := false
	for i := 0; i < len(in.args); i++ {
		switch v := in.args[i].val; {
		case v == "-a" || v == "--assess":
			assess = true
		case v == "-v" || v == "-vv" || v == "-vvv" || v == "--verbose" || v == "--raw":
		case v == "-t" || v == "--type" || v == "--context":
			i++
		case !in.args[i].option():
		default:
			in.confirmOpt(v, "changes Gatekeeper")
			return
		}
	}
	if !assess {
		in.confirm("changes Gatekeeper")
	}
}

// csrutilCheck: only the status queries read; changing System Integrity
// Protection is never run.
func csrutilCheck(in *invocation) {
	v := strings.Join(argVals(in.args), " ")
	switch v {
	case "status", "authenticated-root status", "netboot list", "--help", "help":
		return
	}
	in.forbid("changing System Integrity Protection is never run")
}

// dsclCheck: `dscl [-q|-plist|-raw|-url] NODE -read|-list|… PATH` reads the
// local directory; other commands change it, and a host name as the node
// reaches another machine.
func dsclCheck(in *invocation) {
	args := in.args
	for len(args) > 0 && contains([]string{"-q", "-plist", "-raw", "-url"}, args[0].val) {
		args = args[1:]
	}
	if len(args) < 2 {
		in.confirm("changes directory services")
		return
	}
	node := args[0].val
	if node != "." && node != "localhost" && !strings.HasPrefix(node, "/") {
		in.confirmAs(Network, node, "reaches the directory service of another machine")
		return
	}
	// Node paths other than the local and search ones are servers:
	// /LDAPv3/host and /Active Directory/DOMAIN, which opendirectoryd
	// queries over the network, outside the sandbox.
	if strings.HasPrefix(node, "/") && !pathUnder(node, "/Local") && !pathUnder(node, "/Search") {
		in.confirmAs(Network, node, "queries a directory server over the network")
		return
	}
	switch args[1].val {
	case "-read", "-readall", "-list", "-search", "-readpl", "-readpli":
		return
	}
	in.confirmOpt(args[1].val, "changes directory services")
}

// diskutilForbidden are diskutil verbs (compared in lower case, as diskutil
// does) that erase or repartition disks.
var diskutilForbidden = []string{"erasedisk", "erasevolume", "zerodisk", "secureerase", "partitiondisk", "reformat", "randomdisk", "erasecd", "splitpartition", "mergepartitions", "deletecontainer", "deletevolume", "deletevolumegroup", "deletesnapshot", "delete", "deletelvg", "deletelv", "addpartition", "resizevolume", "resizecontainer"}

func checkDiskutil(in *invocation) {
	var words []string
	for _, a := range in.args {
		if a.expanded {
			in.confirmOpt(a.val, "cannot tell what diskutil does")
			return
		}
		if !a.option() {
			words = append(words, strings.ToLower(a.val))
		}
	}
	if len(words) == 0 {
		return
	}
	verb := words[0]
	if (verb == "apfs" || verb == "cs" || verb == "appleraid" || verb == "corestorage") && len(words) > 1 {
		verb = words[1]
	}
	if contains(diskutilForbidden, verb) {
		in.forbidOpt(verb, "erasing or repartitioning a disk is never run")
		return
	}
	switch verb {
	case "list", "info", "information", "listfilesystems", "listsnapshots", "listcryptousers", "listvolumegroups", "activity":
		return
	}
	in.confirmOpt(verb, "changes disks or volumes")
}

// partitionCheck: partition tools may list; anything else rewrites a disk.
func partitionCheck(listing ...string) check {
	return func(in *invocation) {
		if len(in.args) == 1 && versionQuery(in.args) {
			return
		}
		// Every option must be a listing one: sgdisk runs all the
		// options it is given, so `sgdisk -p -Z disk` prints, then zaps.
		lists := false
		for _, a := range in.args {
			if !a.plain() {
				break
			}
			if a.option() && !contains(listing, a.val) {
				lists = false
				break
			}
			lists = lists || contains(listing, a.val)
		}
		if lists {
			return
		}
		in.forbid("rewriting a partition table is never run")
	}
}

// gptCheck: `gpt [-r] show [-l|-u] disk` only prints.
func gptCheck(in *invocation) {
	ops := operands(in.args)
	if len(ops) > 0 && ops[0].val == "show" {
		for _, a := range in.args {
			if !a.plain() || a.option() && !contains([]string{"-r", "-l", "-u", "-v"}, a.val) {
				in.forbid("rewriting a partition table is never run")
				return
			}
		}
		return
	}
	in.forbid("rewriting a partition table is never run")
}

// hdparmCheck: hdparm's security erase, sector writes and firmware
// downloads destroy a disk's contents; anything else changes settings.
func hdparmCheck(in *invocation) {
	for _, a := range in.args {
		for _, l := range []string{"--security-erase", "--security-erase-enhanced", "--write-sector", "--make-bad-sector",
			"--trim-sector-ranges", "--trim-sector-ranges-stdin", "--dco-restore", "--fwdownload", "--fwdownload-mode3",
			"--fwdownload-mode3-max", "--fwdownload-mode7", "--security-set-pass", "--user-master"} {
			if a.val == l {
				in.forbidOpt(a.val, "erasing a disk is never run")
				return
			}
		}
	}
	in.confirm("changes disk settings")
}

// nvmeCheck: formatting, sanitizing or zeroing an NVMe drive erases it.
func nvmeCheck(in *invocation) {
	if ops := operands(in.args); len(ops) > 0 {
		switch ops[0].val {
		case "format", "sanitize", "write-zeroes", "write-uncor", "delete-ns", "detach-ns", "fw-download", "fw-commit", "dsm", "set-feature", "format-nvm":
			in.forbidOpt(ops[0].val, "erasing a disk is never run")
			return
		}
	}
	in.confirm("works with disk hardware")
}

// cryptsetupCheck: formatting a LUKS device or erasing its key slots
// makes its contents unreadable for good.
func cryptsetupCheck(in *invocation) {
	// Any operand: an option's value (--type luks2) may come before the verb.
	for _, a := range operands(in.args) {
		switch strings.ToLower(a.val) {
		case "luksformat", "erase", "lukserase", "reencrypt", "tcryptformat":
			in.forbidOpt(a.val, "erasing a disk is never run")
			return
		}
	}
	in.confirm("works with encrypted disks")
}

// badblocksCheck: -w writes patterns over the whole device.
func badblocksCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "w"); ok {
		in.forbidOpt(f, "erasing a disk is never run")
		return
	}
	in.confirm("tests disk hardware")
}

// crontabCheck: only `crontab -l` (for a user) lists; crontab acts on the
// last mode option, so `crontab -l -r` removes the table.
func crontabCheck(in *invocation) {
	list := false
	for i := 0; i < len(in.args); i++ {
		switch in.args[i].val {
		case "-l":
			list = true
		case "-u":
			i++
		default:
			in.confirmOpt(in.args[i].val, "changes scheduled jobs")
			return
		}
	}
	if !list {
		in.confirm("changes scheduled jobs")
	}
}

func checkLaunchctl(in *invocation) {
	if len(in.args) == 0 {
		in.confirm("controls services")
		return
	}
	switch in.args[0].val {
	case "list", "print-disabled", "print-cache", "blame", "version", "help", "managerpid", "manageruid", "managername", "error":
		return
	case "getenv", "print", "dumpstate":
		// launchd's variables are every process's of the session, and
		// print and dumpstate show each service's environment.
		in.confirmAs(Privilege, in.args[0].val, "shows the environment services run with, which can hold passwords and tokens")
		return
	case "reboot":
		in.forbidOpt("reboot", "shutting down or restarting the machine is never run")
		return
	}
	in.confirmOpt(in.args[0].val, "controls services")
}

func checkSystemctl(in *invocation) {
	if f, ok := hasFlag(in.args, "HM", "--host", "--machine"); ok {
		in.confirmAs(Network, f, "acts on another machine, over ssh for -H")
		return
	}
	var verb string
	for _, a := range in.args {
		if a.expanded {
			in.confirmOpt(a.val, "cannot tell what systemctl does")
			return
		}
		if !a.option() {
			verb = a.val
			break
		}
	}
	switch verb {
	case "", "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-dependencies",
		"list-jobs", "list-machines", "list-automounts", "list-paths", "is-active", "is-enabled", "is-failed",
		"is-system-running", "get-default", "help":
		return
	case "show-environment":
		// The manager's environment is what every service it starts
		// gets, and a session's import-environment puts tokens there.
		in.confirmAs(Privilege, verb, "shows the environment services run with, which can hold passwords and tokens")
		return
	case "poweroff", "reboot", "halt", "kexec", "soft-reboot", "rescue", "emergency":
		in.forbidOpt(verb, "shutting down or restarting the machine is never run")
		return
	case "start", "isolate", "restart", "reload-or-restart", "try-restart":
		for _, a := range operands(in.args) {
			switch strings.TrimSuffix(a.val, ".target") {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot", "shutdown", "rescue", "emergency":
				in.forbidOpt(verb+" "+a.val, "shutting down or restarting the machine is never run")
				return
			}
		}
	}
	in.confirmOpt(verb, "controls services")
}

// readCheck: unset and friends take the variables they name; some names
// change what later commands run, and a subscript in a name is evaluated
// as arithmetic, which runs the command substitutions in it.
func readCheck(in *invocation) {
	for _, a := range operands(in.args) {
		checkName(in, a)
	}
}

// checkName judges one variable name a builtin will assign or unset.
func checkName(in *invocation, a arg) bool {
	if why := riskyVariable(a.val); why != "" {
		in.confirmOpt(a.val, why)
		return false
	}
	if name, _, _ := strings.Cut(a.val, "["); riskyVariable(name) != "" {
		in.confirmOpt(a.val, name+"=: "+riskyVariable(name))
		return false
	}
	if !plainVarName(a) {
		in.confirmOpt(a.val, "the shell evaluates the subscript of this name, which can run commands")
		return false
	}
	return true
}

// namesCheck judges builtins that assign the variables they name (read,
// mapfile, getopts, wait -p). valued lists the short options that take a
// value, naming those whose value is a variable name; skip is how many
// operands come before the names (getopts' option string), or -1 when
// only the named options' values are names.
func namesCheck(valued, naming string, skip int) check {
	return func(in *invocation) {
		var names []arg
		ended := false
		var ops []arg
		for i := 0; i < len(in.args); i++ {
			a := in.args[i]
			if !ended && a.val == "--" {
				ended = true
				continue
			}
			if ended || !a.option() {
				ops = append(ops, a)
				continue
			}
			for j := 1; j < len(a.val); j++ {
				c := a.val[j]
				if strings.IndexByte(valued, c) < 0 {
					continue
				}
				v := arg{val: a.val[j+1:]}
				if v.val == "" && i+1 < len(in.args) {
					i++
					v = in.args[i]
				}
				if strings.IndexByte(naming, c) >= 0 {
					names = append(names, v)
				}
				break
			}
		}
		switch {
		case skip == 0:
			names = append(names, ops...)
		case skip > 0 && len(ops) > skip:
			names = append(names, ops[skip]) // getopts: the words after the name are values
		}
		for _, n := range names {
			if !checkName(in, n) {
				return
			}
		}
	}
}

// jobsCheck: `jobs -x cmd args` runs cmd with job specs replaced by
// process group ids.
func jobsCheck(in *invocation) {
	for k, a := range in.args {
		if a.option() && strings.ContainsRune(a.val, 'x') {
			in.confirmOpt("-x", "runs a command")
			in.runs(in.args[k+1:], false)
			return
		}
		if !a.option() {
			return
		}
	}
}

// safeShopts are bash options that change nothing about what a command
// runs. expand_aliases (BASH_ALIASES then redefines names), extdebug,
// xpg_echo and the like are left out.
var safeShopts = []string{"nullglob", "failglob", "dotglob", "globstar", "nocaseglob", "nocasematch", "extglob",
	"lastpipe", "inherit_errexit", "checkwinsize", "histappend", "globasciiranges", "shift_verbose", "cmdhist", "lithist"}

// shoptCheck: listing is safe, setting only the options above.
func shoptCheck(in *invocation) {
	setting, setOpts := false, false
	for _, a := range in.args {
		switch {
		case a.option():
			setting = setting || strings.ContainsAny(a.val, "su")
			setOpts = setOpts || strings.ContainsRune(a.val, 'o')
		case setting && setOpts && !contains(safeShellOptions, zshOptionName(a.val)):
			in.confirmOpt(a.val, "changes how the shell expands words")
			return
		case setting && !setOpts && !contains(safeShopts, a.val):
			in.confirmOpt(a.val, "changes how the shell reads commands")
			return
		}
	}
}

// numericConversion reports whether a printf format converts an argument
// to a number (%d, %5.2f, %x …).
func numericConversion(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*'", format[j]) >= 0 {
			j++
		}
		if j < len(format) {
			if strings.IndexByte("diouxXeEfFgGaAc", format[j]) >= 0 {
				return true
			}
			if format[j] == '%' {
				i = j
			}
		}
	}
	return false
}

// ulimitCheck: zsh evaluates a limit as arithmetic.
func ulimitCheck(in *invocation) {
	for _, a := range operands(in.args) {
		if a.val != "unlimited" && a.val != "hard" && a.val != "soft" && textArithm(in, a) {
			in.confirmOpt(a.val, "is evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// printfCheck: zsh evaluates the argument of a numeric conversion as
// arithmetic, so `printf %d 'a[$(rm x)]'` runs rm.
func printfCheck(in *invocation) {
	ops := operands(in.args)
	if len(ops) < 2 || !numericConversion(ops[0].val) {
		return
	}
	for _, a := range ops[1:] {
		if textArithm(in, a) {
			in.confirmOpt(a.val, "may be evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// trapCheck: `trap 'code' SIGNAL` runs code later; the code is classified.
func trapCheck(in *invocation) {
	for _, a := range in.args {
		if !a.plain() {
			// {'rm x',EXIT} is two words once braces expand.
			in.confirm("runs code computed at run time when a signal arrives")
			return
		}
	}
	ops := operands(in.args)
	if len(ops) < 2 || ops[0].val == "-" || ops[0].val == "" {
		return // lists traps, or resets or ignores them
	}
	in.confirm("runs code when a signal arrives")
	in.source(ops[0].val)
}

// testCheck: test and [ evaluate the operand of -v as a variable name with a
// subscript, and zsh evaluates the operands of -eq and friends as
// arithmetic; either can run a command substitution hidden in a value.
func testCheck(in *invocation) {
	for i, a := range in.args {
		var operands []arg
		switch a.val {
		case "-v":
			if i+1 < len(in.args) && !plainVarName(in.args[i+1]) {
				in.confirmOpt("-v", "evaluates an array subscript, which can run commands")
				return
			}
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			if i > 0 {
				operands = append(operands, in.args[i-1])
			}
			if i+1 < len(in.args) {
				operands = append(operands, in.args[i+1])
			}
		}
		for _, o := range operands {
			if textArithm(in, o) {
				in.confirmOpt(a.val, "evaluates "+o.val+" as arithmetic, which can run commands")
				return
			}
		}
	}
}

// textArithm reports whether an argument a shell evaluates as arithmetic
// could hold text the command set (see classifier.arithm).
func textArithm(in *invocation, o arg) bool {
	if !o.expanded {
		return arithmLiteralRisky(in.c.v, o.val)
	}
	name, isParam := strings.CutPrefix(o.val, "$")
	return !(isParam && (arithmSpecial[name] || plainName(name) && !in.c.v.texts[name]))
}

// arithmLiteralRisky reports whether literal text evaluated as arithmetic
// could run code: a subscript or substitution in it, or a name the command
// set to text.
func arithmLiteralRisky(v *verdict, s string) bool {
	s = strings.TrimLeft(s, "+-")
	if isNumber(s) {
		return false
	}
	if strings.ContainsAny(s, "[$`\\'\"") {
		return true
	}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if v.texts[f] {
			return true
		}
	}
	return false
}

// arithmArgsCheck: zsh evaluates the numbers given to shift, exit, return,
// break and continue as arithmetic.
func arithmArgsCheck(in *invocation) {
	for _, a := range operands(in.args) {
		if textArithm(in, a) {
			in.confirmOpt(a.val, "is evaluated as arithmetic, which can run commands")
			return
		}
	}
}

// unsetCheck: with PATH unset, bash and zsh look for programs in the
// current directory, so `unset PATH; ls` runs ./ls.
func unsetCheck(in *invocation) {
	if _, ok := hasFlag(in.args, "f"); ok {
		return
	}
	readCheck(in)
}

// dscacheutilCheck: `dscacheutil -q host` looks names up, which goes to DNS.
func dscacheutilCheck(in *invocation) {
	for i, a := range in.args {
		if a.val == "-q" && i+1 < len(in.args) && (in.args[i+1].val == "host" || in.args[i+1].val == "service") {
			in.confirmAs(Network, "-q "+in.args[i+1].val, "looks names up on the network")
			return
		}
	}
}

// npmNetwork are npm commands that read from the registry or open a browser.
var npmNetwork = []string{"view", "info", "show", "v", "search", "s", "se", "find", "outdated", "help", "docs", "home", "repo", "bugs", "ping", "audit", "fund"}

func npmCheck(in *invocation) {
	if len(in.args) > 0 && contains(npmNetwork, in.args[0].val) {
		in.confirmAs(Network, in.args[0].val, "uses the network")
		return
	}
	subcommands("installs packages or runs scripts", "ls", "list", "la", "ll", "-v", "--version", "root", "prefix", "config get", "config list", "config ls", "pkg get")(in)
}

// pipCheck: pip lists and shows from the local installation; asking about
// newer versions or another index uses the network.
func pipCheck(in *invocation) {
	if f, ok := hasFlag(in.args[min(1, len(in.args)):], "oui", "--outdated", "--uptodate", "--index-url", "--extra-index-url", "--find-links", "--proxy"); ok {
		in.confirmAs(Network, f, "uses the network")
		return
	}
	// pip's general options go before or after the verb; --log appends
	// to the file it names, whatever pip does.
	if f, ok := hasFlag(in.args, "", "--log", "--log-file"); ok {
		in.confirmAs(Write, f, "writes a log file")
		return
	}
	subcommands("installs or removes software", "list", "show", "freeze", "--version", "-V", "check", "config list", "help", "cache dir", "cache list", "cache info")(in)
}

// setCheck: `set -o NAME` changes how the shell reads words; zsh accepts
// its own option names there too (set -o globsubst makes a variable's value
// a glob pattern, whose qualifiers run code). Only common options are safe.
func setCheck(in *invocation) {
	for i, a := range in.args {
		if a.val == "--" || a.val == "-" {
			return // the rest sets positional parameters
		}
		if a.expanded {
			in.confirmOpt(a.val, "sets options only known at run time")
			return
		}
		// Single letters: -k turns every later NAME=value word into an
		// environment variable, past the checks on assignments; -a
		// exports every assignment. Only letters that mean the same
		// harmless thing in bash and zsh are safe.
		if len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+') && !strings.HasPrefix(a.val, "--") {
			if bad := strings.Trim(a.val[1:], safeSetLetters); bad != "" {
				in.confirmOpt(a.val, "-"+bad[:1]+" changes how the shell reads or exports words")
				return
			}
		} else if i == 0 {
			return // set WORDS sets the positional parameters
		}
		// -o NAME, also at the end of a cluster such as -euo NAME.
		if len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+') && strings.HasSuffix(a.val, "o") && i+1 < len(in.args) {
			if name := in.args[i+1].val; !contains(safeShellOptions, zshOptionName(name)) {
				in.confirmOpt(a.val+" "+name, "changes how the shell expands words")
				return
			}
		}
	}
}

// zshOptionCheck: setopt and unsetopt with names change how zsh expands
// words (GLOB_SUBST makes values glob patterns, whose qualifiers run code).
func zshOptionCheck(in *invocation) {
	for _, a := range in.args {
		n := zshOptionName(a.val)
		n = strings.TrimPrefix(n, "no")
		if a.expanded || !contains(safeShellOptions, n) && !contains(safeShellOptions, "no"+n) {
			in.confirmOpt(a.val, "changes how zsh expands words")
			return
		}
	}
}

// safeSetLetters are the single-letter options of set that are harmless in
// bash and zsh alike (o takes a name checked against safeShellOptions).
const safeSetLetters = "euxvnCfo"

// safeShellOptions change nothing about what a command runs.
var safeShellOptions = []string{"errexit", "nounset", "pipefail", "xtrace", "verbose", "noclobber", "clobber", "noglob", "glob", "noexec", "exec", "unset", "errtrace", "functrace"}

// zshOptionName normalises an option name as zsh does: case and
// underscores do not matter.
func zshOptionName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// plutilCheck: `plutil -extract KEY FMT FILE` replaces FILE with the value
// unless -o - sends it to standard output.
func plutilCheck(in *invocation) {
	if !contains(argVals(in.args), "-extract") {
		if contains(argVals(in.args), "-o") {
			in.confirmOpt("-o", "writes a file")
		}
		return
	}
	// Every -o must print: the last one given is where plutil writes, so
	// -o - -o file still replaces file.
	toStdout := false
	for i, a := range in.args {
		if a.val != "-o" {
			continue
		}
		if i+1 >= len(in.args) || in.args[i+1].val != "-" && in.args[i+1].val != "/dev/stdout" {
			toStdout = false
			break
		}
		toStdout = true
	}
	if !toStdout {
		in.confirmOpt("-extract", "replaces the file with the extracted value unless given -o -")
	}
}

// codesignCheck: `codesign -d --entitlements PATH` writes the entitlements
// to PATH; "-" and ":-" print them.
func codesignCheck(in *invocation) {
	for i, a := range in.args {
		v, val, hasVal := strings.Cut(a.val, "=")
		if v != "--entitlements" {
			continue
		}
		if !hasVal && i+1 < len(in.args) {
			val = in.args[i+1].val
		}
		if val != "-" && val != ":-" {
			in.confirmOpt("--entitlements "+val, "writes a file")
			return
		}
	}
}

// checkLoginctl: loginctl can power the machine off like systemctl.
func checkLoginctl(in *invocation) {
	if ops := operands(in.args); len(ops) > 0 {
		switch ops[0].val {
		case "poweroff", "reboot", "halt", "kexec":
			in.forbidOpt(ops[0].val, "shutting down or restarting the machine is never run")
			return
		}
	}
	in.confirm("controls login sessions")
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
	versionOr(why)(in)
}

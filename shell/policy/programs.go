package policy

import (
	"slices"
	"strings"
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

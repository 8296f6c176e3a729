package policy

import "strings"

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

func launchctlCheck(in *invocation) {
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

// systemctlOptions are systemctl's options (systemd 252 and later; one a
// later version adds is refused by an older one, so listing it is harmless).
var systemctlOptions = optionSpec{
	short: "HMtpPsnoC",
	long: []string{"--host", "--machine", "--type", "--state", "--property", "--job-mode", "--check-inhibitors", "--kill-whom",
		"--kill-value", "--signal", "--what", "--legend", "--preset-mode", "--root", "--image", "--image-policy", "--lines",
		"--output", "--boot-loader-menu", "--boot-loader-entry", "--reboot-argument", "--timestamp", "--message", "--when",
		"--drop-in", "--capsule", "--root-shift"},
	flags: []string{"--help", "--version", "--system", "--user", "--failed", "--all", "--full", "--recursive", "--reverse",
		"--after", "--before", "--with-dependencies", "--show-transaction", "--show-types", "--value", "--now", "--dry-run",
		"--quiet", "--wait", "--no-block", "--no-wall", "--no-reload", "--no-pager", "--no-ask-password", "--global",
		"--runtime", "--force", "--firmware-setup", "--plain", "--read-only", "--mkdir", "--marked", "--no-legend",
		"--no-warn", "--ignore-inhibitors", "--kill-subgroup"},
	abbrev: true,
}

func systemctlCheck(in *invocation) {
	// The verb is the first operand once option values are set aside; an
	// argument known only at run time up to it could be any option.
	p := systemctlOptions.parse(in.args)
	var verb string
	if len(p.ops) > 0 {
		verb = p.ops[0].val
	}
	for _, a := range in.args {
		if !a.plain() {
			in.confirmOpt(a.val, "cannot tell what systemctl does")
			return
		}
		if len(p.ops) > 0 && a.val == verb {
			break
		}
	}
	if p.unsure != "" {
		in.confirmOpt(p.unsure, "cannot tell whether the abbreviated option takes the next word as its value")
		return
	}
	if f, ok := p.has("-H", "--host", "-M", "--machine"); ok {
		in.confirmAs(Network, f, "acts on another machine, over ssh for -H")
		return
	}
	switch verb {
	case "", "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-dependencies",
		"list-jobs", "list-machines", "list-automounts", "list-paths", "is-active", "is-enabled", "is-failed",
		"is-system-running", "get-default", "help":
		for _, a := range in.args {
			if !a.plain() {
				// Later, a run-time argument could still be -H.
				in.confirmOpt(a.val, "argument is only known at run time and could be an option")
				return
			}
		}
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
		for _, a := range p.ops[1:] {
			switch strings.TrimSuffix(a.val, ".target") {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot", "shutdown", "rescue", "emergency":
				in.forbidOpt(verb+" "+a.val, "shutting down or restarting the machine is never run")
				return
			}
		}
	}
	in.confirmOpt(verb, "controls services")
}

// loginctlOptions are loginctl's options that take a value.
var loginctlOptions = optionSpec{
	short: "HMpPsno",
	long:  []string{"--host", "--machine", "--property", "--kill-whom", "--signal", "--lines", "--output"},
	flags: []string{"--help", "--version", "--no-pager", "--no-legend", "--no-ask-password", "--all", "--value", "--full",
		"--no-wall", "--dry-run", "--ignore-inhibitors", "--check-inhibitors"},
	abbrev: true,
}

// loginctlCheck: loginctl can power the machine off like systemctl.
func loginctlCheck(in *invocation) {
	if ops := loginctlOptions.parse(in.args).ops; len(ops) > 0 {
		switch ops[0].val {
		case "poweroff", "reboot", "halt", "kexec":
			in.forbidOpt(ops[0].val, "shutting down or restarting the machine is never run")
			return
		}
	}
	in.confirm("controls login sessions")
}

package policy

import "strings"

func isShell(name string) bool { return programs[name].shell }

// shellCheck: sh -c STRING runs the string, which is parsed and classified
// in turn; a script file or stdin cannot be seen.
func shellCheck(in *invocation) {
	if versionQuery(in.args) {
		return
	}
	cflag, stdin := false, false
	i := 0
	for i < len(in.args) {
		a := in.args[i]
		v := a.val
		if !a.plain() {
			break
		}
		if v == "--" || v == "-" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			i++
			continue
		}
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			if v[1:] == "o" || v[1:] == "O" {
				i++
			}
			if v[0] == '-' && strings.ContainsRune(v[1:], 'c') {
				cflag = true
			}
			if v[0] == '-' && strings.ContainsRune(v[1:], 's') {
				stdin = true
			}
			i++
			continue
		}
		break
	}
	switch {
	case cflag && i < len(in.args):
		code := in.args[i]
		if code.expanded {
			in.confirmOpt("-c", "runs a command string computed at run time")
			return
		}
		in.confirmOpt("-c", "runs a command string")
		in.sourceChild(code.val, childArgs(in.name, in.args[i+1:]))
	case cflag:
		in.confirmOpt("-c", "runs a command string")
	case i < len(in.args) && !stdin:
		in.confirm("runs a script")
	default:
		in.confirm("runs shell code from its input")
	}
}

// evalCheck parses literal eval arguments; computed ones cannot be seen.
func evalCheck(in *invocation) {
	if len(in.args) == 0 {
		return
	}
	words := make([]string, len(in.args))
	for i, a := range in.args {
		if a.expanded {
			in.confirm("runs a command built at run time")
			return
		}
		words[i] = a.val
	}
	in.confirm("runs a command built from strings")
	in.source(strings.Join(words, " "))
}

// interpreterCheck asks before running code; inline code is named as such.
func interpreterCheck(inline string) check {
	return func(in *invocation) {
		if versionForm(in) || versionFlagV[in.name] && len(in.args) == 1 && in.args[0].val == "-v" {
			return
		}
		if in.name == "go" {
			checked(goCheck)(in)
			return
		}
		for _, a := range in.args {
			if a.option() && !strings.HasPrefix(a.val, "--") && inline != "" && strings.ContainsAny(a.val[1:2], inline) {
				in.confirmOpt(a.val[:2], "runs inline code")
				return
			}
		}
		in.confirm("runs code")
	}
}

// goListFlags are the flags of `go list` that only choose what to print.
// Others compile (-export, -compiled, -toolexec runs a program), reach the
// module proxy (-u, -versions, -retracted) or may rewrite go.mod (-mod=mod).
var goListFlags = []string{"-m", "-json", "-f", "-e", "-deps", "-test", "-find", "-tags", "-trimpath", "-buildvcs", "-buildvcs=false"}

func goCheck(in *invocation) {
	subcommands("builds or runs code", "version", "env", "list", "doc", "help")(in)
	if len(in.args) == 0 {
		return
	}
	switch in.args[0].val {
	case "env":
		if f, ok := hasFlag(in.args, "wu"); ok {
			in.confirmOpt(f, "changes Go settings")
		}
	case "list":
		for i := 1; i < len(in.args); i++ {
			v := in.args[i].val
			if !in.args[i].option() {
				continue
			}
			name, _, _ := strings.Cut(strings.Replace(v, "--", "-", 1), "=")
			if !contains(goListFlags, name) {
				in.confirmOpt("list "+v, "compiles, uses the network or changes go.mod")
				return
			}
			if (name == "-f" || name == "-tags") && !strings.Contains(v, "=") {
				i++
			}
		}
	case "doc":
		if f, ok := hasFlag(in.args, "", "-http", "--http"); ok || contains(argVals(in.args), "-http") {
			if f == "" {
				f = "-http"
			}
			in.confirmOpt("doc "+f, "starts a web server and opens a browser")
		}
	}
}

// osascriptCheck: AppleScript can ask for administrator rights, shut the
// machine down, or run shell code through `do shell script`.
func osascriptCheck(in *invocation) {
	if len(in.args) == 0 {
		in.confirm("runs AppleScript from its input")
		return
	}
	for _, a := range in.args {
		low := strings.ToLower(a.val)
		if strings.Contains(low, "administrator privileges") || strings.Contains(low, "administratorprivileges") {
			in.forbidAs(Privilege, "with administrator privileges", "privilege escalation is never run")
		}
		if strings.Contains(low, "system events") || strings.Contains(low, "loginwindow") || strings.Contains(low, "finder") {
			for _, verb := range []string{"shut down", "restart", "log out", "«event aevtrsdn»", "«event aevtrrst»"} {
				if strings.Contains(low, verb) {
					in.forbidAs(System, "", "shutting down or restarting the machine is never run")
				}
			}
		}
		if i := strings.Index(low, "do shell script"); i >= 0 {
			if s, ok := appleScriptString(a.val[i+len("do shell script"):]); ok {
				in.source(s)
			}
		}
		// JavaScript for Automation: app.doShellScript("…").
		if i := strings.Index(low, "doshellscript("); i >= 0 {
			if s, ok := appleScriptString(a.val[i+len("doshellscript("):]); ok {
				in.source(s)
			}
		}
	}
	in.confirm("runs AppleScript")
}

// appleScriptString reads the first "…" literal of s, undoing \" and \\.
func appleScriptString(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, `"`) {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", false
}

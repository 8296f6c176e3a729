package policy

import "strings"

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

// dscacheutilCheck: `dscacheutil -q host` looks names up, which goes to DNS.
func dscacheutilCheck(in *invocation) {
	for i, a := range in.args {
		if a.val == "-q" && i+1 < len(in.args) && (in.args[i+1].val == "host" || in.args[i+1].val == "service") {
			in.confirmAs(Network, "-q "+in.args[i+1].val, "looks names up on the network")
			return
		}
	}
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

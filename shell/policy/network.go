package policy

import "strings"

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

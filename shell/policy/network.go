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

// ipOption says what ip makes of an option word: ip matches any prefix of
// its option names, with one dash or two, trying them in a fixed order
// (-r is -resolve before -rcvbuf; -b is -batch before -brief), so a prefix
// means the first option it fits.
func ipOption(v string) (name string, takesValue bool) {
	o := v
	if strings.HasPrefix(o, "--") {
		o = o[1:]
	}
	if len(o) < 2 {
		return v, false
	}
	for _, opt := range []struct {
		name  string
		value bool
	}{
		{"-loops", true}, {"-family", true}, {"-human", false}, {"-human-readable", false}, {"-iec", false},
		{"-stats", false}, {"-statistics", false}, {"-details", false}, {"-resolve", false}, {"-oneline", false},
		{"-timestamp", false}, {"-tshort", false}, {"-Version", false}, {"-force", false}, {"-batch", true},
		{"-brief", false}, {"-json", false}, {"-pretty", false}, {"-rcvbuf", true}, {"-color", false},
		{"-help", false}, {"-netns", true}, {"-Numeric", false}, {"-all", false},
	} {
		if strings.HasPrefix(opt.name, o) {
			return opt.name, opt.value
		}
	}
	return v, false
}

func ipCheck(in *invocation) {
	// ip's options come before the object; a value-taking one (-n NETNS,
	// -f FAMILY, -l, -rc) consumes the next word, which is no object.
	var words []string
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
		name, value := ipOption(v)
		switch name {
		case "-batch":
			in.confirmOpt(v, "runs ip commands from a file")
			return
		case "-resolve":
			in.confirmAs(Network, v, "looks names up on the network")
			return
		}
		if value {
			i++
		}
	}
	for _, a := range in.args[min(i, len(in.args)):] {
		if !a.option() {
			words = append(words, a.val)
		}
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

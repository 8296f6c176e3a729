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

// lookupWhy is the reason a program that would look names up asks: in
// the sandbox it has no socket, so the lookup fails and it prints numbers;
// without one, the query leaves the machine, and a name it asks about can
// carry data out.
const lookupWhy = "looks names up on the network, and no sandbox keeps the query in"

// lookup asks, without a sandbox, for a program about to look names up.
func lookup(in *invocation, opt string) {
	if in.c.p.noSandbox {
		in.confirmAs(Network, opt, lookupWhy)
	}
}

// clusterLetter reports whether a short option word such as -tulpn sets
// letter before any of the value-taking letters, whose value is the rest
// of the word (-finet sets -f, not -n).
func clusterLetter(v string, letter byte, values string) bool {
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return false
	}
	for j := 1; j < len(v); j++ {
		if v[j] == letter {
			return true
		}
		if strings.IndexByte(values, v[j]) >= 0 {
			return false
		}
	}
	return false
}

// numeric reports whether a short option cluster sets -n, or a long
// option is one of long (abbreviations included).
func numeric(args []arg, values string, long ...string) bool {
	for _, a := range args {
		if clusterLetter(a.val, 'n', values) {
			return true
		}
		if strings.HasPrefix(a.val, "--") {
			for _, l := range long {
				if longMatch(a.val, l) {
					return true
				}
			}
		}
	}
	return false
}

// runTimeArg returns the first argument known only at run time, which
// could be an option that looks names up.
func runTimeArg(args []arg) (string, bool) {
	for _, a := range args {
		if !a.plain() && !(a.expanded && a.path) {
			return a.val, true
		}
	}
	return "", false
}

// hostName reports whether an address as lsof and ss write it (host,
// host:port, [v6]:port, net/prefix, *) names a host rather than numbers.
func hostName(addr string) bool {
	if strings.HasPrefix(addr, "[") {
		return false
	}
	if strings.Count(addr, ":") > 1 {
		return false // a bare IPv6 address
	}
	host, _, _ := strings.Cut(addr, ":")
	host, _, _ = strings.Cut(host, "/")
	return strings.ContainsFunc(host, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
}

// lsofValue are lsof's letters that take a value, or may (-i, -o, -s …).
const lsofValue = "AcdDeEFgikKLmoprsSTuxz"

// lsofCheck: lsof turns the addresses of network files into host names
// unless -n says not to, and looks up a host named in -i @host whatever
// -n says.
func lsofCheck(in *invocation) {
	if !in.c.p.noSandbox {
		return
	}
	if v, ok := runTimeArg(in.args); ok {
		lookup(in, v)
		return
	}
	for k, a := range in.args {
		v := a.val
		if !clusterLetter(v, 'i', strings.ReplaceAll(lsofValue, "i", "")) {
			continue
		}
		spec := v[strings.IndexByte(v, 'i')+1:]
		if spec == "" && k+1 < len(in.args) && !strings.HasPrefix(in.args[k+1].val, "-") {
			spec = in.args[k+1].val
		}
		if _, host, ok := strings.Cut(spec, "@"); ok && hostName(host) {
			lookup(in, "-i "+spec)
			return
		}
	}
	if !numeric(in.args, lsofValue) {
		lookup(in, "")
	}
}

// ssValue are ss's letters that take a value.
const ssValue = "fADFN"

// ssCheck: ss prints numbers for addresses unless -r asks for names, and
// turns port numbers into service names unless -n says not to; a filter's
// dst or src can name a host, which ss looks up, -n or not.
func ssCheck(in *invocation) {
	if !in.c.p.noSandbox {
		return
	}
	if v, ok := runTimeArg(in.args); ok {
		lookup(in, v)
		return
	}
	p := optionSpec{short: ssValue, long: []string{"--family", "--query", "--socket", "--diag", "--filter", "--net"}, abbrev: true}.parse(in.args)
	if f, ok := p.has("-r", "--resolve"); ok {
		lookup(in, f)
		return
	}
	for k, op := range p.ops {
		if op.val != "dst" && op.val != "src" {
			continue
		}
		for _, next := range p.ops[k+1:] {
			switch next.val {
			case "=", "==", "!=", "eq", "neq", "ne", "!":
				continue
			}
			if hostName(next.val) {
				lookup(in, op.val+" "+next.val)
				return
			}
			break
		}
	}
	if _, ok := p.has("-n", "--numeric"); !ok {
		lookup(in, "")
	}
}

// netstatCheck: netstat turns addresses into host names unless -n (or
// --numeric, --numeric-hosts) says not to.
func netstatCheck(in *invocation) {
	if !in.c.p.noSandbox {
		return
	}
	if v, ok := runTimeArg(in.args); ok {
		lookup(in, v)
		return
	}
	if !numeric(in.args, "AfIw", "--numeric", "--numeric-hosts") {
		lookup(in, "")
	}
}

// routeLookup: route turns gateways and destinations into names unless -n
// says not to.
func routeLookup(in *invocation) {
	if in.c.p.noSandbox && !numeric(in.args, "A", "--numeric") {
		lookup(in, "")
	}
}

// getentLookup are the databases whose keys getent looks up in DNS.
var getentLookup = []string{"hosts", "ahosts", "ahostsv4", "ahostsv6", "networks"}

// getentCheck: getent reads the system databases; a host or network name
// given as a key is looked up in DNS. (Listing a database without keys
// reads the local files only.)
func getentCheck(in *invocation) {
	p := optionSpec{short: "s", long: []string{"--service"}, flags: []string{"--no-idn", "--help", "--usage", "--version"}, abbrev: true}.parse(in.args)
	if len(p.ops) > 1 && contains(getentLookup, p.ops[0].val) {
		lookup(in, p.ops[0].val+" "+p.ops[1].val)
	}
}

// hostnameLookup: hostname -f, -A, -d, -a and -i look the machine's own
// name up, which without a sandbox may go to a DNS server.
func hostnameLookup(in *invocation) {
	if f, ok := hasFlag(in.args, "aAdfi", "--alias", "--all-fqdns", "--domain", "--fqdn", "--long", "--ip-address"); ok {
		lookup(in, f)
	}
}

// whoCheck and lastCheck: who --lookup and last -d (--dns) turn the
// addresses of remote logins into host names.
func whoCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "", "--lookup"); ok {
		lookup(in, f)
	}
}

func lastCheck(in *invocation) {
	for _, a := range in.args {
		if clusterLetter(a.val, 'd', "fnstiuw") || strings.HasPrefix(a.val, "--") && longMatch(a.val, "--dns") {
			lookup(in, a.val)
			return
		}
	}
}

package policy

import "strings"

// aptConfigCheck: -o and -c set APT configuration, which names the programs APT
// runs (Dir::Bin::dpkg, hooks).
var aptConfigCheck = noFlags("sets configuration that names programs to run", "oc", "--option", "--config-file")

// brewFormulaCheck: brew info, deps, desc and the like load a formula or
// cask given as a file (x.rb, ./x, /path/x) or URL, and a formula is Ruby
// that runs as it loads. Named formulae come from installed taps.
func brewFormulaCheck(in *invocation) {
	for _, a := range operands(in.args) {
		v := a.val
		if strings.HasSuffix(v, ".rb") || strings.Contains(v, "://") || a.home ||
			strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
			in.confirmAs(Code, v, "loads a formula file, which is Ruby code that runs")
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

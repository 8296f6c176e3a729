package policy

import (
	"strings"
	"testing"
)

// Programs that look names up are network readers: in the sandbox they
// have no socket and print numbers, so they stay safe there; without a
// sandbox (Options.NoSandbox) the query would leave the machine, so they
// ask, and the numeric spellings of the same programs stay safe.
func TestNetworkReadersAskWithoutSandbox(t *testing.T) {
	t.Parallel()
	def, bare := New(Options{}), New(Options{NoSandbox: true})
	lookups := []string{
		"lsof", "lsof -i", "lsof -i :22", "lsof -iTCP -sTCP:LISTEN", "lsof -P -i", "lsof -p 1234", "lsof -u alice",
		"lsof -c nginx", "lsof -i @example.com", "lsof -n -i @example.com", "lsof -ni @example.com:443",
		"lsof -nP -iTCP@example.com", "lsof -i $H",
		"ss", "ss -t", "ss -tl", "ss -tulp", "ss -fn", "ss -tn -r", "ss -tn --resolve", "ss -tn dst example.com",
		"ss -tn src example.com:22", "ss -n dst = example.com", "ss -tn state established dst db.example.com",
		"netstat", "netstat -a", "netstat -tulp", "netstat -r", "netstat -finet", "netstat --numeric-ports",
		"hostname -A", "hostname -f", "hostname --fqdn", "hostname -d", "hostname --domain", "hostname -i",
		"hostname --all-fqdns", "hostname --long", "hostname -a",
		"getent hosts example.com", "getent ahosts example.com", "getent ahostsv4 example.com",
		"getent ahostsv6 example.com", "getent networks loopback", "getent -s dns hosts example.com",
		"route", "route -e", "route -Ainet", "who --lookup", "who --look", "last -d", "last --dns", "last -ad",
	}
	for _, cmd := range lookups {
		if v := def.Classify(cmd); v.Tier != Safe {
			t.Errorf("Classify(%q) = %s %v, want safe: the sandbox has no socket", cmd, v.Tier, v.Reasons)
		}
		v := bare.Classify(cmd)
		if v.Tier != Confirm || len(v.Reasons) == 0 || !strings.Contains(v.Reasons[0].Why, lookupWhy) || v.Reasons[0].Category != Network {
			t.Errorf("NoSandbox Classify(%q) = %s %v, want confirm: %s", cmd, v.Tier, v.Reasons, lookupWhy)
		}
	}
	// These ask with or without the sandbox.
	for _, cmd := range []string{"host example.com", "dig example.com", "nslookup example.com", "ping -c 1 example.com", "ip -r addr", "ip -resolve route"} {
		for _, p := range []*Policy{def, bare} {
			if v := p.Classify(cmd); v.Tier != Confirm || v.Reasons[0].Category != Network {
				t.Errorf("Classify(%q) = %s %v, want confirm (network)", cmd, v.Tier, v.Reasons)
			}
		}
	}
	for _, cmd := range []string{
		"netstat -an", "netstat -tulpn", "netstat -rn", "netstat -nr", "netstat --numeric -a", "netstat -f inet -n",
		"ss -tn", "ss -tlnp", "ss -n", "ss -tan state established", "ss -tn dst 10.0.0.1", "ss -tn dst '[::1]:22'",
		"ss -tn src 192.168.0.0/16", "ss -tn dport = :ssh", "ss -tn dst ::1",
		"lsof -n", "lsof -nP -i", "lsof -n -i :22", "lsof -ni @10.0.0.1", "lsof -Pn -p 1234", "lsof -n -i '@[::1]:22'",
		"hostname", "hostname -s", "hostname -I", "getent passwd root", "getent group wheel", "getent hosts",
		"getent services ssh", "route -n", "route -n get default", "who", "who -a", "last", "last -a",
	} {
		if v := bare.Classify(cmd); v.Tier != Safe {
			t.Errorf("NoSandbox Classify(%q) = %s %v, want safe: it looks nothing up", cmd, v.Tier, v.Reasons)
		}
	}
}

package policy

import (
	"testing"
)

// FuzzClassify checks that Classify never panics, always returns a verdict
// of the right shape, and that no input can hide an appended deletion: the
// input followed by "; rm -rf x" or by a new line with it is never safe.
func FuzzClassify(f *testing.F) {
	for _, tc := range policyCases {
		f.Add(tc.command)
	}
	// The floor's shapes: brace expansion into any word, env -C, cd under
	// conditions and in the background, /proc aliases (floor_cases_test.go).
	for _, tc := range floorCases {
		f.Add(tc.cmd)
	}
	for _, s := range []string{
		"{,}", "{a,", "{a,b}{", "x{1..3}", "{1..99999}", "{$x,}", "env -C", "env -C \"$d\" ls", "env --chdir=",
		"cd x &", "cd x |", "/proc/self/root/", "rm -rf /proc/self/cwd/..", "~+/", "{cd,/} && rm -rf *",
	} {
		f.Add(s)
	}
	for _, s := range []string{
		"cat <<EOF", "cat <<EOF\nx", "cat <<'rm -rf x'", "cat <<-EOF\n\tx", "ls \\", "ls '", `ls "`, "ls #", "ls # ",
		"echo $(", "echo `", "echo ${x", "case x in", "for i in a", "if true; then", "f() {", "a=(", "((1+", "[[ a",
		"echo $'", "ls <<<", "x=\\", "ls &", "ls |", "ls &&", "time", "! ", "coproc", "{", "(", "function f",
		// Found by fuzzing: a nil value word, an empty option, an escaped ;
		// outside -exec, a comment the parser drops, an escaped ; as a file.
		"A=", "sh ''", "find \\", "time #000", "w<\\",
		"echo \"a\\", "ls \\\\", "find . -exec ls {} \\", "sed -n 'p", "awk '{", "bash -c '", "eval '", "env -S '",
	} {
		f.Add(s)
	}
	p := New(Options{})
	f.Fuzz(func(t *testing.T, s string) {
		v := p.Classify(s)
		if v.Tier != Safe && v.Tier != Confirm && v.Tier != Forbidden {
			t.Fatalf("Classify(%q): tier %q", s, v.Tier)
		}
		if v.Reasons == nil || (v.Tier == Safe) != (len(v.Reasons) == 0) {
			t.Fatalf("Classify(%q): tier %s with reasons %v", s, v.Tier, v.Reasons)
		}
		for _, r := range v.Reasons {
			if !categories[r.Category] || r.Why == "" {
				t.Fatalf("Classify(%q): reason %v has no text or no known category", s, r)
			}
		}
		for _, suffix := range []string{"; rm -rf x", "\nrm -rf x"} {
			if w := p.Classify(s + suffix); w.Tier == Safe {
				t.Fatalf("Classify(%q) is safe: the appended deletion was hidden", s+suffix)
			}
		}
		// No input makes a member of a closed family safe, before it,
		// after it, or fed its output.
		for _, f := range familyTails {
			for _, cmd := range []string{s + "; " + f, s + "\n" + f, f + "\n" + s} {
				if w := p.Classify(cmd); w.Tier == Safe {
					t.Fatalf("Classify(%q) is safe: the family construction %q was hidden", cmd, f)
				}
			}
		}
		for _, cmd := range []string{s + " | xargs nice", s + " | xargs env", "set -k; " + s, "set -a; " + s} {
			if w := p.Classify(cmd); w.Tier == Safe {
				t.Fatalf("Classify(%q) is safe", cmd)
			}
		}
	})
}

// FuzzClassifyNoSandbox: without a sandbox no input hides a lookup of a
// name on the network before or after it.
func FuzzClassifyNoSandbox(f *testing.F) {
	for _, s := range append(append([]string{}, noSandboxTails...), "netstat -an", "ss -tn", "lsof -n", "hostname") {
		f.Add(s)
	}
	p := New(Options{NoSandbox: true})
	f.Fuzz(func(t *testing.T, s string) {
		for _, tail := range noSandboxTails {
			for _, cmd := range []string{s + "; " + tail, s + "\n" + tail, tail + "\n" + s} {
				if w := p.Classify(cmd); w.Tier == Safe {
					t.Fatalf("NoSandbox Classify(%q) is safe: the lookup %q was hidden", cmd, tail)
				}
			}
		}
	})
}

// familyTails are one member of each family of holes, each a complete
// command that is never safe.
var familyTails = []string{
	"printf '%s\\n' rm x | xargs nice",
	"BASH_CMDS[ls]=/bin/rm; ls -rf x",
	"functions[ls]='rm x'; ls",
	"jobs -x rm -rf build",
	"read 'x[$(rm y)]' <<< hi",
	"declare 'x[$(rm y)]=1'",
	"set -k; ls",
	"PERLLIB=./x shasum f",
	"F=/dev/tcp/1.1.1.1/80; cat < $F",
	"ip l s lo down",
	"nvram -xf x",
	"git --git-dir=x.git log",
	"find ~ -delete -name x",
	"systemctl -p status stop ssh",
	"git config -f get user.name x",
	"watch -x find . '#' -delete",
	"xxd in.txt -pwned",
	"sort -T /tmp/x f",
}

// noSandboxTails are members of the families that ask only without a
// sandbox (FuzzClassifyNoSandbox).
var noSandboxTails = []string{
	"lsof -i @example.com",
	"ss -tn dst example.com",
	"getent hosts example.com",
}

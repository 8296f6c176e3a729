package policy

import "testing"

func TestProgram(t *testing.T) {
	t.Parallel()
	cases := []struct {
		word       string
		name       string
		runsOthers bool
		ok         bool
	}{
		{"git", "git", false, true},
		{"/usr/bin/git", "git", false, true},
		{"./git", "", false, false},
		{"/home/me/bin/git", "", false, false},
		{"$EDITOR", "", false, false},
		{"nice", "nice", true, true},
		{"xargs", "xargs", true, true},
		{"/usr/bin/env", "env", true, true},
		{"bash", "bash", true, true},
		{"python3.12", "python3.12", true, true},
		{"node", "node", true, true},
		{"sudo", "sudo", true, true},
		{"rm", "rm", false, true},
		{"unknown-tool", "unknown-tool", false, true},
	}
	for _, c := range cases {
		name, runsOthers, ok := Program(c.word)
		if name != c.name || runsOthers != c.runsOthers || ok != c.ok {
			t.Errorf("Program(%q) = %q, %v, %v; want %q, %v, %v", c.word, name, runsOthers, ok, c.name, c.runsOthers, c.ok)
		}
	}
}

package policy

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// The policy reads a word's quotes and backslashes as plan.Literal does,
// and both as bash does: a program name or an argument spelt through a
// line continuation, an ANSI-C escape or a backslash in double quotes is
// the one bash runs.
func TestWordsReadAsBashReadsThem(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed, so there is nothing to compare with")
	}
	words := []string{
		"r\\\nm", `\r\m`, `"r\m"`, `$'\x72m'`, `$'\162\155'`, `"a\"b"`, `"a\$b"`, `"a\\b"`, "\"a\\`b\"",
		`a\\b`, `'a\"b'`, `$'a\'b'`, `$'\e\E\?\"'`, `$'\t'`, "\"a\\\nb\"", `a"b"'c'`, `"\\\""`,
	}
	for _, w := range words {
		out, err := exec.Command(bash, "-c", "printf %s "+w).Output()
		if err != nil {
			t.Fatalf("%q: %v", w, err)
		}
		f, err := syntax.NewParser().Parse(strings.NewReader("x "+w), "")
		if err != nil {
			t.Fatalf("%q: %v", w, err)
		}
		word := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		a := decodeWord(word)
		if a.expanded || a.val != string(out) {
			t.Errorf("%q: the policy reads %q (expanded %v), bash %q", w, a.val, a.expanded, out)
		}
		if l, ok := plan.Literal(word); !ok || l != string(out) {
			t.Errorf("%q: plan.Literal reads %q (%v), bash %q", w, l, ok, out)
		}
	}
	// The same program through a line continuation meets the same floor.
	p := New(Options{Home: "/home/u"})
	for _, line := range []string{"r\\\nm -rf ~", "rm -rf ~/\\\n"} {
		if v := p.Classify(line); v.Tier != Forbidden {
			t.Errorf("%q: %v, want it refused as rm -rf ~ is", line, v.Tier)
		}
	}
}

package policy

import (
	"strings"
	"testing"
)

// TestFloorFollowsPipedNames: xargs fed by a program whose output surely
// names home (find's starting points, echo's and printf's arguments,
// ls -d's) hands home to its command.
func TestFloorFollowsPipedNames(t *testing.T) {
	var forms []struct{ form, target string }
	for _, src := range []string{"find {H}", "find {H} -maxdepth 1", "find {H} -type d", "echo {H}", "printf '%s\\n' {H}", "ls -d {H}", "echo a {H}", "find {H} -print0"} {
		for _, x := range []string{"xargs", "xargs -r", "xargs -n 1", "xargs -0", "xargs --no-run-if-empty", "nice xargs"} {
			if strings.Contains(src, "print0") != (x == "xargs -0") {
				continue
			}
			forms = append(forms, struct{ form, target string }{src + " | " + x + " {V}", ""})
		}
	}
	n := runFamily(t, "xargs", forms, []string{"rm -rf", "rm -r", "chmod -R 777"})
	p := New(Options{})
	for _, cmd := range []string{"find . -name '*.o' | xargs rm -f", "echo build | xargs rm -rf", "find ~/src -name '*.o' | xargs rm -rf",
		"ls | xargs rm -rf", "find ~ -name '*.o' | xargs rm -f", "find . -type d -empty | xargs rm -rf", "echo ~ | xargs ls"} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q forbidden: %v", cmd, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}

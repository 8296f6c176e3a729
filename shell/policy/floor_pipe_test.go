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

// TestFloorFollowsNamesThroughFilters: stages that hand names on
// unchanged or only reorder them (sort, uniq, cat, tee) are looked
// through, and head keeps the first line, which is find's first starting
// point and all of echo's words; a stage that may drop home (tail, grep,
// sort -o) leaves the names unknown, and the command asks.
func TestFloorFollowsNamesThroughFilters(t *testing.T) {
	var forms []struct{ form, target string }
	for _, src := range []string{"find {H}", "find {H} -maxdepth 0", "echo {H}", "find {H} -type d", "ls -d {H}"} {
		for _, mid := range []string{"sort", "sort -u", "uniq", "cat", "tee /tmp/list", "sort | uniq", "sort -r | cat -", "head -n 1", "head -1", "head",
			"sort -u | head -n 5", "tee -a /tmp/l | sort", "head --lines=3 | cat"} {
			if strings.HasPrefix(src, "ls") && strings.Contains(mid, "head") {
				continue // ls sorts its operands: its first line is not told
			}
			for _, x := range []string{"xargs", "xargs -r", "nice xargs"} {
				forms = append(forms, struct{ form, target string }{src + " | " + mid + " | " + x + " {V}", ""})
			}
		}
	}
	n := runFamily(t, "filters", forms, []string{"rm -rf", "rm -r", "chmod -R 777"})
	p := New(Options{})
	for _, cmd := range []string{"find . -name '*.o' | sort | xargs rm -f", "find ~ | tail -n 1 | xargs rm -rf", "find ~ | grep cache | xargs rm -rf",
		"find ~ | sort -o /tmp/l | xargs rm -rf", "find ./build ~ | head -n 1 | xargs rm -rf", "find ~ -depth | head -1 | xargs rm -rf",
		"find ~ | head -n -1 | xargs rm -rf", "find ~ | head -c 5 | xargs rm -rf", "ls -d ~ build | head -1 | xargs rm -rf",
		"printf '%s\\n' build ~ | head -1 | xargs rm -rf", "find ~/src | sort | xargs rm -rf", "find ~ | sort > /tmp/l | xargs rm -rf",
		"find ~ | uniq -c | xargs rm -rf", "find ~ | cat -n | xargs rm -rf", "echo ~ | sort | xargs ls"} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q forbidden: %v", cmd, got.Reasons)
		} else if got.Tier == Safe && strings.Contains(cmd, "rm") {
			t.Errorf("%q safe", cmd)
		}
	}
	t.Logf("%d generated lines", n)
}

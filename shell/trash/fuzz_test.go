package trash

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPlanFor: whatever the command, a plan never names a target outside
// home or home itself, and find's listing is always a single find without
// -delete.
func FuzzPlanFor(f *testing.F) {
	for _, seed := range []string{
		"rm -rf ~/Downloads/*", "rm ~/../x", "rm -- -rf", "rm '~/x'", "rm ~/a\\ b", "rmdir ~/x/../..",
		"find ~ -name '*.tmp' -delete", "find ~/x -delete -o -exec rm {} ;", "rm ~/{a,../../etc}", "rm ~/.",
		"rm \"$HOME\"/x", "rm ~/x; rm /y", "rm ~/$(id)", "find . -name a -delete", "rm ./../../..",
	} {
		f.Add(seed, "~")
	}
	f.Add("rm x", "/")
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, command, wd string) {
		if wd != "~" && !strings.HasPrefix(wd, "/") {
			wd = "~"
		}
		p, err := PlanFor(command, wd, home)
		if err != nil {
			return
		}
		for _, q := range p.Paths {
			if !filepath.IsAbs(q) || !within(q, home) {
				t.Fatalf("%q in %q: target %q is not strictly inside %s", command, wd, q, home)
			}
		}
		if p.Program == "find" {
			if !strings.HasPrefix(p.Find, "find ") || strings.Contains(p.Find, "-delete") {
				t.Fatalf("%q: listing %q", command, p.Find)
			}
			if _, err := PlanFor(p.Find, wd, home); err == nil {
				t.Fatalf("%q: the listing %q itself qualifies as a deletion", command, p.Find)
			}
		} else if len(p.Paths) == 0 {
			t.Fatalf("%q: a plan with no targets", command)
		}
	})
}

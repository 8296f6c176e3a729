package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/plan"
)

// diskLinks resolves links on the real disk, as the app's Options.Resolve
// does.
func diskLinks(p string) string {
	if r, why := (plan.Env{}).Resolve("/", p); why == "" && r != "" {
		return r
	}
	return p
}

// TestFloorTakesDotDotAfterALink: after cd into a link, the kernel takes
// a '..' in an argument (and bash's pathname expansion takes it in a
// pattern) from where the link leads, not from the folder that holds the
// link, so ../* there may be everything in home.
func TestFloorTakesDotDotAfterALink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	for _, d := range []string{"home/sub", "home/src", "a/b", "other/sub", "other/keep"} {
		must(os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	link := func(name, to string) {
		must(os.Symlink(filepath.Join(root, to), filepath.Join(root, name)))
	}
	link("l", "home/sub")     // beside home: both readings of .. refuse
	link("a/b/l", "home/sub") // elsewhere: only the kernel's reading does
	link("a/l2", "a/b/l")     // a link to a link
	link("a/m", "other/sub")  // a link that leads away from home
	p := New(Options{Home: home, Resolve: diskLinks})

	n := 0
	for _, l := range []string{"l", "a/b/l", "a/l2"} {
		for _, cd := range []string{"cd {L} && ", "cd {L}; ", "cd {L}/ && ", "cd {L} || exit; ", "pushd {L} && "} {
			for _, v := range []string{"rm -rf ../*", "rm -rf ..", "rm -rf ../", "rm -r ./../*", "rm -rf ../.", "find .. -delete", "chmod -R 777 ../*", "rm -rf ../../home"} {
				cmd := strings.ReplaceAll(cd, "{L}", filepath.Join(root, l)) + v
				n++
				t.Run(cmd, func(t *testing.T) {
					if got := p.ClassifyIn(cmd, "~/src"); got.Tier != Forbidden {
						t.Errorf("%s %v", got.Tier, got.Reasons)
					}
				})
			}
		}
		for _, cmd := range []string{"rm -rf " + filepath.Join(root, l) + "/..", "rm -rf " + filepath.Join(root, l) + "/../*"} {
			n++
			t.Run(cmd, func(t *testing.T) {
				if got := p.ClassifyIn(cmd, "~/src"); got.Tier != Forbidden {
					t.Errorf("%s %v", got.Tier, got.Reasons)
				}
			})
		}
	}
	for _, cmd := range []string{"cd a/m && rm -rf ../*", "cd a/m && rm -rf ..", "cd a/m; find .. -delete", "cd a/b && rm -rf ../*",
		"cd a/m && rm -rf ../keep", "cd " + root + "/l && rm -rf ../src", "cd " + root + "/a/b/l && rm -rf ./*"} {
		t.Run("ordinary/"+cmd, func(t *testing.T) {
			if got := p.ClassifyIn(cmd, root); got.Tier == Forbidden {
				t.Errorf("forbidden: %v", got.Reasons)
			}
		})
	}
	t.Logf("%d generated lines", n)
}

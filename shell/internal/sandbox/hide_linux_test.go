package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// hideTree is a home with n ordinary entries beside .ssh, .aws and
// .config/gh, and a link from a project into .ssh.
func hideTree(t testing.TB, n int) (home string, hide []string) {
	home = filepath.Join(t.TempDir(), "home")
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".config/other", "project"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(home, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "project", "keys")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(home, "self")); err != nil { // a link to a folder holding one
		t.Fatal(err)
	}
	return home, []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".aws"), filepath.Join(home, ".config/gh"), filepath.Join(home, ".gnupg")}
}

// The grants cover no hidden path and no folder holding one, and every
// other entry on the way is granted: the siblings in home, in .config,
// and the link-free rest.
func TestHideGrants(t *testing.T) {
	t.Parallel()
	home, hide := hideTree(t, 3)
	real, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	var hidden hiddenSet
	for _, p := range hide[:3] {
		r, _ := filepath.EvalSymlinks(p)
		hidden = append(hidden, r)
	}
	var dirs, files []string
	if err := hidden.split("/", true, &dirs, &files, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range append(slices.Clone(dirs), files...) {
		if hidden.covers(g) || hidden.leadsTo(g) {
			t.Errorf("grant %s covers a hidden path", g)
		}
	}
	for _, want := range []string{"project", ".config/other"} {
		if !slices.Contains(dirs, filepath.Join(real, want)) {
			t.Errorf("folder %s is not granted: %v", want, dirs)
		}
	}
	for _, want := range []string{"f0", "f1", "f2"} {
		if !slices.Contains(files, filepath.Join(real, want)) {
			t.Errorf("file %s is not granted", want)
		}
	}
	if slices.Contains(dirs, "/dev") {
		t.Error("/dev is granted whole")
	}
}

// How much a run that hides files pays to build its ruleset, against the
// plain ruleset built afresh, with a home of 300 entries. Report the ratio
// of the two.
func BenchmarkSandboxRules(b *testing.B) {
	if abi, err := landlockABI(); err != nil || abi < 1 {
		b.Skip("no Landlock in this kernel")
	}
	home, hide := hideTree(b, 300)
	_ = home
	tmp := b.TempDir()
	for _, c := range []struct {
		name string
		hide []string
	}{{"plain", nil}, {"hide", hide}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				fd, _, err := sandboxRules(tmp, c.hide, nil)
				if err != nil {
					b.Fatal(err)
				}
				unix.Close(fd)
			}
		})
	}
}

// The hidden list's rules are kept while the folders listed for them are
// unchanged, and built again once one of them changes: a file made in
// home after the first run is readable to the next (it is not hidden),
// as it would be without the cache.
func TestHideRulesCacheFollowsTheFolders(t *testing.T) {
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	hide := []string{filepath.Join(home, ".ssh")}
	// The folders' times must be older than the first listing; a folder
	// that another process keeps changing (a busy /tmp around the test's
	// folders) keeps any listing from being kept.
	var again []landlock.Rule
	for i := 0; ; i++ {
		if i == 20 {
			t.Skip("the folders around the test's own keep changing")
		}
		time.Sleep(2 * depsMargin)
		first, err := hideRulesCached(hide)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ = hideRulesCached(hide); len(first) > 0 && &first[0] == &again[0] {
			break
		}
	}
	os.WriteFile(filepath.Join(home, "new.txt"), nil, 0o644)
	fresh, _ := hideRulesCached(hide)
	if &fresh[0] == &again[0] {
		t.Error("a folder changed: the rules must be built again")
	}
}

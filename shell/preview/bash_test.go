package preview

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The differential test runs bash itself on generated command lines over
// generated trees and holds the preview to what bash did: everything bash
// removed or changed must be among what the preview showed (a path it
// listed, or inside a folder it counted whole), unless the preview said it
// cannot tell. It is shell/plan's own differential test carried one step
// further, to the effects on disk.

// bashForDiff finds bash 5.2 or later (the version shell/plan models: a
// pattern never matches . or .. there), or skips.
func bashForDiff(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed, so the preview cannot be compared with it")
	}
	out, err := exec.Command(p, "-c", `echo "${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}"`).Output()
	if err != nil {
		t.Skipf("bash does not run: %v", err)
	}
	var major, minor int
	if _, err := fmt.Sscan(string(out), &major, &minor); err != nil || major < 5 || major == 5 && minor < 2 {
		t.Skipf("bash %s is older than 5.2, whose globbing shell/plan models", strings.TrimSpace(string(out)))
	}
	return p
}

// diffPool are the entries a generated tree is drawn from: dotfiles,
// names that differ only in case, a nested build folder with and without
// .ready, links, and a destination folder for mv and cp that may already
// hold some of what lands there.
var diffPool = []string{
	"a:1", "b.txt:2", "B.TXT:3", "foo:4", "f1:5", ".env:6", ".git/HEAD:7", ".git/objects/x:8",
	"build/a.o:9", "build/.ready:1", "build/sub/c.o:2", "build/keep.txt:3", "dir/x:4", "dir/.hidden:5",
	"dir/deep/y.o:6", "empty/", "z.o:7", "dest/a:8", "dest/build/keep.txt:9",
	"ln -> build", "lf -> a", "dangling -> nowhere",
}

func diffTree(t *testing.T, r *rand.Rand) (string, []string) {
	var specs []string
	for _, s := range diffPool {
		if r.IntN(3) > 0 {
			specs = append(specs, s)
		}
	}
	specs = append(specs, "dest/")
	return tree(t, specs...), specs
}

var (
	diffPrefixes = []string{
		"[ -f ~/build/.ready ] && cd ~/build; ",
		"[ -d build ] && cd build; ",
		"cd ~/build & ",
		"(cd build); ",
		"cd build | true; ",
		"cd nope; ",
		"cd build || exit; ",
		"shopt -s dotglob; ",
		"shopt -s nullglob; ",
		"shopt -s globstar; ",
		"shopt -s nocaseglob; ",
		"shopt -s failglob; ",
		"[ -e a ] && shopt -s dotglob; ",
		"GLOBIGNORE=a; ",
		"GLOBIGNORE='*.txt:f*'; ",
		"set -f; ",
		"if [ -e foo ]; then cd dir; else cd build; fi; ",
		"for d in dir build; do [ -d $d ] && cd $d; done; ",
		"x=build; ",
	}
	diffPatterns = []string{"*", ".*", "[!f]*", "**", "**/*.o", "*.TXT", "*.txt", "build/*", "b*", "a", "dir", "build", "$x", "*/", "?", ".[!.]*", "{a,foo}", "~/b*"}
	diffCommands = []string{
		"rm -f P", "rm -rf P", "rm --recu --for P", "rm -r --force P", "rm -d P", "rmdir P",
		"mv P dest/", "mv -- P dest", "cp -r P dest/", "cp --recur P dest/", "cp P dest/",
		"chmod -R 700 P", "chmod --rec 755 P", "chmod 700 P", "chmod -w P",
		"echo hi > P", "echo hi >> P", ": > P", "{ echo x; } > P", "truncate -s 0 P",
		"find P -delete", "find . -name 'P' -delete",
	}
)

// diffLine is one generated command line.
func diffLine(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(3) {
		b.WriteString(diffPrefixes[r.IntN(len(diffPrefixes))])
	}
	cmd := diffCommands[r.IntN(len(diffCommands))]
	pat := diffPatterns[r.IntN(len(diffPatterns))]
	if strings.HasPrefix(cmd, "find . -name") {
		pat = strings.Trim(pat, "{}/~$")
	}
	b.WriteString(strings.ReplaceAll(cmd, "P", pat))
	return b.String()
}

// entry is what the test compares of one path: bash changed the path when
// any of it differs. A folder's size and times follow its entries, so
// only its mode counts.
type entry struct {
	mode fs.FileMode
	size int64
	mtim int64
	sum  [32]byte
	link string
}

func snapshot(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{mode: fi.Mode()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link, _ = os.Readlink(p)
		case fi.Mode().IsRegular():
			e.size, e.mtim = fi.Size(), fi.ModTime().UnixNano()
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(b)
		}
		out[p] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// covered says whether p is among what the preview showed.
func covered(touched []counted, p string) bool {
	return slices.ContainsFunc(touched, func(c counted) bool {
		return p == c.path || c.whole && strings.HasPrefix(p, c.path+"/")
	})
}

func TestPreviewAgainstBash(t *testing.T) {
	bash := bashForDiff(t)
	seed := uint64(20)
	if s := os.Getenv("HARK_PREVIEW_DIFF_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = n
	}
	n := 300
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(seed, 2))
	told, cannot, changedCases := 0, 0, 0
	reasons := map[string]int{}
	for i := range n {
		root, specs := diffTree(t, r)
		line := diffLine(r)
		environ := []string{"HOME=" + root, "PATH=/usr/bin:/bin", "LC_ALL=C"}
		a := analyze(context.Background(), line, root, environ)
		if a == nil {
			t.Fatalf("case %d: %q does not parse", i, line)
		}
		p := a.render()
		before := snapshot(t, root)
		cmd := exec.Command(bash, "-c", line)
		cmd.Dir = root
		cmd.Env = environ
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run() // the exit status is the line's business
		// A background job (only ever a cd here) may outlive bash -c; it
		// changes nothing on disk.
		after := snapshot(t, root)
		var changed []string
		for path, e := range before {
			if path == root {
				continue
			}
			if e2, ok := after[path]; !ok || e2 != e {
				changed = append(changed, path)
			}
		}
		slices.Sort(changed)
		if len(changed) > 0 {
			changedCases++
		}
		if len(a.unknowns) > 0 || a.skipped > 0 {
			cannot++
			if p == nil || p.Status == Nothing {
				t.Errorf("case %d: %q: the preview cannot tell %q yet says %+v", i, line, a.unknowns, p)
			}
			if len(a.unknowns) > 0 {
				reasons[strings.SplitN(a.unknowns[0], "cannot tell — ", 2)[1]]++
			}
			continue
		}
		told++
		var missed []string
		for _, c := range changed {
			if !covered(a.touched, c) {
				rel, _ := filepath.Rel(root, c)
				missed = append(missed, rel)
			}
		}
		if len(missed) > 0 {
			var lines []string
			if p != nil {
				lines = append([]string{p.Summary}, p.Lines...)
			}
			t.Errorf("case %d: %q over %v\n  bash changed %v, which the preview did not show\n  preview: %s\n  bash said: %s",
				i, line, specs, missed, strings.Join(lines, "\n    "), strings.TrimSpace(stderr.String()))
		}
	}
	t.Logf("%d lines (seed %d): %d told, %d cannot tell; bash changed something in %d", n, seed, told, cannot, changedCases)
	for why, k := range reasons {
		t.Logf("cannot tell %d× — %s", k, why)
	}
	if cannot*2 > n {
		t.Errorf("the preview cannot tell for %d of %d lines: it must stay useful", cannot, n)
	}
}

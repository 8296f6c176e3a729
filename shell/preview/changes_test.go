package preview

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/scope"
)

// The places a preview names are the ones a run's scope is built from:
// a folder deleted whole, a file deleted, a file a redirection makes.
func TestPreviewChangesForTheScope(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "old"), 0o755)
	os.WriteFile(filepath.Join(dir, "old", "x"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	p := compute(context.Background(), "rm -r old a.txt > out.log", dir, []string{"HOME=" + dir})
	if p == nil {
		t.Fatal("no preview")
	}
	for _, want := range []scope.Change{
		{Path: filepath.Join(dir, "old"), Dir: true, Exists: true, Remove: true},
		{Path: filepath.Join(dir, "a.txt"), Exists: true, Remove: true},
		{Path: filepath.Join(dir, "out.log")},
	} {
		if !slices.Contains(p.Changes, want) {
			t.Errorf("changes %+v lack %+v", p.Changes, want)
		}
	}
	if !p.Sure {
		t.Errorf("every target was known, yet the preview is not sure: %+v", p)
	}
	if q := compute(context.Background(), "rm -r $(cat list)", dir, nil); q == nil || q.Sure {
		t.Errorf("a target a command substitution names cannot be sure: %+v", q)
	}
}

// The preview reads a line in order: a file written into a folder that an
// earlier part of the same line makes is a new file, never "fails"; one
// whose folder nothing makes still fails.
func TestPreviewReadsTheLineInOrder(t *testing.T) {
	dir := t.TempDir()
	p := compute(context.Background(), "mkdir -p D/sub && echo x > D/sub/README.txt", dir, []string{"HOME=" + dir})
	if p == nil || strings.Contains(p.Text(""), "fails") || !strings.Contains(p.Text(""), "D/sub/README.txt: new file, in a folder the command makes first") {
		t.Errorf("preview: %+v", p)
	}
	q := compute(context.Background(), "echo x > E/README.txt", dir, []string{"HOME=" + dir})
	if q == nil || !strings.Contains(q.Text(""), "its folder does not exist, so this fails") {
		t.Errorf("a folder nothing makes: %+v", q)
	}
}

// TestSedReadOnce: every spelling of sed that edits in place is one the
// policy asks about and one whose file the preview (and so the scope)
// names; every spelling that only reads is neither. One reading of sed's
// line (plan.ReadSed) serves both.
func TestSedReadOnce(t *testing.T) {
	pol := policy.New(policy.Options{})
	for _, opts := range []string{"-i", "-i.bak", "--in-place", "--in-place=.bak", "--in-pl=.bak", "--in-p", "-ni", "-n -i",
		"-Ei", "-i -e s/a/b/", "-e s/a/b/ -i", "--expression=s/a/b/ --in-place", "-s -i", "--regexp-ext -i"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\n"), 0o644)
		script := " s/a/b/"
		if strings.Contains(opts, "s/a/b/") {
			script = ""
		}
		cmd := "sed " + opts + script + " f.txt"
		if v := pol.ClassifyIn(cmd, dir); v.Tier == policy.Safe {
			t.Errorf("%s: the policy calls it read-only", cmd)
		}
		p := compute(context.Background(), cmd, dir, []string{"HOME=" + dir})
		if p == nil || !slices.ContainsFunc(p.Changes, func(c scope.Change) bool { return c.Path == filepath.Join(dir, "f.txt") }) {
			t.Errorf("%s: the preview does not name f.txt: %+v", cmd, p)
		}
	}
	for _, cmd := range []string{"sed -n p f.txt", "sed -E p f.txt", "sed --quiet p f.txt", "sed --expression=p f.txt", "sed -e p f.txt", "sed --posix -n p f.txt"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\n"), 0o644)
		if v := pol.ClassifyIn(cmd, dir); v.Tier != policy.Safe {
			t.Errorf("%s: the policy asks: %v", cmd, v.Reasons)
		}
		if p := compute(context.Background(), cmd, dir, []string{"HOME=" + dir}); p != nil && len(p.Changes) > 0 {
			t.Errorf("%s: the preview names changes: %+v", cmd, p.Changes)
		}
	}
}

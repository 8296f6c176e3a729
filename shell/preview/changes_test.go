package preview

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

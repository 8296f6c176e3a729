package preview

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

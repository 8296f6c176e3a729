package trash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder the trashed file came from, replaced by a link to a folder
// outside home since the move: undo refuses, says why, and writes nothing
// through the link.
func TestUndoRefusesAFolderNowALink(t *testing.T) {
	t.Parallel()
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			t.Parallel()
			l := newLayout(t)
			b := l.bin(t, Options{GOOS: goos, NoFinder: true})
			docs := filepath.Join(l.home, "docs")
			f := filepath.Join(docs, "report.txt")
			write(t, f, "report")
			rec, err := b.Trash(context.Background(), "rm ~/docs/report.txt", []string{f})
			if err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(filepath.Dir(l.home), "outside")
			mkdir(t, outside)
			if err := os.Remove(docs); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, docs); err != nil {
				t.Fatal(err)
			}
			_, err = b.UndoLast()
			if !errors.Is(err, ErrUnsafeRestore) || !strings.Contains(err.Error(), docs+" is no longer the folder it was") {
				t.Fatalf("undo through a link: %v", err)
			}
			if exists(filepath.Join(outside, "report.txt")) {
				t.Fatal("undo wrote outside home through the link")
			}
			if !exists(rec.Items[0].Trashed) {
				t.Fatal("the refused item left the Trash")
			}
			if _, ok, _ := b.Last(); !ok {
				t.Fatal("a refused undo forgot the set")
			}
			// The folder back in its place: undo goes through.
			os.Remove(docs)
			mkdir(t, docs)
			if _, err := b.UndoLast(); err != nil || read(t, f) != "report" {
				t.Fatalf("undo into the folder restored: %v", err)
			}
		})
	}
}

// The rename itself reaches the folder without following links, so a
// link swapped in after the checks (restoreTo called with none made)
// is refused too.
func TestRestoreDoesNotFollowLinks(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{GOOS: "linux"})
	trashed := filepath.Join(l.home, "trashed")
	write(t, trashed, "x")
	outside := filepath.Join(filepath.Dir(l.home), "outside")
	mkdir(t, outside)
	mkdir(t, filepath.Join(l.home, "a"))
	if err := os.Symlink(outside, filepath.Join(l.home, "a", "b")); err != nil {
		t.Fatal(err)
	}
	err := b.restoreTo(trashed, filepath.Join(l.home, "a", "b", "f"))
	if !errors.Is(err, ErrUnsafeRestore) || exists(filepath.Join(outside, "f")) {
		t.Fatalf("restore through a link: %v", err)
	}
	// Nor anywhere outside home, whatever the record says.
	if err := b.restoreTo(trashed, filepath.Join(outside, "g")); err == nil || !strings.Contains(err.Error(), "not inside the home folder") || exists(filepath.Join(outside, "g")) {
		t.Fatalf("restore outside home: %v", err)
	}
	if err := b.restoreTo(trashed, filepath.Join(l.home, "a", "f")); err != nil || read(t, filepath.Join(l.home, "a", "f")) != "x" {
		t.Fatalf("a plain restore: %v", err)
	}
}

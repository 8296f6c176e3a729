package trash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clock is the pinned deletion time every test writes.
var clock = time.Date(2026, 3, 4, 12, 3, 41, 0, time.Local)

// layout is a fake home with a freedesktop data folder.
type layout struct {
	home, data, state string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	root := t.TempDir()
	l := layout{home: filepath.Join(root, "home"), state: filepath.Join(root, "state", "last-trash.json")}
	l.data = filepath.Join(l.home, ".local", "share")
	mkdir(t, l.home)
	return l
}

func (l layout) bin(t *testing.T, o Options) *Bin {
	t.Helper()
	if o.GOOS == "" {
		o.GOOS = "linux"
	}
	o.Home, o.State, o.Now = l.home, l.state, func() time.Time { return clock }
	if o.GOOS != "darwin" {
		o.DataHome = l.data
	}
	o.UID, o.UIDSet = os.Getuid(), true
	b, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestHomeTrashFreedesktop(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	file := filepath.Join(l.home, "Downloads", "a b%+ü.txt")
	dir := filepath.Join(l.home, "Downloads", "old builds")
	write(t, file, "one")
	write(t, filepath.Join(dir, "x.o"), "obj")

	rec, err := b.Trash(context.Background(), "rm -r ~/Downloads/*", []string{file, dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Items) != 2 || rec.Summary() != "2 items" {
		t.Fatalf("record: %+v", rec)
	}
	trash := filepath.Join(l.data, "Trash")
	if exists(file) || exists(dir) {
		t.Fatal("originals still in place after Trash")
	}
	if got := read(t, filepath.Join(trash, "files", "a b%+ü.txt")); got != "one" {
		t.Fatalf("trashed file holds %q", got)
	}
	if got := read(t, filepath.Join(trash, "files", "old builds", "x.o")); got != "obj" {
		t.Fatalf("trashed folder lost its content: %q", got)
	}
	// The home trash writes absolute, percent-encoded paths and the local
	// time of deletion, exactly as the specification's example shows.
	wantInfo := "[Trash Info]\nPath=" + strings.ReplaceAll(filepath.ToSlash(l.home), " ", "%20") +
		"/Downloads/a%20b%25%2B%C3%BC.txt\nDeletionDate=2026-03-04T12:03:41\n"
	if got := read(t, filepath.Join(trash, "info", "a b%+ü.txt.trashinfo")); got != wantInfo {
		t.Fatalf("trashinfo:\n%s\nwant:\n%s", got, wantInfo)
	}
	if !rec.Items[1].Dir || rec.Items[0].Dir {
		t.Fatalf("Dir flags wrong: %+v", rec.Items)
	}

	// Another process (hark undo) finds the set through the state file.
	other := l.bin(t, Options{})
	back, err := other.UndoLast()
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Items) != 2 || read(t, file) != "one" || read(t, filepath.Join(dir, "x.o")) != "obj" {
		t.Fatalf("undo restored %+v", back)
	}
	if exists(filepath.Join(trash, "info", "a b%+ü.txt.trashinfo")) || exists(filepath.Join(trash, "files", "old builds")) {
		t.Fatal("undo left the trash entries behind")
	}
	if _, err := other.UndoLast(); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("second undo: %v, want ErrNothingToUndo", err)
	}
}

func TestNameClashes(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	a := filepath.Join(l.home, "a", "notes.txt")
	c := filepath.Join(l.home, "c", "notes.txt")
	dot := filepath.Join(l.home, "a", ".profile")
	dot2 := filepath.Join(l.home, "c", ".profile")
	for _, p := range []string{a, c, dot, dot2} {
		write(t, p, p)
	}
	// A file left in files/ without its .trashinfo by another program
	// keeps its name and is never overwritten.
	orphan := filepath.Join(l.data, "Trash", "files", "notes.2.txt")
	write(t, orphan, "orphan")

	rec, err := b.Trash(context.Background(), "", []string{a, c, dot, dot2})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range rec.Items {
		names = append(names, filepath.Base(it.Trashed))
	}
	if want := []string{"notes.txt", "notes.3.txt", ".profile", ".profile.2"}; !slices.Equal(names, want) {
		t.Fatalf("trash names %q, want %q", names, want)
	}
	if read(t, orphan) != "orphan" || exists(orphan+".trashinfo") || exists(filepath.Join(l.data, "Trash", "info", "notes.2.txt.trashinfo")) {
		t.Fatal("the orphan was touched or given an info file")
	}
	if _, err := b.UndoLast(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, c, dot, dot2} {
		if read(t, p) != p {
			t.Fatalf("%s did not come back to its own place", p)
		}
	}
}

func TestUndoRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			t.Parallel()
			l := newLayout(t)
			b := l.bin(t, Options{GOOS: goos, NoFinder: true})
			keep := filepath.Join(l.home, "keep.txt")
			back := filepath.Join(l.home, "docs", "report.txt")
			write(t, keep, "old keep")
			write(t, back, "old report")
			rec, err := b.Trash(context.Background(), "", []string{keep, back})
			if err != nil {
				t.Fatal(err)
			}
			write(t, keep, "NEW keep")

			_, err = b.UndoLast()
			if !errors.Is(err, ErrWouldOverwrite) || !strings.Contains(err.Error(), keep) {
				t.Fatalf("undo over an existing file: %v", err)
			}
			if read(t, keep) != "NEW keep" || exists(back) {
				t.Fatal("a refused undo changed something")
			}
			for _, it := range rec.Items {
				if !exists(it.Trashed) {
					t.Fatalf("%s left the Trash on a refused undo", it.Trashed)
				}
			}
			// The refused set stays recorded, so the user can move the
			// new file aside and try again.
			if _, ok, _ := b.Last(); !ok {
				t.Fatal("a refused undo forgot the set")
			}
			os.Rename(keep, keep+".new")
			if _, err := b.UndoLast(); err != nil {
				t.Fatal(err)
			}
			if read(t, keep) != "old keep" || read(t, back) != "old report" || read(t, keep+".new") != "NEW keep" {
				t.Fatal("undo after moving the blocker aside did not restore both")
			}
		})
	}
}

func TestUndoNeedsTheParentFolder(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	p := filepath.Join(l.home, "gone", "f")
	write(t, p, "f")
	if _, err := b.Trash(context.Background(), "", []string{p}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Dir(p))
	if _, err := b.UndoLast(); !errors.Is(err, ErrWouldOverwrite) || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("undo into a missing folder: %v", err)
	}
	if exists(filepath.Dir(p)) {
		t.Fatal("undo recreated the folder instead of refusing")
	}
}

func TestUndoSkipsWhatWasEmptied(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	x, y := filepath.Join(l.home, "x"), filepath.Join(l.home, "y")
	write(t, x, "x")
	write(t, y, "y")
	rec, err := b.Trash(context.Background(), "", []string{x, y})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(rec.Items[0].Trashed)
	back, err := b.UndoLast()
	if err == nil || !strings.Contains(err.Error(), "no longer in the Trash") || !strings.Contains(err.Error(), x) {
		t.Fatalf("undo with an emptied item: %v", err)
	}
	if len(back.Items) != 1 || read(t, y) != "y" || exists(x) {
		t.Fatalf("undo restored %+v", back.Items)
	}
	if _, err := b.UndoLast(); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("the emptied item was kept for another undo: %v", err)
	}
}

func TestTrashKeepsGoingAndCollapses(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	dir := filepath.Join(l.home, "build")
	write(t, filepath.Join(dir, "a"), "a")
	write(t, filepath.Join(dir, "sub", "b"), "b")
	missing := filepath.Join(l.home, "missing")
	inTrash := filepath.Join(l.data, "Trash", "files", "old")
	write(t, inTrash, "old")

	// find -delete lists the contents before the folder: one item moves.
	rec, err := b.Trash(context.Background(), "", []string{filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b"), filepath.Join(dir, "sub"), dir, missing, inTrash, "relative"})
	if len(rec.Items) != 1 || rec.Items[0].Original != dir {
		t.Fatalf("moved %+v, want only %s", rec.Items, dir)
	}
	for _, want := range []string{missing + ": no such file", inTrash + " is already in the Trash", "relative: not an absolute path"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v does not say %q", err, want)
		}
	}
	if read(t, inTrash) != "old" {
		t.Fatal("an item already in the Trash was moved")
	}
	trashDir := filepath.Join(l.data, "Trash")
	if rec, err := b.Trash(context.Background(), "", []string{trashDir}); len(rec.Items) != 0 || err == nil || !strings.Contains(err.Error(), trashDir+" is already in the Trash") {
		t.Fatalf("trashing the Trash itself: %+v, %v", rec, err)
	}
}

// deviceMap fakes a second filesystem: everything at or under mnt is on
// device 2, the rest on device 1.
func deviceMap(mnt string) func(string) (uint64, error) {
	return func(p string) (uint64, error) {
		if _, err := os.Stat(p); err != nil {
			return 0, err
		}
		if p == mnt || within(p, mnt) {
			return 2, nil
		}
		return 1, nil
	}
}

func TestTopdirTrash(t *testing.T) {
	t.Parallel()
	uid := strconv.Itoa(os.Getuid())
	cases := []struct {
		name    string
		prepare func(t *testing.T, mnt string)
		root    string // trash folder used, relative to mnt
		refused string
	}{
		{name: "own .Trash-uid", root: ".Trash-" + uid},
		{name: "shared .Trash with sticky bit", root: ".Trash/" + uid, prepare: func(t *testing.T, mnt string) {
			mkdir(t, filepath.Join(mnt, ".Trash"))
			if err := os.Chmod(filepath.Join(mnt, ".Trash"), 0o777|os.ModeSticky); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "shared .Trash without sticky bit is ignored", root: ".Trash-" + uid, prepare: func(t *testing.T, mnt string) {
			mkdir(t, filepath.Join(mnt, ".Trash"))
		}},
		{name: "shared .Trash as a symlink is ignored", root: ".Trash-" + uid, prepare: func(t *testing.T, mnt string) {
			elsewhere := t.TempDir()
			os.Chmod(elsewhere, 0o777|os.ModeSticky)
			if err := os.Symlink(elsewhere, filepath.Join(mnt, ".Trash")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: ".Trash-uid as a symlink is refused", refused: "symbolic link", prepare: func(t *testing.T, mnt string) {
			if err := os.Symlink(t.TempDir(), filepath.Join(mnt, ".Trash-"+uid)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLayout(t)
			mnt := filepath.Join(l.home, "usb")
			mkdir(t, mnt)
			if tc.prepare != nil {
				tc.prepare(t, mnt)
			}
			b := l.bin(t, Options{Device: deviceMap(mnt)})
			p := filepath.Join(mnt, "photos", "a #1.jpg")
			write(t, p, "jpg")
			rec, err := b.Trash(context.Background(), "", []string{p})
			if tc.refused != "" {
				if !errors.Is(err, ErrCrossDevice) || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "use Delete") {
					t.Fatalf("error %v, want ErrCrossDevice saying %q", err, tc.refused)
				}
				if read(t, p) != "jpg" {
					t.Fatal("a refused trash touched the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(mnt, tc.root)
			if rec.Items[0].Trashed != filepath.Join(root, "files", "a #1.jpg") {
				t.Fatalf("trashed to %s, want under %s", rec.Items[0].Trashed, root)
			}
			// A $topdir trash writes the path relative to the mount.
			want := "[Trash Info]\nPath=photos/a%20%231.jpg\nDeletionDate=2026-03-04T12:03:41\n"
			if got := read(t, filepath.Join(root, "info", "a #1.jpg.trashinfo")); got != want {
				t.Fatalf("trashinfo:\n%s\nwant:\n%s", got, want)
			}
			if exists(filepath.Join(l.data, "Trash")) {
				t.Fatal("a file on another mount went near the home trash")
			}
			if _, err := b.UndoLast(); err != nil || read(t, p) != "jpg" {
				t.Fatalf("undo: %v", err)
			}
		})
	}
}

func TestMacTrashUniqueNames(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{GOOS: "darwin", NoFinder: true})
	var paths []string
	for _, d := range []string{"a", "b", "c"} {
		p := filepath.Join(l.home, d, "report.pdf")
		write(t, p, d)
		paths = append(paths, p)
	}
	folder := filepath.Join(l.home, "v1.2 final")
	mkdir(t, folder)
	write(t, filepath.Join(l.home, ".Trash", "v1.2 final"), "in the way")
	paths = append(paths, folder)

	rec, err := b.Trash(context.Background(), "", paths)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range rec.Items {
		if filepath.Dir(it.Trashed) != filepath.Join(l.home, ".Trash") || it.Info != "" {
			t.Fatalf("%+v is not a plain ~/.Trash entry", it)
		}
		names = append(names, filepath.Base(it.Trashed))
	}
	want := []string{"report.pdf", "report 12.03.41.pdf", "report 12.03.41 2.pdf", "v1.2 final 12.03.41"}
	if !slices.Equal(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	if _, err := b.UndoLast(); err != nil {
		t.Fatal(err)
	}
	for i, d := range []string{"a", "b", "c"} {
		if read(t, paths[i]) != d {
			t.Fatalf("%s came back with the wrong content", paths[i])
		}
	}
	if read(t, filepath.Join(l.home, ".Trash", "v1.2 final")) != "in the way" {
		t.Fatal("the item already in ~/.Trash was disturbed")
	}
}

func TestMacFinder(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	var asked []string
	finderTrash := filepath.Join(l.home, ".Trash")
	finder := func(_ context.Context, p string) (string, error) {
		asked = append(asked, p)
		if filepath.Base(p) == "busy" {
			return "", errors.New("Finder got an error: The operation can't be completed")
		}
		dst := filepath.Join(finderTrash, "F "+filepath.Base(p))
		mkdir(t, finderTrash)
		return dst, os.Rename(p, dst)
	}
	b := l.bin(t, Options{GOOS: "darwin", Finder: finder})
	plain, busy, link := filepath.Join(l.home, "plain"), filepath.Join(l.home, "busy"), filepath.Join(l.home, "link")
	write(t, plain, "p")
	write(t, busy, "b")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	rec, err := b.Trash(context.Background(), "", []string{link, plain, busy})
	if err != nil {
		t.Fatal(err)
	}
	// The link never reaches Finder, which would trash its target.
	if !slices.Equal(asked, []string{plain, busy}) {
		t.Fatalf("Finder was asked about %q", asked)
	}
	got := map[string]string{}
	for _, it := range rec.Items {
		got[it.Original] = filepath.Base(it.Trashed)
	}
	if got[plain] != "F plain" || got[busy] != "busy" || got[link] != "link" {
		t.Fatalf("trashed as %v: want Finder's name for plain, the plain move for busy and link", got)
	}
	// Only the plain moves lack Put Back, and each says why.
	for _, it := range rec.Items {
		want := map[string]string{plain: "", busy: "Finder did not take it (Finder got an error", link: "what the link points to"}[it.Original]
		if (want == "") != (it.NoPutBack == "") || !strings.Contains(it.NoPutBack, want) {
			t.Errorf("%s: NoPutBack %q, want %q", it.Original, it.NoPutBack, want)
		}
	}
	if _, err := b.UndoLast(); err != nil {
		t.Fatal(err)
	}
	if read(t, plain) != "p" || read(t, busy) != "b" {
		t.Fatal("undo of Finder's items failed")
	}
	if target, err := os.Readlink(link); err != nil || target != plain {
		t.Fatalf("the link came back as %q, %v", target, err)
	}
}

func TestEncodePath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/home/u/a b.txt":   "/home/u/a%20b.txt",
		"rel/100%":          "rel/100%25",
		"/x/ü?#&=+;:@,$[]":  "/x/%C3%BC%3F%23%26%3D%2B%3B%3A%40%2C%24%5B%5D",
		"/keep-_.!~*'()abc": "/keep-_.!~*'()abc",
		"/line\nbreak":      "/line%0Abreak",
	} {
		if got := encodePath(in); got != want {
			t.Errorf("encodePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCorruptStateIsKept: an unreadable state file is moved aside, never
// overwritten, and the new set still undoes.
func TestCorruptStateIsKept(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	b := l.bin(t, Options{})
	write(t, l.state, "{not json")
	p := filepath.Join(l.home, "f")
	write(t, p, "f")
	rec, err := b.Trash(context.Background(), "", []string{p})
	if len(rec.Items) != 1 || err == nil || !strings.Contains(err.Error(), "is kept as") {
		t.Fatalf("Trash with a corrupt state: %+v, %v", rec, err)
	}
	asides, _ := filepath.Glob(l.state + ".corrupt-*")
	if len(asides) != 1 || read(t, asides[0]) != "{not json" {
		t.Fatalf("corrupt state kept as %q", asides)
	}
	if _, err := b.UndoLast(); err != nil || read(t, p) != "f" {
		t.Fatalf("undo after the corrupt state: %v", err)
	}

	write(t, l.state, "[]")
	if _, ok, err := b.Last(); ok || err == nil || !strings.Contains(err.Error(), "restore them from your file manager") {
		t.Fatalf("Last on a corrupt state: ok %v, %v", ok, err)
	}
	if exists(l.state) {
		t.Fatal("the corrupt state stayed in place")
	}
	// The clock is pinned: the second aside has the same stamp and must not
	// replace the first.
	if asides, _ := filepath.Glob(l.state + ".corrupt-*"); len(asides) != 2 {
		t.Fatalf("asides %q, want both corrupt files kept", asides)
	}
}

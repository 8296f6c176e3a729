package preview

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree builds files under a temp folder: a path ending in / is a folder,
// "path -> target" is a link, anything else a file of that many bytes of
// content given after a colon ("a.txt:5").
func tree(t testing.TB, specs ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, s := range specs {
		if name, target, ok := strings.Cut(s, " -> "); ok {
			mustMkdirAll(t, filepath.Dir(filepath.Join(root, name)))
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(s, "/") {
			mustMkdirAll(t, filepath.Join(root, s))
			continue
		}
		name, size, _ := strings.Cut(s, ":")
		n := 1
		if size != "" {
			n = atoi(t, size)
		}
		p := filepath.Join(root, name)
		mustMkdirAll(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func mustMkdirAll(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("bad size %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// run computes the preview of command in dir with HOME=home.
func run(t *testing.T, command, dir, home string) *Preview {
	t.Helper()
	return compute(context.Background(), command, dir, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GREETING=hello"})
}

type want struct {
	status  Status
	summary string   // exact, when set
	lines   []string // each must be one of the preview's lines
	absent  []string // substrings no line may contain
}

func check(t *testing.T, command string, got *Preview, w want) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no preview, want %+v", command, w)
	}
	if got.Status != w.status {
		t.Errorf("%s: status %q, want %q (summary %q)", command, got.Status, w.status, got.Summary)
	}
	if w.summary != "" && got.Summary != w.summary {
		t.Errorf("%s: summary\n  %q\nwant\n  %q", command, got.Summary, w.summary)
	}
	for _, l := range w.lines {
		if !slices.Contains(got.Lines, l) {
			t.Errorf("%s: no line %q in\n  %s", command, l, strings.Join(got.Lines, "\n  "))
		}
	}
	for _, s := range w.absent {
		for _, l := range got.Lines {
			if strings.Contains(l, s) {
				t.Errorf("%s: line %q contains %q", command, l, s)
			}
		}
	}
}

func TestDeletions(t *testing.T) {
	t.Parallel()
	outside := tree(t, "big/a:100", "big/b:100", "big/c/d:100")
	root := tree(t,
		"build/a.o:10", "build/b.o:20", "build/sub/c.o:30", "build/sub/deeper/", "build/out -> "+filepath.Join(outside, "big"),
		"my dir/one two.txt:3", "my dir/three.txt:4", "my dir/keep.md:5",
		"empty/", "full/x:1", "notes.txt:1204",
		"tolink -> "+filepath.Join(outside, "big"),
	)
	// build holds 60 bytes of files and a link, which counts as itself:
	// the bytes of the path it holds, never what it points to.
	linkSize := int64(len(filepath.Join(outside, "big")))
	build := "3 folders, 4 files, " + Size(60+linkSize)
	buildLine := "3 folders (this one and 2 inside), 4 files, " + Size(60+linkSize)
	cases := []struct {
		name, cmd string
		want
	}{
		{"recursive folder", "rm -rf build", want{status: Shown,
			summary: "Deletes " + build,
			lines:   []string{"build: " + buildLine}}},
		{"glob with spaces, quoted", `rm "my dir"/*.txt`, want{status: Shown,
			summary: "Deletes 2 files, 7 B",
			lines:   []string{"my dir/one two.txt: file, 3 B", "my dir/three.txt: file, 4 B"},
			absent:  []string{"keep.md"}}},
		{"glob with spaces, escaped", `rm my\ dir/*.txt`, want{status: Shown, summary: "Deletes 2 files, 7 B"}},
		{"glob matching nothing", `rm build/*.zip`, want{status: Nothing, summary: nothingSummary,
			lines: []string{"build/*.zip: no such file or folder"}}},
		{"missing targets only", "rm -rf old-builds ~/gone", want{status: Nothing, summary: nothingSummary,
			lines: []string{"old-builds: no such file or folder", "~/gone: no such file or folder"}}},
		{"missing beside existing", "rm notes.txt nope", want{status: Shown, summary: "Deletes 1 file, 1.2 KB",
			lines: []string{"notes.txt: file, 1.2 KB", "nope: no such file or folder"}}},
		{"link counts as itself", "rm -r tolink", want{status: Shown, summary: "Deletes 1 file, " + Size(int64(len(filepath.Join(outside, "big")))),
			lines: []string{"tolink: link to " + filepath.Join(outside, "big") + ", " + Size(int64(len(filepath.Join(outside, "big")))) + " (only the link itself)"}}},
		{"link inside is not followed", "rm -r build", want{status: Shown, summary: "Deletes " + build,
			absent: []string{"300"}}},
		{"trailing slash goes through the link, as rm does", "rm -r tolink/", want{status: Shown,
			summary: "Deletes 2 folders, 3 files, 300 B"}},
		{"folder without -r", "rm full", want{status: Nothing,
			summary: "Nothing would change: full: folder, so rm without -r refuses it. The model may be wrong."}},
		{"rmdir empty", "rmdir empty", want{status: Shown, summary: "Deletes 1 folder", lines: []string{"empty: empty folder"}}},
		{"rmdir not empty", "rmdir full", want{status: Nothing, lines: []string{"full: folder that is not empty, so rmdir refuses it"}}},
		{"home variable", "rm -r $HOME/build", want{status: Shown, summary: "Deletes " + build,
			lines: []string{"~/build: " + buildLine}}},
		{"tilde", "rm ~/notes.txt", want{status: Shown, lines: []string{"~/notes.txt: file, 1.2 KB"}}},
		{"braces", "rm build/{a,b}.o", want{status: Shown, summary: "Deletes 2 files, 30 B"}},
		{"after cd", "cd build && rm a.o", want{status: Shown, lines: []string{"a.o: file, 10 B"}}},
		{"for loop", `for f in build/a.o build/b.o; do rm "$f"; done`, want{status: Shown, summary: "Deletes 2 files, 30 B"}},
		{"wrapper", "nice -n 5 env LC_ALL=C rm notes.txt", want{status: Shown, summary: "Deletes 1 file, 1.2 KB"}},
		{"absolute path", "rm " + filepath.Join(root, "notes.txt"), want{status: Shown, lines: []string{"~/notes.txt: file, 1.2 KB"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check(t, c.cmd, run(t, c.cmd, root, root), c.want)
		})
	}
}

func TestUnknowns(t *testing.T) {
	t.Parallel()
	root := tree(t, "a:1", "sentinel/")
	ran := filepath.Join(root, "sentinel", "ran")
	cases := []struct {
		name, cmd, line string
	}{
		{"command substitution", "rm $(touch " + ran + "; echo a)", "cannot tell — a command substitution or arithmetic, only known when the command runs"},
		{"backquotes", "rm `touch " + ran + "`", "cannot tell — a command substitution or arithmetic, only known when the command runs"},
		{"variable read while it runs", "read x; rm $x", "$x: cannot tell — $x is only known when the command runs"},
		{"positional", "read x; set -- $x; rm $1", "$1: cannot tell — $1 is only known when the command runs"},
		{"cd to unknown", "cd $(pwd)/x && rm a", "rm a: cannot tell — what ran before it makes its folder or words unknown: a command substitution or arithmetic, only known when the command runs"},
		{"sandbox's own variable", "rm -rf $TMPDIR/x", "$TMPDIR/x: cannot tell — $TMPDIR is the preview's own here, not the command's"},
		{"xargs", "ls | xargs rm", "xargs: cannot tell — the files come from its input, which a preview does not read"},
		{"find -exec", `find . -exec grep -q x {} \; -delete`, "find: cannot tell — -exec runs another program, which a preview does not do"},
		{"find -exec rm -i", `find . -exec rm -i {} \;`, "find: cannot tell — -exec runs another program, which a preview does not do"},
		{"find -ok", `find . -ok rm {} \;`, "find: cannot tell — -ok runs another program, which a preview does not do"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, c.cmd, root, root)
			if got == nil || !slices.ContainsFunc(got.Lines, func(l string) bool { return strings.HasSuffix(l, c.line) }) {
				t.Fatalf("%s: want a line ending %q, got %+v", c.cmd, c.line, got)
			}
			if !strings.HasPrefix(got.Summary, "Cannot tell") {
				t.Errorf("%s: summary %q should say it cannot tell", c.cmd, got.Summary)
			}
		})
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a command substitution ran during a preview")
	}
	t.Run("known part still counted", func(t *testing.T) {
		got := run(t, "rm a $(cat b)", root, root)
		check(t, "rm a $(cat b)", got, want{status: Shown, summary: "Deletes 1 file, 1 B; 1 target cannot be known"})
	})
	// The line's own assignments and the environment are followed as
	// bash follows them: an unset variable is empty.
	t.Run("variable set by the line", func(t *testing.T) {
		check(t, "x=a; rm $x", run(t, "x=a; rm $x", root, root), want{status: Shown, summary: "Deletes 1 file, 1 B", lines: []string{"a: file, 1 B"}})
	})
	t.Run("variable not set", func(t *testing.T) {
		check(t, "rm $NOPE a", run(t, "rm $NOPE a", root, root), want{status: Shown, summary: "Deletes 1 file, 1 B"})
	})
	t.Run("environment variable", func(t *testing.T) {
		got := run(t, "echo hi > $GREETING.txt", root, root)
		check(t, "echo > $GREETING.txt", got, want{status: Shown, lines: []string{"> hello.txt: new file"}})
	})
}

func TestFindDelete(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("no find on this system: the find preview runs it")
	}
	root := tree(t, "x:1", "keep/y:2", "keep/x:3", "keep/deep/z:4", "a.o:5", "b.o:6")
	cases := []struct {
		name, cmd string
		want
	}{
		// -delete first deletes everything: the filter after it only
		// decides what the expression returns.
		{"filter after the action", "find . -delete -name x", want{status: Shown,
			summary: "Deletes 2 folders, 6 files, 21 B", absent: []string{"./\n"}}},
		{"filter before the action", "find . -name x -delete", want{status: Shown,
			summary: "Deletes 2 files, 4 B", lines: []string{"find matches 2 files, 4 B"}}},
		{"other output actions do not count", "find . -name '*.o' -print -delete", want{status: Shown,
			summary: "Deletes 2 files, 11 B", lines: []string{"  ./a.o", "  ./b.o"}}},
		{"explicit -depth with prune", "find . -depth -path ./keep -prune -o -name x -delete", want{status: Shown,
			summary: "Deletes 2 files, 4 B", lines: []string{"  ./x", "  ./keep/x"}}},
		{"starting point", "find keep -type f -delete", want{status: Shown, summary: "Deletes 3 files, 9 B"}},
		{"matches nothing", "find . -name '*.zip' -delete", want{status: Nothing, summary: nothingSummary}},
		{"exec rm", `find . -name '*.o' -exec rm -f {} \;`, want{status: Shown, summary: "Deletes 2 files, 11 B"}},
		{"exec rm -rf of folders", "find . -type d -name keep -exec rm -rf {} +", want{status: Shown,
			summary: "Deletes 2 folders, 3 files, 9 B", lines: []string{"  ./keep"}, absent: []string{"./keep/x"}}},
		{"exec rm of a folder without -r", `find . -name keep -exec rm {} \;`, want{status: Nothing,
			summary: "Nothing would change: find: matches 1 folder, which rm without -r refuses. The model may be wrong."}},
		{"exec rm with prune", `find . -name keep -prune -o -name x -exec rm {} +`, want{status: Shown, summary: "Deletes 1 file, 1 B"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check(t, c.cmd, run(t, c.cmd, root, root), c.want)
		})
	}
	// A starting point that does not exist: find's own error is shown
	// (GNU and BSD word it differently).
	if got := run(t, "find gone -delete", root, root); got == nil || !strings.HasPrefix(got.Summary, "Cannot tell what it would touch: find failed: ") || !strings.Contains(got.Summary, "gone") {
		t.Errorf("find of a missing folder: %+v", got)
	}
	// -delete implies -depth, under which -prune does nothing; GNU find
	// refuses to start, BSD find goes on and deletes what -prune meant to
	// keep.
	pruned := run(t, "find . -path ./keep -prune -o -name x -delete", root, root)
	if runtime.GOOS == "linux" {
		check(t, "find -prune -delete", pruned, want{status: Nothing,
			lines: []string{"find: refuses to run, because -delete turns on -depth, under which -prune does nothing"}})
	} else {
		check(t, "find -prune -delete", pruned, want{status: Shown, summary: "Deletes 2 files, 4 B"})
	}
	if got := run(t, "find . -name -delete", root, root); got != nil {
		t.Errorf("-delete as the argument of -name is a name, not the action; got %+v", got)
	}
	if got := run(t, "find . -name x", root, root); got != nil {
		t.Errorf("find without -delete changes nothing; got %+v", got)
	}
}

func TestWrites(t *testing.T) {
	t.Parallel()
	root := tree(t, "a.txt:2100", "dir/", "log:40", "dir/a.txt:7", "other:9")
	cases := []struct {
		name, cmd string
		want
	}{
		{"overwrite", "echo hi > a.txt", want{status: Shown, summary: "Overwrites 1 file, 2.1 KB",
			lines: []string{"> a.txt: existing file, 2.1 KB, overwritten"}}},
		{"append", "echo hi >> log", want{status: Shown, summary: "Appends to 1 file, 40 B"}},
		{"new file", "echo hi > new.txt", want{status: Shown, summary: "Creates 1 file", lines: []string{"> new.txt: new file"}}},
		{"missing folder", "echo hi > nope/new.txt", want{status: Nothing, lines: []string{"> nope/new.txt: its folder does not exist, so this fails"}}},
		{"stderr too", "make &> log", want{status: Shown, summary: "Overwrites 1 file, 40 B"}},
		{"tee", "echo x | tee a.txt log", want{status: Shown, summary: "Overwrites 2 files, 2.1 KB"}},
		{"tee -a", "echo x | tee -a log", want{status: Shown, summary: "Appends to 1 file, 40 B"}},
		{"truncate", "truncate -s 0 log", want{status: Shown, summary: "Resizes 1 file, 40 B"}},
		{"mv onto a file", "mv other a.txt", want{status: Shown, summary: "Moves 1 file, 9 B; replaces 1 file, 2.1 KB",
			lines: []string{"other: file, 9 B, to a.txt", "a.txt: file already there, 2.1 KB, replaced"}}},
		{"mv into a folder with a clash", "mv a.txt dir", want{status: Shown, summary: "Moves 1 file, 2.1 KB; replaces 1 file, 7 B",
			lines: []string{"dir/a.txt: file already there, 7 B, replaced"}}},
		{"mv -n keeps", "mv -n a.txt dir/", want{status: Shown, summary: "Moves 1 file, 2.1 KB",
			lines: []string{"dir/a.txt: exists and is kept (mv -n)"}}},
		{"cp -t", "cp -t dir a.txt other", want{status: Shown, summary: "Copies 2 files, 2.1 KB; replaces 1 file, 7 B"}},
		{"cp without clash", "cp log dir/", want{status: Shown, summary: "Copies 1 file, 40 B", lines: []string{"log: file, 40 B, to dir/log"}}},
		{"chmod -R", "chmod -R go-w dir", want{status: Shown, summary: "Changes permissions of 1 folder, 1 file, 7 B"}},
		{"chmod mode that looks like an option", "chmod -w a.txt", want{status: Shown, summary: "Changes permissions of 1 file, 2.1 KB"}},
		{"chown", "chown -R nobody dir", want{status: Shown, summary: "Changes the owner of 1 folder, 1 file, 7 B"}},
		{"ln -sf onto a file", "ln -sf /etc/hosts other", want{status: Shown, summary: "Replaces 1 file, 9 B",
			lines: []string{"other: file already there, 9 B, replaced"}}},
		{"ln -sf into a folder", "ln -sf /x/a.txt dir", want{status: Shown, summary: "Replaces 1 file, 7 B"}},
		{"sed -i", "sed -i 's/a/b/' a.txt log", want{status: Shown, summary: "Overwrites 2 files, 2.1 KB",
			lines: []string{"sed -i a.txt: existing file, 2.1 KB, overwritten"}}},
		{"sed -i -e", "sed -i.bak -e 's/a/b/' -e 's/c/d/' log nope", want{status: Shown, summary: "Overwrites 1 file, 40 B",
			lines: []string{"sed -i nope: no such file"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check(t, c.cmd, run(t, c.cmd, root, root), c.want)
		})
	}
	for _, cmd := range []string{"ls > /dev/null", "ls 2>&1", "ls >&2", "cat a.txt", "ls -la", "ln -s a.txt new-link", "sed 's/a/b/' a.txt"} {
		// Nothing a person is shown; ln -s still names, for the scope,
		// where it makes the link (a quiet preview).
		if got := run(t, cmd, root, root); got != nil && got.Status != Quiet {
			t.Errorf("%s touches nothing, got %+v", cmd, got)
		}
	}
}

func TestGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this system: the git previews run it")
	}
	root := tree(t, "tracked.txt:3", "second.txt:4", "sub/inner.txt:5")
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "first")
	clean := run(t, "git reset --hard", root, root)
	check(t, "git reset --hard (clean)", clean, want{status: Nothing, lines: []string{"git reset --hard: no uncommitted changes to lose"}})

	must(t, os.WriteFile(filepath.Join(root, "tracked.txt"), []byte("changed"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub/inner.txt"), []byte("staged"), 0o644))
	gitIn("add", "sub/inner.txt")
	must(t, os.WriteFile(filepath.Join(root, "untracked.log"), []byte("12345678"), 0o644))
	mustMkdirAll(t, filepath.Join(root, "junk/deep"))
	must(t, os.WriteFile(filepath.Join(root, "junk/deep/f"), []byte("1"), 0o644))

	cases := []struct {
		name, cmd string
		want
	}{
		{"reset --hard loses staged and unstaged", "git reset --hard", want{status: Shown,
			summary: "Throws away uncommitted changes to 2 files",
			lines:   []string{"  sub/inner.txt", "  tracked.txt"}}},
		{"checkout -- . loses unstaged only", "git checkout -- .", want{status: Shown,
			summary: "Throws away uncommitted changes to 1 file",
			lines:   []string{"  tracked.txt"}, absent: []string{"inner"}}},
		{"checkout .", "git checkout .", want{status: Shown, summary: "Throws away uncommitted changes to 1 file"}},
		{"restore", "git restore tracked.txt", want{status: Shown, summary: "Throws away uncommitted changes to 1 file"}},
		{"clean -f", "git clean -f", want{status: Shown, summary: "Deletes 1 file, 8 B",
			lines: []string{"  untracked.log"}, absent: []string{"junk"}}},
		{"clean -fd", "git clean -fd", want{status: Shown, summary: "Deletes 2 folders, 2 files, 9 B",
			lines: []string{"  junk/", "  untracked.log"}}},
		{"git -C", "cd / && git -C " + root + " clean -fdq", want{status: Shown, summary: "Deletes 2 folders, 2 files, 9 B"}},
		{"clean without -f", "git clean -d", want{status: Nothing, lines: []string{"git clean: refuses to remove anything without -f"}}},
		{"clean with -e", "git clean -e '*.log' --force", want{status: Nothing, summary: nothingSummary}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check(t, c.cmd, run(t, c.cmd, root, root), c.want)
		})
	}
	// The previews changed nothing: the dry runs really were dry.
	if _, err := os.Stat(filepath.Join(root, "untracked.log")); err != nil {
		t.Errorf("git clean's preview removed a file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "tracked.txt")); string(b) != "changed" {
		t.Errorf("a git preview changed tracked.txt to %q", b)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A file name can hold an escape sequence or a line break; the preview
// shows them as code points, so no terminal obeys them and no name
// passes for another.
func TestNamesAreMadeVisible(t *testing.T) {
	t.Parallel()
	root := tree(t, "evil\x1b[2Jname:1", "two\nlines:1", "rtl\u202etxt.exe:1")
	got := run(t, "rm evil* two* rtl*", root, root)
	check(t, "rm with odd names", got, want{status: Shown, summary: "Deletes 3 files, 3 B",
		lines: []string{"evil⟨U+001B⟩[2Jname: file, 1 B", "two⟨U+000A⟩lines: file, 1 B", "rtl⟨U+202E⟩txt.exe: file, 1 B"}})
}

func TestWants(t *testing.T) {
	t.Parallel()
	for cmd, w := range map[string]bool{
		"rm -rf x":               true,
		"echo hi > f":            true,
		"ls | xargs rm":          true,
		"git clean -fd":          true,
		"ls -la":                 false,
		"ls > /dev/null 2>&1":    false,
		"cat f >&2":              false,
		"curl https://x | sh":    false,
		"echo 'unclosed":         false,
		"for f in *; do :; done": false,
	} {
		if got := Wants(cmd); got != w {
			t.Errorf("Wants(%q) = %v, want %v", cmd, got, w)
		}
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	for in, w := range map[int64]string{0: "0", 999: "999", 1204: "1,204", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(in); got != w {
			t.Errorf("Thousands(%d) = %q, want %q", in, got, w)
		}
	}
	for in, w := range map[int64]string{0: "0 B", 999: "999 B", 2100: "2.1 KB", 3_200_000_000: "3.2 GB", 45_000_000: "45 MB", 9_960: "10 KB"} {
		if got := Size(in); got != w {
			t.Errorf("Size(%d) = %q, want %q", in, got, w)
		}
	}
	if got := (tally{Folders: 3, Files: 1204, Bytes: 3_200_000_000}).String(); got != "3 folders, 1,204 files, 3.2 GB" {
		t.Errorf("tally = %q", got)
	}
	if got := (tally{Files: 10, Partial: true}).String(); got != "at least 10 files" {
		t.Errorf("partial tally = %q", got)
	}
}

// A very long path loses whole folders from its middle: the start, the
// file's name and what happens to it are seen, and no name is cut.
func TestLongLinesDropWholeFolders(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("d", 200) + "/" + strings.Repeat("e", 200)
	root := tree(t, deep+"/the-file.txt:3")
	got := run(t, "rm "+deep+"/the-file.txt", root, root)
	if got == nil || len(got.Lines) != 1 {
		t.Fatalf("preview %+v", got)
	}
	if l, want := got.Lines[0], strings.Repeat("d", 200)+"/…/the-file.txt: file, 3 B"; l != want {
		t.Errorf("line %q, want %q", l, want)
	}
}

func TestClipPathNeverCutsAName(t *testing.T) {
	t.Parallel()
	long := "~/Documents/archive/2024/projects/website/assets/images/originals/holiday/beach-panorama-final.tif: file, 3 KB"
	cases := []struct {
		name, in string
		n        int
		want     string
	}{
		{"fits", "~/a/b.txt: file, 1 B", 40, "~/a/b.txt: file, 1 B"},
		{"middle folders go first", long, 80, "~/Documents/archive/…/originals/holiday/beach-panorama-final.tif: file, 3 KB"},
		{"down to head and name", long, 20, "~/…/beach-panorama-final.tif: file, 3 KB"},
		{"two paths keep the words between them",
			"~/inbox/2024/q1/report.pdf → ~/archive/2024/q1/report.pdf: file already there, replaced", 60,
			"~/…/report.pdf → ~/…/report.pdf: file already there, replaced"},
		{"a folder with a space in its name is kept, not cut", "~/My Documents/x/y/z/a.txt: file, 1 B", 20, "~/My Documents/…/a.txt: file, 1 B"},
		{"no folder to leave out", strings.Repeat("n", 100) + ": file, 1 B", 40, strings.Repeat("n", 100) + ": file, 1 B"},
	}
	for _, c := range cases {
		got := clipPath(c.in, c.n)
		if got != c.want {
			t.Errorf("%s: clipPath(%q, %d)\n = %q\nwant %q", c.name, c.in, c.n, got, c.want)
		}
		// Every name in the result is a whole name of the input.
		in := strings.Split(c.in, "/")
		for _, seg := range strings.Split(got, "/") {
			if seg != "…" && !slices.Contains(in, seg) {
				t.Errorf("%s: %q is not a whole part of %q", c.name, seg, c.in)
			}
		}
	}
	if got := clipPath(strings.Repeat("x", 5000), maxLineRunes); len([]rune(got)) != clipHard {
		t.Errorf("text with no folders is bounded at %d, got %d characters", clipHard, len([]rune(got)))
	}
}

// The summary's totals are the sum of the lines: each file line is one
// file, each folder line the folder itself and what it holds, and says
// so in the same numbers: "Deletes 8 folders" sits over "build: 8 folders
// (this one and 7 inside)", never over "folder with 7 folders" (walk 6
//
func TestSummaryTotalsAddUpToTheLines(t *testing.T) {
	t.Parallel()
	specs := []string{"notes.txt:5", "todo.md:7"}
	for i := range 7 {
		specs = append(specs, fmt.Sprintf("build/sub%d/a.o:%d", i, i+1))
	}
	root := tree(t, specs...)
	got := run(t, "rm -r build notes.txt todo.md", root, root)
	if got == nil {
		t.Fatal("no preview")
	}
	var sum tally
	for _, l := range got.Lines {
		_, desc, ok := strings.Cut(l, ": ")
		if !ok {
			t.Fatalf("line %q has no description", l)
		}
		switch {
		case strings.HasPrefix(desc, "file, "):
			sum.Files++
			sum.Bytes += sizeIn(t, strings.TrimPrefix(desc, "file, "))
		case strings.HasPrefix(desc, "folder with "):
			sum.Folders++
			sum.add(parseTally(t, strings.TrimPrefix(desc, "folder with ")))
		case strings.Contains(desc, " (this one and "):
			counts, inside, _ := strings.Cut(desc, " (this one and ")
			n, _, _ := strings.Cut(inside, " inside)")
			if whole := parseTally(t, counts); whole.Folders != int64(atoi(t, n))+1 {
				t.Errorf("line %q: its folders are not this one and the ones inside", l)
			}
			sum.add(parseTally(t, strings.Replace(desc, " (this one and "+n+" inside)", "", 1)))
		default:
			t.Fatalf("line %q: unknown description", l)
		}
	}
	if want := "Deletes " + sum.String(); got.Summary != want {
		t.Errorf("summary %q, but the lines add up to %q\n%s", got.Summary, want, strings.Join(got.Lines, "\n"))
	}
	if got.Summary != "Deletes 8 folders, 9 files, 40 B" {
		t.Errorf("summary %q", got.Summary)
	}
	if want := "build: 8 folders (this one and 7 inside), 7 files, 28 B"; !slices.Contains(got.Lines, want) {
		t.Errorf("no line %q: the folder's line and the total disagree\n%s", want, strings.Join(got.Lines, "\n"))
	}
}

// parseTally reads tally.String back: "7 folders, 7 files, 28 B".
func parseTally(t *testing.T, s string) tally {
	t.Helper()
	var out tally
	for _, part := range strings.Split(s, ", ") {
		num, unit, _ := strings.Cut(part, " ")
		switch unit {
		case "folder", "folders":
			out.Folders += int64(atoi(t, strings.ReplaceAll(num, ",", "")))
		case "file", "files":
			out.Files += int64(atoi(t, strings.ReplaceAll(num, ",", "")))
		default:
			out.Bytes += sizeIn(t, part)
		}
	}
	return out
}

func sizeIn(t *testing.T, s string) int64 {
	t.Helper()
	n, ok := strings.CutSuffix(s, " B")
	if !ok {
		t.Fatalf("size %q is not in bytes; keep the test's files small", s)
	}
	return int64(atoi(t, n))
}

// FuzzCompute: no command line makes the engine panic, and every preview
// it returns is well formed. It only reads (stat, walk, find without
// actions, git dry runs) and stops at its deadline.
func FuzzCompute(f *testing.F) {
	for _, s := range []string{
		"rm -rf build", `rm "my dir"/*.txt`, "find . -delete -name x", "find . -name '*.o' -print -delete",
		"git clean -fdx", "git reset --hard", "git checkout -- .", "mv a b c/", "cp -t d a", "chmod -w a",
		"echo > f; echo >> g", "for f in a b; do rm $f; done", "cd x && rm y", "rm $(ls)", "x=1; rm $x",
		"rm {a,b}{1..3}", "find . ( -name a -o -name b ) -delete", "dd if=a of=b conv=notrunc", "tee -a f <<EOF\nx\nEOF",
		"rm -- -rf", "find", "git -C", "mv", "chmod", "rm ''", ">", "rm ~nobody/x",
	} {
		f.Add(s)
	}
	root := tree(f, "build/a.o:1", "my dir/b.txt:2", "a:1", "b:1", "c/", "d/", "x/y:1", "f:1", "g:1")
	f.Fuzz(func(t *testing.T, command string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		p := compute(ctx, command, root, []string{"HOME=" + root, "PATH=" + os.Getenv("PATH")})
		if p == nil {
			return
		}
		if p.Summary == "" || (p.Status != Shown && p.Status != Nothing) || len(p.Lines) > maxLines {
			t.Fatalf("%q: malformed preview %+v", command, p)
		}
		for _, l := range p.Lines {
			if visible(l) != l || len([]rune(l)) > maxLineRunes && clipPath(l, maxLineRunes) != l {
				t.Fatalf("%q: line %q is not clipped or visible", command, l)
			}
		}
	})
}

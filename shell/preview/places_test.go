package preview

import (
	"slices"
	"strings"
	"testing"
)

// The red-team lines: where bash may run a command in more than one folder,
// or with shell options that widen its patterns, or reads an abbreviated
// long option, the preview shows at least what bash would do.
func TestPlacesAndOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cmd string
		specs     []string
		want
	}{
		{"conditional cd that does not happen", "[ -f ~/build/.ready ] && cd ~/build; rm -rf *",
			[]string{"build/a.o:10", "notes.txt:5"}, want{status: Shown,
				lines: []string{"rm -rf *: runs in ~ or ~/build, depending on what ran before it", "~/notes.txt: file, 5 B", "~/build: folder with 1 file, 10 B"}}},
		{"background cd", "cd ~/build & rm -rf *", []string{"build/a.o:10", "notes.txt:5"}, want{status: Shown,
			summary: "Deletes 1 folder, 2 files, 15 B", lines: []string{"notes.txt: file, 5 B", "build: folder with 1 file, 10 B"}}},
		{"subshell cd", "(cd build); rm notes.txt", []string{"build/notes.txt:10", "notes.txt:5"}, want{status: Shown,
			summary: "Deletes 1 file, 5 B"}},
		{"dotglob", "shopt -s dotglob; rm -rf *", []string{".git/HEAD:3", ".env:2", "a:1"}, want{status: Shown,
			summary: "Deletes 1 folder, 3 files, 6 B", lines: []string{".env: file, 2 B", ".git: folder with 1 file, 3 B"}}},
		{"GLOBIGNORE", "GLOBIGNORE=a; rm -rf *", []string{".git/HEAD:3", ".env:2", "a:1"}, want{status: Shown,
			summary: "Deletes 1 folder, 2 files, 5 B", absent: []string{"a: file"}}},
		{"globstar", "shopt -s globstar; rm **/*.o", []string{"x/y/z.o:3", "a.o:1"}, want{status: Shown,
			summary: "Deletes 2 files, 4 B"}},
		{"nocaseglob", "shopt -s nocaseglob; rm *.TXT", []string{"a.txt:3", "B.Txt:1"}, want{status: Shown,
			summary: "Deletes 2 files, 4 B"}},
		{"failglob", "shopt -s failglob; rm *.zip a", []string{"a:1"}, want{status: Nothing,
			lines: []string{"rm *.zip a: bash does not run it (no match for *.zip (failglob))"}}},
		{"rm --recu", "rm --recu build", []string{"build/a.o:10"}, want{status: Shown, summary: "Deletes 1 folder, 1 file, 10 B"}},
		{"chmod --rec", "chmod --rec go-w build", []string{"build/a.o:10"}, want{status: Shown, summary: "Changes permissions of 1 folder, 1 file, 10 B"}},
		{"cp --recur", "cp --recur build dest", []string{"build/a.o:10", "dest/"}, want{status: Shown, summary: "Copies 1 folder, 1 file, 10 B"}},
		{"redirect of a loop after cd", "cd build && for f in *; do cat $f; done > out.txt", []string{"build/a.o:10", "out.txt:4"}, want{status: Shown,
			summary: "Creates 1 file", lines: []string{"> out.txt: new file"}}},
		{"redirect after a conditional cd", "[ -d build ] && cd build; echo hi > notes.txt", []string{"build/", "notes.txt:5"}, want{status: Shown,
			summary: "Overwrites 1 file, 5 B; creates 1 file", lines: []string{"echo hi > notes.txt: runs in ~ or ~/build, depending on what ran before it",
				"> ~/notes.txt: existing file, 5 B, overwritten", "> ~/build/notes.txt: new file"}}},
		{"redirect of a block in an unknown folder", "cd $(pwd); { echo; } > f", nil, want{status: Shown,
			lines: []string{"> f: cannot tell — what ran before it makes its folder or words unknown: a command substitution or arithmetic, only known when the command runs"}}},
		{"redirect alone", "> notes.txt", []string{"notes.txt:5"}, want{status: Shown, summary: "Overwrites 1 file, 5 B"}},
		{"command name from the line", "c=rm; $c notes.txt", []string{"notes.txt:5"}, want{status: Shown, summary: "Deletes 1 file, 5 B"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := tree(t, c.specs...)
			check(t, c.cmd, run(t, c.cmd, root, root), c.want)
		})
	}
	t.Run("cd in a loop", func(t *testing.T) {
		t.Parallel()
		root := tree(t, "a/b/c/d/e/f:1")
		got := run(t, "while true; do cd *; done; rm -rf *", root, root)
		if got == nil || !slices.ContainsFunc(got.Lines, func(l string) bool { return strings.Contains(l, "cannot tell") }) {
			t.Fatalf("a cd that repeats leaves the folder unknown; got %+v", got)
		}
		if got.Status == Nothing {
			t.Errorf("status %q for a command that removes something", got.Status)
		}
	})
}

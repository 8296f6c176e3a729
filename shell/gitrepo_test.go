package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The repository scan reads a config file whole, by git's grammar, and the
// files it includes; what it cannot read as git would asks. Each hostile
// file once hid its program from the line scanner (a line over 64 KiB,
// a key past the first MiB, a lone carriage return, a byte-order mark, a
// ']' in a subsection) or was an include it did not follow.
func TestConfigNamesProgram(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := strings.Repeat("a", 100<<10)
	write("inc/clean", "[color]\n\tui = auto\n")
	write("inc/ext", "[diff]\n\texternal = /evil\n")
	write("inc/deep", "[include]\n\tpath = ext\n")
	write("inc/loop-a", "[include]\n\tpath = loop-b\n")
	write("inc/loop-b", "[include]\n\tpath = loop-a\n")
	write("inc/self", "[include]\n\tpath = self\n")
	write(".gitconfig-work", "[filter \"lfs\"]\n\tclean = /evil\n")
	if err := os.MkdirAll(filepath.Join(home, "inc/adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content string
		want          string // "" clean, else a substring of the answer
	}{
		{"long line", "[alias]\n\tx = " + long + "\n[diff]\n\texternal = /evil\n", "diff.external"},
		{"long line, value", "[diff]\n\texternal = /evil" + long + "\n", "diff.external"},
		{"past a MiB", strings.Repeat("# padding padding padding padding\n", 40000) + "[diff]\n\texternal = /evil\n", "diff.external"},
		{"too large", "[alias]\n\tx = " + strings.Repeat("a", maxConfigSize) + "\n", "too large"},
		{"lone CR", "[core]\r[diff]\rexternal = /evil\n", "diff.external"},
		{"byte-order mark", "\xef\xbb\xbf[diff]\n\texternal = /evil\n", "diff.external"},
		{"] in subsection", "[diff \"a]b\"]\n\ttextconv = /evil\n", "diff.a]b.textconv"},
		{"header and key on one line", "[diff] external = /evil\n", "diff.external"},
		{"capitals", "[DIFF]\n\tEXTERNAL = /evil\n", "diff.external"},
		{"capital subsection", "[Diff \"PDF\"]\n\tTextConv = /evil\n", "diff.PDF.textconv"},
		{"old form", "[diff.pdf]\n\ttextconv = /evil\n", "diff.pdf.textconv"},
		{"dotted subsection", "[diff.x \"y\"]\n\tcommand = /evil\n", "diff.x.y.command"},
		{"filter", "[filter \"lfs\"]\n\tprocess = /evil\n", "filter.lfs.process"},
		{"CRLF", "[diff]\r\n\texternal = /evil\r\n", "diff.external"},
		{"no value", "[diff]\n\texternal\n", "diff.external"},
		{"include", "[include]\n\tpath = inc/ext\n", "diff.external"},
		{"include absolute", "[include]\n\tpath = " + filepath.Join(home, "inc/ext") + "\n", "diff.external"},
		{"includeIf home", "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.gitconfig-work\n", "filter.lfs.clean"},
		{"include nested", "[include]\n\tpath = inc/deep\n", "diff.external"},
		{"include after a long line", "[alias]\n\tx = " + long + "\n[include]\n\tpath = inc/ext\n", "diff.external"},
		{"include missing", "[include]\n\tpath = inc/none\n", "cannot be read"},
		{"include a folder", "[include]\n\tpath = inc/adir\n", "cannot be read"},
		{"include cycle", "[include]\n\tpath = inc/loop-a\n", "includes itself"},
		{"include itself", "[include]\n\tpath = inc/self\n", "includes itself"},
		{"include without value", "[include]\n\tpath\n", "cannot be followed"},
		{"include of another user", "[include]\n\tpath = ~root/x\n", "cannot be followed"},
		{"include with a prefix", "[include]\n\tpath = %(prefix)/etc/x\n", "cannot be followed"},
		{"unclosed header", "[diff\n\texternal = /evil\n", "cannot be parsed"},
		{"unclosed quote", "[alias]\n\tx = \"abc\n[diff]\n\texternal = /evil\n", "cannot be parsed"},
		{"bad escape", "[alias]\n\tx = a\\qb\n", "cannot be parsed"},
		{"partial mark", "\xef\xbb[core]\n", "cannot be parsed"},
		// What git reads as harmless stays clean.
		{"clean", "[core]\n\tbare = false\n\tfsmonitor = /evil\n[diff]\n\tcolorMoved = zebra\n", ""},
		{"long alias", "[alias]\n\tx = " + long + "\n", ""},
		{"include clean", "[include]\n\tpath = inc/clean\n", ""},
		{"quoted", "[alias]\n\tx = \"!echo # [diff] external = y\"\n[core]\n\teditor = vim ; [diff] external = x\n", ""},
		{"continued value", "[core]\n\ta = b \\\n[diff]\n external = x\n", ""},
		{"empty subsection", "[diff \"\"]\n\texternal = x\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := write("cfg-"+strings.ReplaceAll(tc.name, " ", "-"), tc.content)
			got := configNamesProgram(path, home)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("configNamesProgram = %q, want %q", got, tc.want)
			}
		})
	}
	if got := configNamesProgram(filepath.Join(home, "cfg-absent"), home); got != "" {
		t.Errorf("a repository without the file: %q", got)
	}
}

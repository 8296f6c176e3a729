package plan

import (
	"slices"
	"testing"
)

// TestReadSed: the scripts, the files and what makes the line more than
// a read, as GNU sed (and, for a bare -i, BSD sed) reads them.
func TestReadSed(t *testing.T) {
	for _, c := range []struct {
		args    []string
		bsd     bool
		scripts []string
		files   []int
		first   string
	}{
		{[]string{"-n", "p", "f"}, false, []string{"p"}, []int{2}, ""},
		{[]string{"-i", "", "s/a/b/", "f"}, true, []string{"s/a/b/"}, []int{3}, "-i"},
		{[]string{"-i", "", "s/a/b/", "f"}, false, []string{""}, []int{2, 3}, "-i"},
		{[]string{"--in-pl=.bak", "-e", "p", "f", "g"}, false, []string{"p"}, []int{3, 4}, "--in-pl=.bak"},
		{[]string{"--exp", "p", "--", "-f"}, false, []string{"p"}, []int{3}, ""},
		{[]string{"-f", "script.sed", "f"}, false, nil, []int{2}, "-f"},
		{[]string{"--s", "p", "f"}, false, []string{"p"}, []int{2}, "--s"}, // --silent, --separate or --sandbox: getopt refuses it
		{[]string{"-x", "p"}, false, []string{"p"}, nil, "-x"},
	} {
		s := ReadSed(c.args, c.bsd)
		if !slices.Equal(s.Scripts, c.scripts) || !slices.Equal(s.Files, c.files) || s.First != c.first {
			t.Errorf("%q (bsd %v): scripts %q files %v first %q, want %q %v %q", c.args, c.bsd, s.Scripts, s.Files, s.First, c.scripts, c.files, c.first)
		}
	}
}

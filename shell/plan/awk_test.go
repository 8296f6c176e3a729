package plan

import (
	"slices"
	"testing"
)

// TestReadAwk: programs, files and what makes the line more than a read,
// gawk's options included.
func TestReadAwk(t *testing.T) {
	for _, c := range []struct {
		args     []string
		programs []string
		files    []int
		first    string
		sandbox  bool
	}{
		{[]string{"{print}", "f"}, []string{"{print}"}, []int{1}, "", false},
		{[]string{"-F:", "-v", "x=1", "{print $1}", "f"}, []string{"{print $1}"}, []int{4}, "", false},
		{[]string{"--sou", "BEGIN{}", "f"}, []string{"BEGIN{}"}, []int{2}, "", false},
		{[]string{"-f", "p.awk", "f"}, nil, []int{2}, "-f", false},
		{[]string{"--file", "p.awk", "f"}, nil, []int{2}, "--file", false},
		{[]string{"--inc=lib", "{print}"}, nil, []int{1}, "--inc=lib", false},
		{[]string{"-S", "{print > \"x\"}"}, []string{"{print > \"x\"}"}, nil, "", true},
		{[]string{"-oout.awk", "{print}"}, []string{"{print}"}, nil, "-oout.awk", false},
		{[]string{"-W", "exec=x"}, nil, nil, "-W", false},
		{[]string{"--d", "{print}"}, []string{"{print}"}, nil, "--d", false}, // --debug or --dump-variables: getopt refuses it
	} {
		w := ReadAwk(c.args)
		if !slices.Equal(w.Programs, c.programs) || !slices.Equal(w.Files, c.files) || w.First != c.first || w.Sandbox != c.sandbox {
			t.Errorf("%q: programs %q files %v first %q sandbox %v, want %q %v %q %v", c.args, w.Programs, w.Files, w.First, w.Sandbox, c.programs, c.files, c.first, c.sandbox)
		}
	}
}

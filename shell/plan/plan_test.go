package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fields(ex Expansion) []string {
	var out []string
	for _, f := range ex.Fields {
		out = append(out, f.Value)
	}
	return out
}

// Brace expansion, tilde and quotes make the words bash passes, also where
// the model does not look at the disk (the policy's floor): an empty
// alternative vanishes, and a pattern stays a pattern.
func TestWordsWithoutDisk(t *testing.T) {
	env := Env{Home: "/home/ada", Dir: "/home/ada/src", Vars: map[string]string{"HOME": "/home/ada"}}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"{sudo,} id", []string{"sudo", "id"}},
		{"rm {-rf,~}", []string{"rm", "-rf", "/home/ada"}},
		{"kill -9 {-1,}", []string{"kill", "-9", "-1"}},
		{"rm -rf ~/{a,b}/c", []string{"rm", "-rf", "/home/ada/a/c", "/home/ada/b/c"}},
		{"rm '~' \"~\"/x", []string{"rm", "~", "~/x"}},
		{"ls ~+ ~+/x", []string{"ls", "/home/ada/src", "/home/ada/src/x"}},
		{`rm "$HOME"/*`, []string{"rm", "/home/ada/*"}},
		{"echo a{1..3}", []string{"echo", "a1", "a2", "a3"}},
		{"e\\c\\ho x\\ y", []string{"echo", "x y"}},
		{"rm $UNSET", []string{"rm"}},
	} {
		s, err := Parse(c.line)
		if err != nil {
			t.Fatal(err)
		}
		calls := s.Calls(env)
		ex := calls[0].Args(env, calls[0].Places[0])
		if ex.Unknown != "" || !slices.Equal(fields(ex), c.want) {
			t.Errorf("%q: %q (unknown %q), want %q", c.line, fields(ex), ex.Unknown, c.want)
		}
	}
}

// What only the running shell knows stays "cannot tell".
func TestWordsCannotTell(t *testing.T) {
	env := Env{Home: "/h", Dir: "/h", Vars: map[string]string{"HOME": "/h"}}
	for _, line := range []string{"rm $(ls)", "rm `ls`", "rm $((1+1))", "rm ${HOME/$(ls)/b}", "rm ${HOME:$(ls)}", "rm ${HOME:X}", "rm $(printf %d 1)", "rm $(echo a; echo b)", "rm ${X@Q}", "rm ~bob/x", "rm <(ls)", "read X; rm $X", "read X; set -- $X; rm $1", "rm ${!X}", "X=$(ls); rm $X"} {
		s, err := Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		var last Call
		for _, c := range s.Calls(env) {
			if c.Name() == "rm" {
				last = c
			}
		}
		if len(last.Places) == 0 {
			t.Errorf("%q: no places", line)
			continue
		}
		if ex := last.Args(env, last.Places[0]); ex.Unknown == "" {
			t.Errorf("%q: told %q, want cannot tell", line, fields(ex))
		}
	}
}

// dirsOf is where the line's rm may run.
func dirsOf(t *testing.T, env Env, line string) []string {
	t.Helper()
	s, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Calls(env) {
		if c.Name() == "rm" {
			if u := c.Unknown(); u != "" {
				return []string{"?" + u}
			}
			return c.Dirs()
		}
	}
	t.Fatalf("%q has no rm", line)
	return nil
}

// The folder a command runs in follows bash: a cd that may not run leaves
// both folders; a cd in the background, a pipeline or a subshell leaves
// none; a cd to a folder that does not exist fails and the shell stays.
func TestFolders(t *testing.T) {
	home := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(home, "build"), 0o755))
	b := filepath.Join(home, "build")
	env := Env{Home: home, Dir: home, Vars: map[string]string{"HOME": home}, Disk: true}
	model := Env{Home: home, Dir: home, Vars: map[string]string{"HOME": home}}
	for _, c := range []struct {
		env  Env
		line string
		want []string
	}{
		{env, "[ -f ~/build/.ready ] && cd ~/build; rm -rf *", []string{home, b}},
		{env, "cd ~/build & rm -rf *", []string{home}},
		{env, "if false; then cd ~/build; fi; rm -rf *", []string{home}},
		{model, "if false; then cd ~/build; fi; rm -rf *", []string{home}},
		{model, "if x; then cd ~/build; fi; rm -rf *", []string{b, home}},
		{env, "cd ~/missing; rm -rf *", []string{home}},
		{model, "cd ~/missing; rm -rf *", []string{home + "/missing", home}},
		{env, "cd ~/build && rm -rf *", []string{b}},
		{env, "cd ~/missing && rm -rf *", nil},
		{env, "cd ~/missing || exit; rm -rf *", nil},
		{env, "(cd build); rm -rf *", []string{home}},
		{env, "cd build | cat; rm -rf *", []string{home}},
		{env, "builtin cd build; rm -rf *", []string{b}},
		{env, "command cd build; rm -rf *", []string{b}},
		{env, "f() { cd build; }; f; rm -rf *", []string{b}},
		{env, "cd build; cd; rm -rf *", []string{home}},
		{env, "cd build; cd -; rm -rf *", []string{home}},
		{env, "cd \"$HOME/build\"; rm *", []string{b}},
		{env, "while x; do cd build; done; rm *", []string{home, b}},
		{env, "eval cd build; rm *", []string{"?eval may change the folder or the shell's options"}},
		{env, "cd $(echo build); rm *", []string{b}},
		{env, "cd $(ls); rm *", []string{"?a command substitution or arithmetic, only known when the command runs"}},
		{env, "cd $(echo -e build); rm *", []string{"?a command substitution or arithmetic, only known when the command runs"}},
	} {
		got := dirsOf(t, c.env, c.line)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: rm runs in %q, want %q", c.line, got, want)
		}
	}
}

// Options earlier in the line change what a pattern matches.
func TestOptions(t *testing.T) {
	home := t.TempDir()
	for _, n := range []string{".git", ".env", "a.txt", "B.txt", "src"} {
		must(t, os.WriteFile(filepath.Join(home, n), nil, 0o644))
	}
	env := Env{Home: home, Dir: home, Vars: map[string]string{"HOME": home}, Disk: true}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"rm *", []string{"rm", "B.txt", "a.txt", "src"}},
		{"shopt -s dotglob; rm *", []string{"rm", ".env", ".git", "B.txt", "a.txt", "src"}},
		{"GLOBIGNORE=a.txt; rm *", []string{"rm", ".env", ".git", "B.txt", "src"}},
		{"shopt -s nocaseglob; rm b*", []string{"rm", "B.txt"}},
		{"set -f; rm *", []string{"rm", "*"}},
		{"shopt -s nullglob; rm *.o", []string{"rm"}},
		{"rm *.o", []string{"rm", "*.o"}},
		{"rm [.]*", []string{"rm", "[.]*"}},
		{"rm [!a]*", []string{"rm", "B.txt", "src"}},
		{"rm .*", []string{"rm", ".env", ".git"}},
	} {
		s, err := Parse(c.line)
		if err != nil {
			t.Fatal(err)
		}
		calls := s.Calls(env)
		last := calls[len(calls)-1]
		ex := last.Args(env, last.Places[0])
		if ex.Unknown != "" || !slices.Equal(fields(ex), c.want) {
			t.Errorf("%q: %q (unknown %q), want %q", c.line, fields(ex), ex.Unknown, c.want)
		}
	}
	s, _ := Parse("shopt -s failglob; rm *.o")
	calls := s.Calls(env)
	if ex := calls[1].Args(env, calls[1].Places[0]); ex.NoRun == "" {
		t.Errorf("failglob with no match: %+v, want no run", ex)
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want, why string }{
		{"/proc/self/root/etc/x", "/etc/x", ""},
		{"/proc/self/root/", "/", ""},
		{"/proc/1/root/etc", "/etc", ""},
		{"/proc/thread-self/root/proc/self/root/usr", "/usr", ""},
		{"/proc/self/task/12/root/bin", "/bin", ""},
		{"/proc/self/cwd/x", "/work/x", ""},
		{"x/../../etc", "/etc", ""},
		{"/dev/fd/3", "", "/dev/fd/3 names an open file only known when the command runs"},
		{"/proc/self/fd/3/x", "", "/proc/self/fd/3 names an open file only known when the command runs"},
		{"/dev/stdin/..", "", "/dev/stdin names an open file only known when the command runs"},
		{"/dev/fd/../fd", "", "/dev/fd/../fd holds open files only known when the command runs"},
		{"/dev/fd/../cwd/x", "/work/x", ""},
		{"/dev/fd/../../1/root/etc", "/etc", ""},
		{"/proc/self/fd/../cwd", "/work", ""},
		{"/proc/thread-self/..", "/proc/self/task", ""},
		{"/proc/thread-self/../../cwd/x", "/work/x", ""},
		{"/proc/thread-self/cwd/../y", "/y", ""},
		{"/proc/net/../root/usr", "/usr", ""},
		{"/proc/1/fd/../root/var", "/var", ""},
		{"/proc/1/task/1/fd/../../../cwd/x", "", "/proc/1/task/1/fd/../../../cwd is another process's folder, only known when the command runs"},
		{"/proc/self/cwd/..", "/", ""},
		{"/proc/self/cwd/../x", "/x", ""},
		{"/proc/self/root/..", "/", ""},
		{"/proc/self/root/../etc", "/etc", ""},
		{"/proc/self/../self/root/bin", "/bin", ""},
		{"/proc/1/task/1/root/etc", "/etc", ""},
		{"/proc/7/cwd/x", "", "/proc/7/cwd is another process's folder, only known when the command runs"},
		{"/proc/cpuinfo", "/proc/cpuinfo", ""},
	} {
		if !devFdIsLink && strings.HasPrefix(c.in, "/dev/fd/..") {
			continue // macOS: /dev/fd is a file system of its own, under /dev (see below)
		}
		got, why := Normalize("/work", c.in)
		if got != c.want || why != c.why {
			t.Errorf("Normalize(%q) = %q, %q; want %q, %q", c.in, got, why, c.want, c.why)
		}
	}
	if !devFdIsLink {
		if got, why := Normalize("/work", "/dev/fd/../x"); got != "/dev/x" || why != "" {
			t.Errorf("Normalize(/dev/fd/../x) = %q, %q; want /dev/x", got, why)
		}
	}
}

// Resolve takes the links of /dev and /proc as Normalize does, never from
// the disk, where /proc/self would be this process rather than the
// command's.
func TestResolveProcWalks(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, want string }{
		{"/proc/self/fd/../cwd/x", dir + "/x"},
		{"/proc/thread-self/../../cwd/x", dir + "/x"},
		{"/proc/net/../cwd", dir},
		{"/proc/self/status", "/proc/self/status"},
	} {
		got, why := Env{}.Resolve(dir, c.in)
		if got != c.want || why != "" {
			t.Errorf("Resolve(%q) = %q, %q; want %q", c.in, got, why, c.want)
		}
	}
	if devFdIsLink {
		if got, why := (Env{}).Resolve(dir, "/dev/fd/../cwd"); got != dir || why != "" {
			t.Errorf("Resolve(/dev/fd/../cwd) = %q, %q; want %q", got, why, dir)
		}
	}
}

// Resolve follows links as the kernel does: a path through a link lands
// outside, and '..' after a link is the target's parent.
func TestResolve(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, out := filepath.Join(root, "home"), filepath.Join(root, "out", "deep")
	must(t, os.MkdirAll(home, 0o755))
	must(t, os.MkdirAll(out, 0o755))
	must(t, os.Symlink(out, filepath.Join(home, "cache")))
	env := Env{Disk: true}
	for _, c := range []struct{ in, want string }{
		{"cache/x", filepath.Join(out, "x")},
		{"cache/..", filepath.Join(root, "out")},
		{"cache/../../home", home},
		{"new/file", filepath.Join(home, "new", "file")},
		{"/proc/self/root" + home + "/cache", out},
	} {
		got, why := env.Resolve(home, c.in)
		if got != c.want || why != "" {
			t.Errorf("Resolve(%q) = %q, %q; want %q", c.in, got, why, c.want)
		}
	}
}

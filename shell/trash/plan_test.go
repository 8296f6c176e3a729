package trash

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPlanFor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, f := range []string{"Downloads/a.log", "Downloads/b.log", "Downloads/keep.txt", "Downloads/with space.log", "x/y"} {
		write(t, filepath.Join(home, f), f)
	}
	dl := filepath.Join(home, "Downloads")
	cases := []struct {
		cmd, wd string
		paths   []string // nil with find: a find plan; nil otherwise: refused
		find    string
		why     string // part of the refusal
		rec     bool
	}{
		{cmd: "rm ~/Downloads/a.log", paths: []string{dl + "/a.log"}},
		{cmd: "rm -rf ~/Downloads/*.log", rec: true, paths: []string{dl + "/a.log", dl + "/b.log", dl + "/with space.log"}},
		{cmd: "rm -v -- 'with space.log' \"keep.txt\"", wd: dl, paths: []string{dl + "/with space.log", dl + "/keep.txt"}},
		{cmd: "rm ~/Downloads/{a,b}.log", paths: []string{dl + "/a.log", dl + "/b.log"}},
		{cmd: "rm --recursive --force x", rec: true, paths: []string{home + "/x"}},
		{cmd: "rm ~/Downloads/nomatch*", paths: []string{dl + "/nomatch*"}}, // bash passes an unmatched glob as is
		{cmd: "rmdir ~/x", paths: []string{home + "/x"}},
		{cmd: "find ~/Downloads -name '*.log' -delete", find: "find " + dl + " -depth -name '*.log' -print"},
		{cmd: "find . -delete -name x", wd: dl, find: "find " + dl + " -depth -print -name x"},
		{cmd: "find -L ~ -type f -mtime +30 -delete", find: "find -L " + home + " -depth -type f -mtime +30 -print"},

		{cmd: "rm -rf ~", why: "not inside the home folder"},
		{cmd: "rm ~/../other", why: "not inside the home folder"},
		{cmd: "rm /etc/passwd", why: "not inside the home folder"},
		{cmd: "rm ~root/x", why: "another user's home"},
		{cmd: "rm $HOME/x", paths: []string{home + "/x"}},
		{cmd: "rm \"$f\"", why: "only known at run time"},
		{cmd: "rm $(cat list)", why: "not a plain command"},
		{cmd: "rm ~/$(id -u)", why: "not a plain command"},
		{cmd: "rm ~/$((1+1))", why: "only known at run time"},
		{cmd: "rm --recu x", rec: true, paths: []string{home + "/x"}},
		{cmd: "rm --rec --fo --d --verb --preserve-root x", rec: true, paths: []string{home + "/x"}},
		{cmd: "rm -if x", paths: []string{home + "/x"}},
		{cmd: "rm --interactive=n x", paths: []string{home + "/x"}},
		{cmd: "rm -I a b c", paths: []string{home + "/a", home + "/b", home + "/c"}},
		{cmd: "rm -- -rf", paths: []string{home + "/-rf"}},
		{cmd: "rm x/", paths: []string{home + "/x"}},
		{cmd: "rm ~/x/../Downloads/a.log", paths: []string{dl + "/a.log"}},
		{cmd: "rm -rf ~/x/.", why: "refuses to remove '.' or '..'"},
		{cmd: "rm -rf ~/x/./", why: "refuses to remove '.' or '..'"},
		{cmd: "rm -r ~/x/y/..", why: "refuses to remove '.' or '..'"},
		{cmd: "rmdir ~/x/.", why: "refuses to remove '.' or '..'"},
		{cmd: "rm ''", why: "names nothing"},
		{cmd: "rm /", why: "not inside the home folder"},
		{cmd: "rm -fi x", why: "rm -i asks"},
		{cmd: "rm --interactive x", why: "rm -i asks"},
		{cmd: "rm -I a b c d", why: "rm -I asks"},
		{cmd: "rm -rI a", why: "rm -I asks"},
		{cmd: "rm --interactive= x", why: "ambiguous"},
		{cmd: "rm --v x", why: "ambiguous"},
		{cmd: "rm --ver x", why: "ambiguous"},
		{cmd: "rm --force=yes x", why: "takes no value"},
		{cmd: "rm --preserve-root=most x", why: "not a value"},
		{cmd: "rm --recursively x", why: "does not know"},
		{cmd: "rm --no x", why: "--no-preserve-root is not a plain deletion"},
		{cmd: "rm --one x", why: "--one-file-system is not a plain deletion"},
		{cmd: "rm ---presume-input-tty x", why: "not a plain deletion"},
		{cmd: "rm --help", why: "--help is not a plain deletion"},
		{cmd: "rm -x a", why: "-x is not a plain deletion"},
		{cmd: "rm a -r", why: "comes after a target"},
		{cmd: "rm a -- b", why: "comes after a target"},
		{cmd: "rmdir --verb x", paths: []string{home + "/x"}},
		{cmd: "rmdir --ign x", why: "not a plain deletion"},
		{cmd: "shopt -s dotglob; rm ~/x/*", why: "single command"},
		{cmd: "if true; then rm a; fi", why: "not a plain command"},
		{cmd: "rm ~/x/{a,$(id)}", why: "not a plain command"},
		{cmd: "rm x > log", why: "redirections"},
		{cmd: "rm a; rm b", why: "single command"},
		{cmd: "rm a && ls", why: "not a plain command"},
		{cmd: "ls | xargs rm", why: "not a plain command"},
		{cmd: "FOO=1 rm a", why: "not a plain command"},
		{cmd: "\\rm a", why: "not rm, rmdir or find"},
		{cmd: "sudo rm a", why: "not rm, rmdir or find"},
		{cmd: "rm -P a", why: "not a plain deletion"},
		{cmd: "rm --no-preserve-root a", why: "not a plain deletion"},
		{cmd: "rmdir -p x/y", why: "not a plain deletion"},
		{cmd: "rm", why: "no targets"},
		{cmd: "find ~/Downloads -name x", why: "without -delete"},
		{cmd: "find ~/Downloads -name x -exec rm {} ;", why: "-exec is not a plain deletion"},
		{cmd: "find ~/Downloads -delete -print", why: "-print is not a plain deletion"},
		{cmd: "find / -name x -delete", why: "not inside the home folder"},
		{cmd: "find ~/Downloads -name", why: "-name is not a plain deletion"},
		{cmd: "rm /*/*/*", why: "outside the home folder"},
		{cmd: "rm ~/{1..20000}", why: "only known at run time"},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			wd := tc.wd
			if wd == "" {
				wd = "~"
			}
			p, err := PlanFor(tc.cmd, wd, home)
			if tc.why != "" {
				if err == nil || !strings.Contains(err.Error(), tc.why) {
					t.Fatalf("PlanFor = %+v, %v; want a refusal saying %q", p, err, tc.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Find != tc.find || !slices.Equal(p.Paths, tc.paths) || p.Recursive != tc.rec {
				t.Fatalf("plan %+v\nwant paths %q find %q recursive %v", p, tc.paths, tc.find, tc.rec)
			}
		})
	}
}

func TestCheckMirrorsTheDeletion(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	file, full, empty := filepath.Join(home, "f"), filepath.Join(home, "full"), filepath.Join(home, "empty")
	missing := filepath.Join(home, "missing")
	write(t, file, "f")
	write(t, filepath.Join(full, "x"), "x")
	mkdir(t, empty)
	all := []string{file, full, empty, missing}
	cases := []struct {
		cmd      string
		ok       []string
		problems []string
	}{
		{"rm f full empty missing", []string{file}, []string{"full: is a folder", "empty: is a folder", "missing: no such file"}},
		{"rm -f f full empty missing", []string{file}, []string{"full: is a folder", "empty: is a folder"}},
		{"rm -d f full empty missing", []string{file, empty}, []string{"full: the folder is not empty", "missing: no such"}},
		{"rm -rf f full empty missing", []string{file, full, empty}, nil},
		{"rmdir f full empty missing", []string{empty}, []string{"f: not a folder", "full: the folder is not empty", "missing: no such"}},
	}
	for _, tc := range cases {
		p, err := PlanFor(tc.cmd, home, home)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Paths, all) {
			t.Fatalf("%s: paths %q", tc.cmd, p.Paths)
		}
		ok, problems := p.Check(p.Paths)
		if !slices.Equal(ok, tc.ok) || len(problems) != len(tc.problems) {
			t.Fatalf("%s: ok %q problems %v; want %q and %q", tc.cmd, ok, problems, tc.ok, tc.problems)
		}
		for i, want := range tc.problems {
			if !strings.Contains(problems[i].Error(), want) {
				t.Errorf("%s: problem %d is %v, want %q", tc.cmd, i, problems[i], want)
			}
		}
	}
}

// TestFindPaths runs the listing command a plan builds with the real find
// and checks it names what find -delete would remove.
func TestFindPaths(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("no find on PATH to run the listing with")
	}
	home := t.TempDir()
	logs := filepath.Join(home, "logs")
	for _, f := range []string{"a.log", "old.log/inner.txt", "sub/b.log", "sub/keep.txt", "all.log/c.log"} {
		write(t, filepath.Join(logs, f), f)
	}
	p, err := PlanFor("find ~/logs -name '*.log' -delete", "~", home)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-c", p.Find).Output()
	if err != nil {
		t.Fatalf("%s: %v", p.Find, err)
	}
	paths, err := p.FindPaths(string(out))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	// old.log keeps inner.txt, which find would not delete, so the folder
	// stays; all.log holds only matches and goes whole.
	want := []string{logs + "/a.log", logs + "/all.log", logs + "/all.log/c.log", logs + "/sub/b.log"}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths %q\nwant %q", paths, want)
	}
	for _, bad := range []string{logs + "\nstray\n", logs + "/a.log\n" + logs + "/gone.log\n"} {
		if got, err := p.FindPaths(bad); err == nil {
			t.Fatalf("listing %q accepted as %q", bad, got)
		}
	}
	wide, err := PlanFor("find ~ -name '*.log' -delete", "~", home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wide.FindPaths(home + "\n"); err == nil || !strings.Contains(err.Error(), "not inside the home folder") {
		t.Fatalf("a listing that names the home folder itself: %v", err)
	}
}

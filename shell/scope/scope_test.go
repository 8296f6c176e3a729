package scope

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	home := "/home/u"
	noGit := func(string) (bool, bool) { return false, false }
	env := func(k string) string { return map[string]string{"CARGO_HOME": "/opt/cargo"}[k] }
	cases := []struct {
		name      string
		in        Input
		write     []string
		remove    []string
		broad     string
		net, agnt bool
	}{
		{"a deletion the preview reads whole is scoped to it",
			Input{Dir: home, Known: true, Changes: []Change{{Path: home + "/Downloads/old", Dir: true, Exists: true, Remove: true}}},
			[]string{home + "/Downloads/old"}, []string{home + "/Downloads"}, "", false, false},
		{"a file deleted in a folder: that folder",
			Input{Dir: home, Known: true, Changes: []Change{{Path: home + "/Downloads/a.txt", Exists: true, Remove: true}}},
			[]string{home + "/Downloads"}, nil, "", false, false},
		{"a file written in place directly in home: the file alone",
			Input{Dir: home, Known: true, Changes: []Change{{Path: home + "/notes.txt", Exists: true}}},
			[]string{home + "/notes.txt"}, nil, "", false, false},
		{"a program the preview does not read: the folder it runs in",
			Input{Dir: home + "/proj", Programs: [][]string{{"make"}}},
			[]string{home + "/proj"}, nil, "", false, false},
		{"unknown writes in home: home, said first",
			Input{Dir: home, Programs: [][]string{{"make"}}},
			[]string{home}, nil, home, false, false},
		{"cargo: its registry and git under the effective CARGO_HOME, and the network",
			Input{Dir: home + "/proj", Programs: [][]string{{"cargo", "build"}}, Env: env},
			[]string{home + "/proj", "/opt/cargo/registry", "/opt/cargo/git"}, nil, "", true, false},
		{"git push: the network and the ssh agent",
			Input{Dir: home + "/proj", Programs: [][]string{{"git", "push"}}},
			[]string{home + "/proj"}, nil, "", true, true},
		{"git commit: neither",
			Input{Dir: home + "/proj", Programs: [][]string{{"git", "commit"}}},
			[]string{home + "/proj"}, nil, "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.in.Home, c.in.Stat = home, noGit
			s := Build(c.in)
			if !slices.Equal(s.Write, c.write) || !slices.Equal(s.Remove, c.remove) || s.Broad != c.broad || s.Network != c.net || s.Agent != c.agnt {
				t.Errorf("got write %q remove %q broad %q net %v agent %v", s.Write, s.Remove, s.Broad, s.Network, s.Agent)
			}
		})
	}
}

// What the user's shell, keys and Hark's own files hold is kept out of a
// scope that holds them, unless the command names the place itself.
func TestBuildKeepsStartupFilesUnlessNamed(t *testing.T) {
	home := "/home/u"
	s := Build(Input{Dir: home, Home: home, Programs: [][]string{{"make"}}, Stat: func(string) (bool, bool) { return false, false }})
	for _, k := range []string{".bashrc", ".profile", ".ssh/", ".config/autostart/", ".config/systemd/", ".local/bin/", ".config/hark/"} {
		if !slices.Contains(s.Keep, home+"/"+k) {
			t.Errorf("%s is not kept from a scope of home: %q", k, s.Keep)
		}
	}
	named := Build(Input{Dir: home, Home: home, Known: true, Changes: []Change{{Path: home + "/.bashrc", Exists: true}},
		Stat: func(string) (bool, bool) { return false, false }})
	if slices.Contains(named.Keep, home+"/.bashrc") || !slices.Contains(named.Write, home+"/.bashrc") {
		t.Errorf("a command that names ~/.bashrc must be able to change it: %+v", named)
	}
	sub := Build(Input{Dir: home + "/proj", Home: home, Programs: [][]string{{"make"}}, Stat: func(string) (bool, bool) { return false, false }})
	if len(sub.Keep) != 0 {
		t.Errorf("nothing to keep inside a project: %q", sub.Keep)
	}
}

func TestLines(t *testing.T) {
	home := "/home/u"
	s := Scope{Write: []string{home, home + "/.npm"}, Broad: home, Network: true, Why: map[string]string{home + "/.npm": "npm's package cache and logs"}}
	got := strings.Join(s.Lines(home), "\n")
	want := "⚠ May change anything in your home folder (~) (Hark cannot tell what this command writes)\n" +
		"May change: ~, ~/.npm (npm's package cache and logs)\nUses the network"
	if got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	if l := (Scope{}).Lines(home); len(l) != 1 || !strings.Contains(l[0], "nothing outside its temporary folder") {
		t.Errorf("empty scope: %q", l)
	}
}

// A command that names a file inside a kept folder (~/.ssh/authorized_keys)
// may change that folder, shown on its card; Hark's own files stay kept
// even when named.
func TestBuildNamedInsideKept(t *testing.T) {
	home := "/home/u"
	stat := func(string) (bool, bool) { return true, true }
	s := Build(Input{Dir: home, Home: home, Known: true, Stat: stat,
		Changes: []Change{{Path: home + "/.ssh/authorized_keys", Exists: true}, {Path: home + "/.config/hark/rules.json", Exists: true}}})
	if slices.Contains(s.Keep, home+"/.ssh/") || !slices.Contains(s.Write, home+"/.ssh") {
		t.Errorf("named inside ~/.ssh: %+v", s)
	}
	if !slices.Contains(s.Keep, home+"/.config/hark/") {
		t.Errorf("Hark's own files are kept even when named: %+v", s.Keep)
	}
}

// No scope lets a run remove a home folder, / or a system root, whatever
// the preview read the command to remove.
func TestBuildNeverRemovesARoot(t *testing.T) {
	home := "/home/u"
	for _, p := range []string{home, "/", "/usr", "/home", "/etc"} {
		s := Build(Input{Dir: home + "/proj", Home: home, Known: true, Changes: []Change{{Path: p, Dir: true, Exists: true, Remove: true}},
			Stat: func(string) (bool, bool) { return true, true }})
		if slices.Contains(s.Write, p) || len(s.Remove) != 0 {
			t.Errorf("removing %s: %+v", p, s)
		}
	}
}

// A place inside another place of the scope is not listed again.
func TestBuildListsNoPlaceInsideAnother(t *testing.T) {
	home := "/home/u"
	s := Build(Input{Dir: home, Home: home, Known: true, Stat: func(string) (bool, bool) { return true, true },
		Changes: []Change{{Path: home + "/Downloads/old", Dir: true, Exists: true, Remove: true}, {Path: home + "/Downloads/a.txt", Exists: true, Remove: true}}})
	if !slices.Equal(s.Write, []string{home + "/Downloads"}) {
		t.Errorf("write %q, want ~/Downloads alone", s.Write)
	}
}

// TestReads: each row lies under home unless its variable moves it, and
// the folders of PATH under home are added, not home itself nor those
// outside it.
func TestReads(t *testing.T) {
	env := map[string]string{"CARGO_HOME": "/opt/cargo", "PATH": "/home/u/.local/bin:/usr/bin:/home/u:/home/u/go/bin"}
	got := Reads("/home/u", func(k string) string { return env[k] })
	for _, want := range []string{"/home/u/.gitconfig", "/home/u/.config/git", "/opt/cargo", "/home/u/.rustup", "/home/u/.local/bin", "/home/u/go/bin"} {
		if !slices.Contains(got, want) {
			t.Errorf("Reads lacks %s: %v", want, got)
		}
	}
	for _, not := range []string{"/home/u", "/usr/bin", "/home/u/.cargo"} {
		if slices.Contains(got, not) {
			t.Errorf("Reads holds %s: %v", not, got)
		}
	}
	if Reads("", nil) != nil {
		t.Error("no home, yet places to read")
	}
}

// TestWholeHomeRemovesNothing: a home granted because Hark could not tell
// what the command writes may not be emptied, and the card says so; a
// deletion the card names inside it is granted apart.
func TestWholeHomeRemovesNothing(t *testing.T) {
	home := "/home/u"
	stat := func(p string) (bool, bool) { return true, true }
	s := Build(Input{Dir: home, Home: home, Programs: [][]string{{"make"}}, Stat: stat,
		Changes: []Change{{Path: home + "/Downloads/old", Dir: true, Exists: true, Remove: true}}})
	if !slices.Equal(s.NoRemove, []string{home}) || !slices.Contains(s.Write, home+"/Downloads/old") {
		t.Errorf("scope %+v: home may remove nothing, and the named deletion is its own place", s)
	}
	if l := s.Lines(home)[0]; l != "⚠ May change anything in your home folder (~), but delete nothing there (Hark cannot tell what this command writes)" {
		t.Errorf("first line %q", l)
	}
	if p := Build(Input{Dir: home + "/proj", Home: home, Programs: [][]string{{"make"}}, Stat: stat}); len(p.NoRemove) != 0 {
		t.Errorf("a project may remove what it holds: %+v", p)
	}
}

// TestCloneInto: git clone's new folder, as bash would name it, is a
// place of its own (a clone in home, whose scope may remove nothing, must
// still tidy its own lock files).
func TestCloneInto(t *testing.T) {
	for args, want := range map[string]string{
		"git clone https://example.org/a/repo.git":           "/home/u/src/repo",
		"git clone -q ~/remote.git ~/clone":                  "/home/u/clone",
		"git clone --depth 1 -b main git@host:me/tool.git x": "/home/u/src/x",
		"git clone ../up.git":                                "/home/u/src/up",
		"git clone a b c":                                    "",
		"git clone $URL":                                     "",
		"git status":                                         "",
		"git clone git@host:me/tool.git ../..":               "",
	} {
		if got := cloneInto("/home/u/src", "/home/u", strings.Fields(args)); got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

// TestCachesFollowXDG: the caches go where the programs put them when
// XDG_CACHE_HOME or XDG_DATA_HOME moves them, and a program's own place
// that is a system root (Homebrew's prefix) is no "cannot tell" warning.
func TestCachesFollowXDG(t *testing.T) {
	env := map[string]string{"XDG_CACHE_HOME": "/x/cache", "XDG_DATA_HOME": "/x/data"}
	for prog, want := range map[string]string{"pip": "/x/cache/pip", "go": "/x/cache/go-build", "yarn": "/x/cache/yarn", "pnpm": "/x/data/pnpm", "uv": "/x/cache/uv"} {
		s := Build(Input{Dir: "/home/u/p", Home: "/home/u", Known: true, Programs: [][]string{{prog, "install"}}, Env: func(k string) string { return env[k] }})
		if !slices.Contains(s.Write, want) {
			t.Errorf("%s: %v lacks %s", prog, s.Write, want)
		}
	}
	if s := Build(Input{Dir: "/Users/u/p", Home: "/Users/u", Known: true, Programs: [][]string{{"brew", "install"}}}); s.Broad != "" {
		t.Errorf("brew's prefix reads as a place Hark could not tell: %+v", s)
	}
}

// TestRepositoryKept: a build in a repository may not write its hooks or
// settings; git alone on the line may (it is git's own repository work);
// a git command that writes the settings names them.
func TestRepositoryKept(t *testing.T) {
	stat := func(p string) (bool, bool) { return p == "/home/u/p/.git", p == "/home/u/p/.git" }
	kept := func(progs ...[]string) []string {
		return Build(Input{Dir: "/home/u/p", Home: "/home/u", Programs: progs, Stat: stat}).Keep
	}
	if k := kept([]string{"make"}); !slices.Contains(k, "/home/u/p/.git/hooks/") || !slices.Contains(k, "/home/u/p/.git/config") {
		t.Errorf("a build keeps %v", k)
	}
	if k := kept([]string{"git", "commit"}, []string{"git", "push"}); slices.Contains(k, "/home/u/p/.git/hooks/") {
		t.Errorf("git alone keeps %v", k)
	}
	if k := kept([]string{"npm", "install"}, []string{"git", "remote"}); slices.Contains(k, "/home/u/p/.git/config") || !slices.Contains(k, "/home/u/p/.git/hooks/") {
		t.Errorf("a line with git remote and a build keeps %v", k)
	}
	if k := Build(Input{Dir: "/home/u/p", Home: "/home/u", Programs: [][]string{{"make"}}, Stat: stat, NoMounts: true}).Keep; slices.Contains(k, "/home/u/p/.git/config") {
		t.Errorf("without mounts the repository is kept: %v", k)
	}
}

// TestNamedInHome: a file a command names directly in home opens all of
// home to the kernel; the card says so, but not that Hark could not tell,
// and a file it only makes there removes nothing.
func TestNamedInHome(t *testing.T) {
	home := "/home/u"
	stat := func(p string) (bool, bool) { return p == home, p == home }
	made := Build(Input{Dir: home, Home: home, Known: true, Stat: stat, Changes: []Change{{Path: home + "/notes.txt"}}})
	if made.Broad != home || !made.BroadNamed || !slices.Equal(made.NoRemove, []string{home}) {
		t.Errorf("a file made in home: %+v", made)
	}
	if l := made.Lines(home)[0]; l != "⚠ May make and write files anywhere in your home folder (~), but delete nothing there (the kernel cannot hold it to what it names there)" {
		t.Errorf("first line %q", l)
	}
	gone := Build(Input{Dir: home, Home: home, Known: true, Stat: stat, Changes: []Change{{Path: home + "/notes.txt", Exists: true, Remove: true}}})
	if gone.Broad != home || !gone.BroadNamed || len(gone.NoRemove) != 0 {
		t.Errorf("a file deleted in home: %+v", gone)
	}
	if l := gone.Lines(home)[0]; strings.Contains(l, "cannot tell") {
		t.Errorf("first line %q says Hark could not tell", l)
	}
}

// TestRepositoriesUnderAWholeHome: a scope that grants a whole home folder
// keeps the hooks and settings of the repositories in it too, as far down
// as people keep them, not only of the one the command runs in; a project
// scope keeps its own.
func TestRepositoriesUnderAWholeHome(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{"notes/.git/hooks", "src/tool/.git/hooks", "src/org/deep/lib/.git/hooks", ".oh-my-zsh/.git/hooks",
		"proj/.git/hooks", ".cache/x/.git/hooks", "proj/node_modules/m/.git/hooks", "a/b/c/d/e/.git/hooks"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "src"), filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	s := Build(Input{Dir: home, Home: home, Programs: [][]string{{"make"}}})
	for _, r := range []string{"notes", "src/tool", "src/org/deep/lib", ".oh-my-zsh", "proj"} {
		g := filepath.Join(home, r, ".git")
		if !slices.Contains(s.Keep, g+"/hooks/") || !slices.Contains(s.Keep, g+"/config") {
			t.Errorf("%s is not kept: %v", r, s.Keep)
		}
	}
	for _, k := range s.Keep {
		if strings.Contains(k, "/link/") || strings.Contains(k, "/.cache/") || strings.Contains(k, "/node_modules/") {
			t.Errorf("kept %s: a link is followed, or a cache searched", k)
		}
	}
	if s.ReposCut || slices.ContainsFunc(s.Lines(home), func(l string) bool { return strings.Contains(l, "did not reach") }) {
		t.Errorf("a home searched to the end says it was not: %+v", s.Lines(home))
	}
	// A home padded past the search's bounds (an earlier run could do it)
	// says on the card that the search stopped short.
	for i := range repoMost {
		os.MkdirAll(filepath.Join(home, ".pad", strconv.Itoa(i), ".git"), 0o755)
	}
	if c := Build(Input{Dir: home, Home: home, Programs: [][]string{{"make"}}}); !c.ReposCut || !slices.ContainsFunc(c.Lines(home), func(l string) bool { return strings.Contains(l, "did not reach") }) {
		t.Errorf("a padded home does not say its search stopped short: %v", c.Lines(home))
	}
	// A project's scope is its own repository's.
	p := Build(Input{Dir: filepath.Join(home, "notes"), Home: home, Programs: [][]string{{"make"}}})
	for _, k := range p.Keep {
		if strings.Contains(k, "/src/") || strings.Contains(k, "/proj/") {
			t.Errorf("a project scope keeps %s", k)
		}
	}
	// git alone is git's own work, wherever it runs.
	if g := Build(Input{Dir: home, Home: home, Programs: [][]string{{"git", "status"}}}); slices.ContainsFunc(g.Keep, func(k string) bool { return strings.Contains(k, "/.git/") }) {
		t.Errorf("git alone keeps %v", g.Keep)
	}
}

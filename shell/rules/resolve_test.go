package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// world is a home on disk with a project whose links lead out of it:
//
//	ROOT/out/victim           a file outside the project
//	ROOT/home/.ssh/id         a key
//	ROOT/home/proj/           the project
//	    cache  -> ROOT/out    a folder link out
//	    link   -> ROOT/out/victim
//	    up     -> ROOT        a link to a parent
//	    keys   -> ROOT/home/.ssh
//	    data/a, secrets.txt, sec -> secrets.txt, data.db, notes.txt
type world struct{ root, home, proj, out string }

func newWorld(t testing.TB) world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link
	if err != nil {
		t.Fatal(err)
	}
	w := world{root: root, home: root + "/home", proj: root + "/home/proj", out: root + "/out"}
	for _, d := range []string{w.out, w.home + "/.ssh", w.proj + "/data"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{w.out + "/victim", w.home + "/.ssh/id", w.proj + "/data/a", w.proj + "/secrets.txt", w.proj + "/data.db", w.proj + "/notes.txt"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"cache": w.out, "link": w.out + "/victim", "up": root, "keys": w.home + "/.ssh", "sec": "secrets.txt"} {
		if err := os.Symlink(to, w.proj+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) store(t *testing.T, rs ...Rule) *Store {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), FileName), w.home, pol)
	for _, r := range rs {
		if _, err := s.Add(r); err != nil {
			t.Fatalf("Add(%s): %v", r, err)
		}
	}
	return s
}

type decideCase struct {
	name, command string
	wd            string // relative to home; "" is the project
	kind          Kind
	floor         string // "" or the floor's tilde form
}

func (w world) run(t *testing.T, s *Store, cases []decideCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wd := w.proj
			switch {
			case c.wd == "/tmp" || strings.HasPrefix(c.wd, "/"):
				wd = c.wd
			case c.wd != "":
				wd = w.home + "/" + c.wd
			}
			v := pol.ClassifyIn(c.command, wd)
			d := s.Decide(c.command, wd, v)
			if d.Kind != c.kind || d.Floor != c.floor {
				t.Fatalf("Decide(%q in %s) = %+v (tier %s), want kind %q floor %q", c.command, wd, d, v.Tier, c.kind, c.floor)
			}
		})
	}
}

func allowIn(program, folder string, match, noMatch string) Rule {
	return Rule{Kind: Allow, Program: program, Folder: folder, Examples: Examples{Match: []string{match}, NoMatch: []string{noMatch}}}
}

// An allow rule for rm in ~/proj covers what lands in ~/proj, whatever the
// spelling: a link, a pattern through one, a link to a parent and '..'
// after a link all leave it.
func TestFolderScopeFollowsLinks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.store(t, allowIn("rm", "~/proj", "rm -f notes.txt", "rm -f /tmp/x"), allowIn("cp", "~/proj", "cp notes.txt n2", "cp notes.txt /tmp/x"))
	w.run(t, s, []decideCase{
		{"glob through a folder link", "rm -rf cache/*", "", "", ""},
		{"glob of the link's names", "rm -f cache/vic*", "", "", ""},
		{"direct path through a folder link", "rm -f cache/victim", "", "", ""},
		{"copy onto a file link", "cp notes.txt link", "", "", ""},
		{"through a link to a parent", "rm -f up/out/victim", "", "", ""},
		{"dotdot after a link", "rm -f cache/../out/victim", "", "", ""},
		{"glob of a parent link", "rm -rf up/*", "", "", ""},
		{"proc cwd out of the folder", "rm -f /proc/self/cwd/../../out/victim", "", "", ""},
		// the same rule still allows what stays inside
		{"glob inside", "rm -rf data/*", "", Allow, ""},
		{"plain file inside", "rm -f notes.txt", "", Allow, ""},
		{"proc cwd inside", "rm -f /proc/self/cwd/notes.txt", "", Allow, ""},
		{"link that stays inside", "rm -f sec", "", Allow, ""},
		{"absolute path inside", "rm -f " + w.proj + "/data/a", "", Allow, ""},
	})
}

// The floor is checked where a name lands: /proc's names of / are /, the
// command's own folder by /proc is that folder, and a link into ~/.ssh is
// ~/.ssh.
func TestFloorOnResolvedTargets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.store(t, allowIn("rm", "", "rm -f notes.txt", "rm -f /etc/x"), allowIn("cp", "", "cp notes.txt n2", "cp x /etc/x"))
	w.run(t, s, []decideCase{
		{"plain /etc", "rm -f /etc/x", "", "", "/etc"},
		{"proc self root", "rm -f /proc/self/root/etc/x", "", "", "/etc"},
		{"proc thread-self root", "rm -f /proc/thread-self/root/etc/x", "", "", "/etc"},
		{"proc pid 1 root", "rm -f /proc/1/root/etc/x", "", "", "/etc"},
		{"proc task root", "rm -f /proc/self/task/1/root/etc/x", "", "", "/etc"},
		{"proc root twice", "cp x /proc/self/root/proc/1/root/usr/bin/x", "", "", "/usr"},
		{"proc self cwd dotdot is home", "cp -r x /proc/self/cwd/..", "", "", "~"},
		{"proc self cwd into ssh", "rm -f /proc/self/cwd/../.ssh/id", "", "", "~/.ssh"},
		{"proc fd walk into ssh", "rm -f /proc/self/fd/../cwd/../.ssh/id", "", "", "~/.ssh"},
		{"proc thread-self walk to root", "cp x /proc/thread-self/../../root/etc/x", "", "", "/etc"},
		{"proc net walk into ssh", "rm -f /proc/net/../cwd/../.ssh/id", "", "", "~/.ssh"},
		{"link into ssh", "rm -f keys/id", "", "", "~/.ssh"},
		{"glob through a link into ssh", "rm -f keys/*", "", "", "~/.ssh"},
		{"dotdot after a link into ssh", "cp x keys/../.bashrc", "", "", "~/.bashrc"},
		// names only known when it runs keep the rule off
		{"dev fd", "cp x /dev/fd/3", "", "", ""},
		{"another process's folder", "rm -f /proc/1/cwd/x", "", "", ""},
		// and what touches nothing protected is still allowed
		{"outside but not protected", "rm -f " + w.out + "/victim", "", Allow, ""},
		{"proc cwd file", "rm -f /proc/self/cwd/notes.txt", "", Allow, ""},
	})
}

// A .git file's `gitdir: PATH` (worktrees and submodules) or a .git link
// makes PATH's hooks and config as protected as .git's.
func TestGitlinkProtected(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// ~/proj: .git is a file pointing to a folder inside the project.
	write(w.proj+"/.git", "gitdir: store\n")
	write(w.proj+"/store/hooks/README", "x")
	// ~/wt: a worktree whose gitdir lies outside, with a commondir.
	write(w.home+"/wt/.git", "gitdir: "+w.out+"/repo/wt1\n")
	write(w.out+"/repo/wt1/commondir", "../common\n")
	write(w.out+"/repo/common/hooks/README", "x")
	// ~/ln: .git is a link to a folder beside it.
	write(w.home+"/ln/realgit/config", "x")
	if err := os.Symlink(w.home+"/ln/realgit", w.home+"/ln/.git"); err != nil {
		t.Fatal(err)
	}
	s := w.store(t,
		allowIn("cp", "~/proj", "cp notes.txt n2", "cp notes.txt /tmp/x"),
		allowIn("rm", "", "rm -f notes.txt", "rm -f /etc/x"),
		allowIn("touch", "~/ln", "touch a", "touch /tmp/a"))
	w.run(t, s, []decideCase{
		{"hook in the gitdir", "cp evil store/hooks/pre-commit", "", "", "~/proj/store"},
		{"config in the gitdir", "cp evil store/config", "", "", "~/proj/store"},
		{"hook via a pattern", "rm -f store/hooks/*", "", "", "~/proj/store"},
		{"from a subfolder", "cp evil ../store/hooks/post-checkout", "proj/data", "", "~/proj/store"},
		{"gitdir outside, named absolutely", "rm -f " + w.out + "/repo/wt1/HEAD", "wt", "", w.out + "/repo/wt1"},
		{"commondir of a worktree", "rm -f " + w.out + "/repo/common/hooks/README", "wt", "", w.out + "/repo/common"},
		{"through the .git link itself", "rm -f .git/config", "ln", "", "~/ln/.git/config"},
		{"the .git link's target", "touch realgit/hooks/pre-commit", "ln", "", "~/ln/realgit"},
		{"run inside the gitdir", "cp evil pre-commit", "proj/store/hooks", "", "~/proj/store"},
		// the rest of the project is not protected
		{"a plain file", "cp notes.txt n2", "", Allow, ""},
		{"beside the worktree", "rm -f " + w.out + "/victim", "wt", Allow, ""},
	})
}

// Ask and never rules match where their path words land, not the
// spelling.
func TestAskAndNeverFollowNames(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.store(t,
		Rule{Kind: Ask, Program: "cat", Words: []string{"secrets.txt"},
			Examples: Examples{Match: []string{"cat secrets.txt"}, NoMatch: []string{"cat notes.txt"}}},
		Rule{Kind: Never, Program: "rm", Words: []string{"data.db"}, Folder: "~/proj",
			Examples: Examples{Match: []string{"rm data.db"}, NoMatch: []string{"rm notes.txt"}}},
		Rule{Kind: Never, Program: "git", Words: []string{"push", "--force"},
			Examples: Examples{Match: []string{"git push --force"}, NoMatch: []string{"git push"}}},
	)
	w.run(t, s, []decideCase{
		{"never: surely, beside an unknown word", `git push --force "$R"`, "", Never, ""},
		{"never: an unquoted unknown may be both words", "git push $ARGS", "", Ask, ""},
		{"no never: a quoted unknown is one word", `git commit -m "$MSG"`, "", "", ""},
		{"no never: one quoted unknown cannot be two words", `git log "$X"`, "", "", ""},
		{"ask: dot slash", "cat ./secrets.txt", "", Ask, ""},
		{"ask: pattern", "cat secrets.tx?", "", Ask, ""},
		{"ask: bracket pattern", "cat secret[s].txt", "", Ask, ""},
		{"ask: PWD", `cat "$PWD/secrets.txt"`, "", Ask, ""},
		{"ask: tilde path", "cat ~/proj/secrets.txt", "", Ask, ""},
		{"ask: absolute", "cat " + w.proj + "/secrets.txt", "", Ask, ""},
		{"ask: a link to it", "cat sec", "", Ask, ""},
		{"ask: dotdot", "cat data/../secrets.txt", "", Ask, ""},
		{"ask: brace", "cat {notes,secrets}.txt", "", Ask, ""},
		{"ask: among options", "cat -n -- ./secrets.txt", "", Ask, ""},
		{"ask: proc cwd", "cat /proc/self/cwd/secrets.txt", "", Ask, ""},
		{"ask: an open file only known when it runs", "cat /dev/fd/3", "", Ask, ""},
		{"ask: a variable Hark does not know", `cat "$F"`, "", Ask, ""},
		{"no ask: another file", "cat ./notes.txt", "", "", ""},
		{"no ask: same name elsewhere", "cat " + w.out + "/secrets.txt", "", "", ""},
		{"never: dot slash", "rm ./data.db", "", Never, ""},
		{"never: pattern", "rm -f data.d?", "", Never, ""},
		{"never: named from outside the folder", "rm " + w.proj + "/data.db", "/tmp", Never, ""},
		{"never: tilde from home", "rm -f proj/data.db", ".", Never, ""},
		{"never: cd into the folder first", "cd proj && rm data.db", ".", Never, ""},
		{"never: unknown name asks", `rm "$X"`, "", Ask, ""},
		{"no never: same name outside the folder", "rm data.db", "/tmp", "", ""},
	})
}

// A cd under a condition gives a command several folders; every one
// counts for a folder scope.
func TestPlacesOfAConditionalCd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.run(t, w.store(t, allowIn("rm", "~/proj", "rm -f notes.txt", "rm -f /tmp/x")), []decideCase{
		{"allow: cd out under a condition", "[ -d x ] && cd /tmp; rm -rf *", "", "", ""},
		{"allow: cd out in an if", "if test -e x; then cd ..; fi; rm -f notes.txt", "", "", ""},
		{"allow: cd out in a subshell, then the glob", "(cd /tmp); [ -d x ] && cd ..; rm -f *", "", "", ""},
	})
	s := w.store(t,
		Rule{Kind: Ask, Program: "cat", Words: []string{"secrets.txt"}, Folder: "~/proj",
			Examples: Examples{Match: []string{"cat secrets.txt"}, NoMatch: []string{"cat notes.txt"}}},
		Rule{Kind: Never, Program: "rm", Words: []string{"data.db"}, Folder: "~/proj",
			Examples: Examples{Match: []string{"rm data.db"}, NoMatch: []string{"rm notes.txt"}}},
	)
	w.run(t, s, []decideCase{
		{"ask: cd in under a condition", "[ -d x ] && cd ~/proj; cat secrets.txt", "/tmp", Ask, ""},
		{"ask: cd in under an or", "test -e q || cd " + w.proj + "; cat secrets.txt", ".", Ask, ""},
		{"never: cd in under a condition", "[ -d x ] && cd proj; rm data.db", ".", Never, ""},
		{"never: cd in a function", "f() { cd proj; }; f; rm -f data.db", ".", Never, ""},
		{"never: cd to a computed folder asks", `cd "$(pwd)"; rm data.db`, "/tmp", Ask, ""},
		{"no rule: cd elsewhere surely", "cd /tmp && cat secrets.txt", ".", "", ""},
	})
}

// Writes hidden in sed and awk scripts are seen by neither a folder scope
// nor the floor, so no allow rule covers a script that writes, runs
// commands or is read from a file.
func TestHiddenScriptWrites(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.store(t,
		allowIn("sed", "~/proj", "sed -i s/a/b/ notes.txt", "sed -i s/a/b/ /tmp/x"),
		allowIn("gsed", "", "gsed -i s/a/b/ notes.txt", "gsed -i s/a/b/ /etc/x"),
	)
	w.run(t, s, []decideCase{
		{"sed s///w", "sed -i 's/a/b/w /etc/x' notes.txt", "", "", ""},
		{"sed -e s///w", "sed -i -e 's/a/b/w out.txt' notes.txt", "", "", ""},
		{"sed --expression s///W", "sed -i --expression='s/a/b/W /tmp/x' notes.txt", "", "", ""},
		{"sed w command", "sed -i '1w /tmp/x' notes.txt", "", "", ""},
		{"sed W command in a block", "sed -i '1{W /tmp/x\n}' notes.txt", "", "", ""},
		{"sed e command", "sed -i '1e touch /tmp/x' notes.txt", "", "", ""},
		{"sed s///e", "sed -i 's/.*/touch x/e' notes.txt", "", "", ""},
		{"sed BSD -i suffix", "sed -i '' 's/a/b/w /tmp/x' notes.txt", "", "", ""},
		{"sed script from a file", "sed -i -f edit.sed notes.txt", "", "", ""},
		{"unscoped: s///w to the floor", "gsed -i 's/a/b/w /etc/passwd' notes.txt", "", "", ""},
		{"unscoped: e command", "gsed -i '1e rm -rf ~' notes.txt", "", "", ""},
		// plain edits are still allowed
		{"sed plain in-place edit", "sed -i 's/a/b/' notes.txt", "", Allow, ""},
		{"sed with a w in the text", "sed -i 's/w/e/g' notes.txt", "", Allow, ""},
		{"unscoped: plain edit", "gsed -i -e 's/a/b/' notes.txt", "", Allow, ""},
	})
	// No awk command that the policy asks about and an allow rule could
	// cover writes only where a folder check sees (its only write of that
	// kind is print > FILE), so such a rule cannot pass its own examples;
	// it is put to decide directly.
	awk := []Entry{
		{Number: 1, Rule: Rule{Kind: Allow, Program: "awk", Folder: "~/proj"}},
		{Number: 2, Rule: Rule{Kind: Allow, Program: "gawk"}},
	}
	for _, c := range []string{
		`awk '{print > "/tmp/x"}' notes.txt`,
		`awk -v n=1 '{printf "%s", $0 >> "/tmp/x"}' notes.txt`,
		`awk -- '{print $1 > "out.txt"}' notes.txt`,
		`gawk '{print > "/etc/passwd"}' notes.txt`,
		`gawk -e 'BEGIN{print "x" > "/etc/x"}'`,
		`gawk --source='{print > "/etc/x"}' notes.txt`,
	} {
		v := pol.ClassifyIn(c, w.proj)
		if d := s.decide(awk, c, w.proj, v); d.Kind == Allow {
			t.Errorf("%q (tier %s) allowed: %s", c, v.Tier, d.Why)
		}
	}
}

// Always allow is not offered for a command whose names land outside its
// folder or on a protected path, or whose script writes out of sight.
func TestProposeResolves(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := os.WriteFile(w.proj+"/.git", []byte("gitdir: store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := w.store(t)
	for _, c := range []struct{ command, want string }{
		{"rm -rf cache/*", "outside the folder"},
		{"cp notes.txt link", "outside the folder"},
		{"rm -f up/out/victim", "outside the folder"},
		{"rm -f /proc/self/root/etc/x", "outside the folder"},
		{"cp x /dev/fd/3", "cannot tell"},
		{"rm -f store/hooks/pre-commit", "always asks"},
		{"sed -i 's/a/b/w out.txt' notes.txt", "writes files"},
		{"sed -i '1e id' notes.txt", "runs commands"},
	} {
		t.Run(c.command, func(t *testing.T) {
			r, err := s.Propose(c.command, w.proj, pol.ClassifyIn(c.command, w.proj))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Propose = %s, %v; want a refusal mentioning %q", r, err, c.want)
			}
		})
	}
	// Beside them, plain commands are still offered.
	for _, c := range []string{"rm -rf data/*", "sed -i 's/a/b/' notes.txt", "cp notes.txt /proc/self/cwd/n2"} {
		if _, err := s.Propose(c, w.proj, pol.ClassifyIn(c, w.proj)); err != nil {
			t.Errorf("Propose(%q): %v", c, err)
		}
	}
}

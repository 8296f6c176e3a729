package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
)

const home = "/home/u"

var pol = policy.New(policy.Options{})

func newStore(t *testing.T, rs ...Rule) *Store {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), FileName), home, pol)
	for _, r := range rs {
		if _, err := s.Add(r); err != nil {
			t.Fatalf("Add(%s): %v", r, err)
		}
	}
	return s
}

func verdict(command, wd string) policy.Verdict {
	if wd == home {
		wd = "~"
	}
	return pol.ClassifyIn(command, wd)
}

func TestProposeNarrowest(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	cases := []struct {
		command, wd string
		program     string
		words       []string
		folder      string
	}{
		{"git commit -m 'fix the build'", "/home/u/src/hark", "git", []string{"commit"}, "~/src/hark"},
		{"npm run build", "/home/u/src/web", "npm", []string{"run", "build"}, "~/src/web"},
		{"docker compose up -d", "/home/u/src/web", "docker", []string{"compose", "up"}, "~/src/web"},
		{"/usr/bin/git push origin main", "/home/u/src/hark", "git", []string{"push", "origin"}, "~/src/hark"},
		{"rm -r build", "/home/u/src/hark", "rm", nil, "~/src/hark"},
		{"mkdir -p out/logs", "/tmp/work", "mkdir", nil, "/tmp/work"},
		{"make test", "/home/u/src/hark", "make", []string{"test"}, "~/src/hark"},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			r, err := s.Propose(c.command, c.wd, verdict(c.command, c.wd))
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != Allow || r.Program != c.program || strings.Join(r.Words, " ") != strings.Join(c.words, " ") || r.Folder != c.folder {
				t.Fatalf("proposed %s (%q %q %q), want %s %v in %s", r, r.Program, r.Words, r.Folder, c.program, c.words, c.folder)
			}
			if len(r.Examples.Match) != 1 || r.Examples.Match[0] != c.command || len(r.Examples.NoMatch) == 0 {
				t.Fatalf("examples %+v", r.Examples)
			}
			// The proposal, saved, allows exactly the command it was made for.
			s2 := newStore(t, r)
			if d := s2.Decide(c.command, c.wd, verdict(c.command, c.wd)); d.Kind != Allow || d.Number != 1 {
				t.Fatalf("after adding the proposal: %+v", d)
			}
		})
	}
}

func TestProposeRefuses(t *testing.T) {
	t.Parallel()
	s := newStore(t, Rule{Kind: Never, Program: "git", Words: []string{"push"},
		Examples: Examples{Match: []string{"git push"}, NoMatch: []string{"git pull"}}})
	proj := "/home/u/src/hark"
	cases := []struct{ name, command, wd, want string }{
		{"forbidden", "sudo rm -rf /", proj, "forbidden"},
		{"read-only", "ls -la", proj, "read-only"},
		{"redirection", "echo hi > notes.txt", proj, "redirection"},
		{"command substitution", "touch $(date +%s)", proj, "substitution"},
		{"variable", "rm -r $DIR", proj, "substitution"},
		{"pipeline", "git log | tee log.txt", proj, "more than one"},
		{"list", "mkdir a && touch a/b", proj, "more than one"},
		{"wrapper", "nice rm -r build", proj, "runs other programs"},
		{"xargs", "xargs rm", proj, "runs other programs"},
		{"env wrapper", "env rm x", proj, "runs other programs"},
		{"shell with inline code", "bash -c 'rm -r build'", proj, "runs other programs"},
		{"interpreter inline", "python3 -c 'import os'", proj, "runs other programs"},
		{"interpreter script", "node build.js", proj, "runs other programs"},
		{"toolchain that runs code", "go run .", proj, "runs other programs"},
		{"find -exec", "find . -name '*.o' -exec rm '{}' ';'", proj, "run other code"},
		{"git -c", "git -c core.pager=less commit -m x", proj, "run other code"},
		{"local program", "./deploy.sh", proj, "not named plainly"},
		{"absolute target outside", "rm -r /tmp/other", proj, "outside the folder"},
		{"dotdot escape", "rm -r ../other", proj, "outside the folder"},
		{"option value outside", "cp a --target-directory=/opt/x", proj, "outside the folder"},
		{"home folder", "mkdir foo", home, "always asks"},
		{"ssh folder", "touch known_hosts", "/home/u/.ssh", "always asks"},
		{"git internals", "rm .git/index.lock", proj, "touches"},
		{"brace expansion", "touch {a,b}", proj, "substitution"},
		{"tilde user", "touch ~root/x", proj, "substitution"},
		{"assignment", "FOO=1 touch x", proj, "assignment"},
		{"covered by never rule", "git push origin main", proj, "rule 1"},
		{"parse error", "touch 'x", proj, "parsed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := s.Propose(c.command, c.wd, verdict(c.command, c.wd))
			if err == nil {
				t.Fatalf("proposed %s for %q", r, c.command)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "Always allow is not offered: ") {
				t.Fatalf("error %q, want it to mention %q", err, c.want)
			}
		})
	}
}

func allowGitCommit() Rule {
	return Rule{Kind: Allow, Program: "git", Words: []string{"commit"}, Folder: "~/src/hark",
		Examples: Examples{Match: []string{"git commit -m x"}, NoMatch: []string{"git push", "git commit ../x"}}}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	s := newStore(t,
		allowGitCommit(),
		Rule{Kind: Allow, Program: "rm", Folder: "/tmp/scratch",
			Examples: Examples{Match: []string{"rm -r build"}, NoMatch: []string{"rm -r /tmp/other"}}},
		Rule{Kind: Allow, Program: "cp", Examples: Examples{Match: []string{"cp a b"}, NoMatch: []string{"cp a ~/.ssh/x"}}},
		Rule{Kind: Ask, Program: "cat", Words: []string{"secrets.txt"},
			Examples: Examples{Match: []string{"cat secrets.txt"}, NoMatch: []string{"cat notes.txt"}}},
		Rule{Kind: Never, Program: "git", Words: []string{"push", "--force"},
			Examples: Examples{Match: []string{"git push --force origin main"}, NoMatch: []string{"git push origin main"}}},
	)
	for _, e := range s.Entries() {
		if e.Err != nil {
			t.Fatalf("rule %d: %v", e.Number, e.Err)
		}
	}
	proj := "/home/u/src/hark"
	cases := []struct {
		name, command, wd string
		kind              Kind
		number            int
		floor             string
	}{
		{"allow rule", "git commit -am 'fix'", proj, Allow, 1, ""},
		{"allow below the folder", "git commit -m x", proj + "/cmd", Allow, 1, ""},
		{"same program, other words", "git push origin main", proj, "", 0, ""},
		{"option before the words", "git -C . commit -m x", proj, "", 0, ""},
		{"other folder", "git commit -m x", "/home/u/src/other", "", 0, ""},
		{"sibling with common prefix", "git commit -m x", "/home/u/src/hark2", "", 0, ""},
		{"path escapes the folder", "git commit ../other/file", proj, "", 0, ""},
		{"rm inside", "rm -rf build dist", "/tmp/scratch", Allow, 2, ""},
		{"rm outside", "rm -rf /tmp/other", "/tmp/scratch", "", 0, ""},
		{"rm glob inside", "rm -f *.o", "/tmp/scratch", Allow, 2, ""},
		{"rm glob outside", "rm -f ../*.o", "/tmp/scratch", "", 0, ""},
		{"rm with redirection", "rm -f x 2>/dev/null", "/tmp/scratch", "", 0, ""},
		{"floor: git internals", "rm -rf .git/hooks", "/tmp/scratch", "", 0, "/tmp/scratch/.git/hooks"},
		{"floor: ssh keys", "cp id ~/.ssh/authorized_keys", "/tmp", "", 0, "~/.ssh"},
		{"floor: rc file", "cp my.rc ~/.zshrc", "/tmp", "", 0, "~/.zshrc"},
		{"floor: home itself", "cp -r x ~", "/tmp", "", 0, "~"},
		{"floor: system root", "cp x /etc/hosts", "/tmp", "", 0, "/etc"},
		{"floor: root", "cp x /", "/tmp", "", 0, "/"},
		{"floor: keychains via Library", "cp -r x ~/Library", "/tmp", "", 0, "~/Library/Keychains"},
		{"floor: glob in home", "cp -r x ~/*", "/tmp", "", 0, "~"},
		{"global allow elsewhere", "cp a b", "/tmp", Allow, 3, ""},
		{"ask rule on a read-only command", "cat secrets.txt", proj, Ask, 4, ""},
		{"ask rule inside a pipeline", "cat secrets.txt | wc -l", proj, Ask, 4, ""},
		{"read-only without rule", "cat notes.txt", proj, "", 0, ""},
		{"never rule", "git push --force origin main", proj, Never, 5, ""},
		{"never rule sees past options", "git push origin main --force", proj, Never, 5, ""},
		{"never rule inside a list", "cd x && git push --force", proj, Never, 5, ""},
		{"never rule via system path", "/usr/bin/git push --force", proj, Never, 5, ""},
		{"never rule through a wrapper", "nice -n 5 git push --force", proj, Never, 5, ""},
		{"never rule through env", "env GIT_TRACE=1 git push --force", proj, Never, 5, ""},
		{"never rule through sh -c", "sh -c 'cd x && git push --force'", proj, Never, 5, ""},
		{"never rule through eval", "eval 'git push --force'", proj, Never, 5, ""},
		{"never rule through xargs", "echo main | xargs git push --force origin", proj, Never, 5, ""},
		{"ask rule through timeout", "timeout 5 cat secrets.txt", proj, Ask, 4, ""},
		// Words read as bash reads them (plan.Literal), whatever the quoting.
		{"never rule in ANSI-C quotes", `git $'push' $'--\x66orce' origin main`, proj, Never, 5, ""},
		{"never rule with escapes", `git pu\sh \-\-force "origin"`, proj, Never, 5, ""},
		{"allow rule in ANSI-C quotes", `git $'commit' -m x`, proj, Allow, 1, ""},
		{"forbidden stays forbidden", "sudo git commit -m x", proj, "", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := verdict(c.command, c.wd)
			d := s.Decide(c.command, c.wd, v)
			if d.Kind != c.kind || d.Number != c.number || d.Floor != c.floor {
				t.Fatalf("Decide(%q in %s) = %+v, want kind %q rule %d floor %q", c.command, c.wd, d, c.kind, c.number, c.floor)
			}
			if d.Why == "" {
				t.Fatal("a decision without a reason")
			}
			if c.floor != "" && !strings.Contains(d.Why, "always asks") {
				t.Fatalf("floor decision says %q", d.Why)
			}
		})
	}
	if d := s.Decide("sudo git commit -m x", proj, verdict("sudo git commit -m x", proj)); !strings.Contains(d.Why, "forbids") {
		t.Fatalf("forbidden: %q", d.Why)
	}
}

func TestRuleChecks(t *testing.T) {
	t.Parallel()
	ok := allowGitCommit()
	cases := []struct {
		name string
		edit func(r *Rule)
		want string
	}{
		{"kind", func(r *Rule) { r.Kind = "maybe" }, "kind"},
		{"program path", func(r *Rule) { r.Program = "/usr/bin/git" }, "plain program name"},
		{"wrapper allow", func(r *Rule) { r.Program = "env"; r.Examples.Match = []string{"env commit"} }, "runs other programs"},
		{"relative folder", func(r *Rule) { r.Folder = "src/hark" }, "absolute"},
		{"dotdot folder", func(r *Rule) { r.Folder = "~/src/../.ssh" }, ".."},
		{"home folder", func(r *Rule) { r.Folder = "~" }, "protected"},
		{"ssh folder", func(r *Rule) { r.Folder = "~/.ssh" }, "protected"},
		{"system folder", func(r *Rule) { r.Folder = "/etc" }, "protected"},
		{"no examples", func(r *Rule) { r.Examples = Examples{} }, "at least one example"},
		{"match example fails", func(r *Rule) { r.Examples.Match = []string{"git push"} }, `"git push" should match`},
		{"noMatch example matches", func(r *Rule) { r.Examples.NoMatch = []string{"git commit --amend"} }, "should not match"},
		{"example hits the floor", func(r *Rule) { r.Examples.Match = []string{"git commit .git/config"} }, "always asks"},
	}
	s := newStore(t)
	if err := s.check(ok); err != nil {
		t.Fatalf("the good rule fails: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ok
			r.Examples = Examples{Match: append([]string(nil), ok.Examples.Match...), NoMatch: append([]string(nil), ok.Examples.NoMatch...)}
			c.edit(&r)
			err := s.check(r)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check = %v, want %q", err, c.want)
			}
			if _, err := s.Add(r); err == nil {
				t.Fatal("Add accepted a rule that fails its check")
			}
		})
	}
}

func TestLoadKeepsBadRulesAndIgnoresThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	text := `{
  "version": 1,
  "rules": [
    {"kind": "allow", "program": "git", "words": ["commit"], "folder": "~/src/hark",
     "examples": {"match": ["git commit -m x"], "noMatch": ["git push"]}},
    {"kind": "allow", "program": "rm", "folder": "/tmp/scratch",
     "examples": {"match": ["rm -rf /"], "noMatch": ["rm x"]}},
    {"kind": "allow", "program": "touch", "folde": "/tmp/scratch",
     "examples": {"match": ["touch x"], "noMatch": ["rm x"]}}
  ]
}
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path, home, pol)
	es := s.Entries()
	if len(es) != 3 {
		t.Fatalf("%d entries", len(es))
	}
	if es[0].Err != nil {
		t.Fatalf("rule 1: %v", es[0].Err)
	}
	if es[1].Err == nil || !strings.Contains(es[1].Err.Error(), `"rm -rf /" should match`) {
		t.Fatalf("rule 2: %v", es[1].Err)
	}
	if es[2].Err == nil || !strings.Contains(es[2].Err.Error(), "folde") {
		t.Fatalf("rule 3 (a misspelt field would widen it): %v", es[2].Err)
	}
	// The broken rules decide nothing; the good one still does.
	if d := s.Decide("rm x", "/tmp/scratch", verdict("rm x", "/tmp/scratch")); d.Kind != "" {
		t.Fatalf("a failing rule decided: %+v", d)
	}
	if d := s.Decide("touch x", "/home/u", verdict("touch x", "/home/u")); d.Kind != "" {
		t.Fatalf("an unreadable rule decided: %+v", d)
	}
	if d := s.Decide("git commit -m y", "/home/u/src/hark", verdict("git commit -m y", "/home/u/src/hark")); d.Kind != Allow {
		t.Fatalf("the good rule: %+v", d)
	}
	// Saving after a change writes the bad rules back as they were.
	if _, err := s.Remove(1); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Rules []map[string]any }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Rules) != 2 || f.Rules[1]["folde"] != "/tmp/scratch" || f.Rules[0]["program"] != "rm" {
		t.Fatalf("saved %s", data)
	}
}

func TestCorruptFileMovedAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(`{"rules": [ {"kind": "allow",`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path, home, pol)
	w := s.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "moved to") {
		t.Fatalf("warnings %q", w)
	}
	matches, _ := filepath.Glob(path + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("aside files %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != `{"rules": [ {"kind": "allow",` {
		t.Fatalf("the corrupt file changed: %q", b)
	}
	if len(s.Entries()) != 0 {
		t.Fatal("rules from a corrupt file")
	}
	if _, err := s.Add(allowGitCommit()); err != nil {
		t.Fatal(err)
	}
	if got := Open(path, home, pol).Entries(); len(got) != 1 || got[0].Err != nil {
		t.Fatalf("after Add: %+v", got)
	}
}

func TestReloadsWhenTheFileChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	a := Open(path, home, pol)
	b := Open(path, home, pol)
	cmd, wd := "git commit -m x", "/home/u/src/hark"
	if d := a.Decide(cmd, wd, verdict(cmd, wd)); d.Kind != "" {
		t.Fatalf("before: %+v", d)
	}
	if _, err := b.Add(allowGitCommit()); err != nil {
		t.Fatal(err)
	}
	if d := a.Decide(cmd, wd, verdict(cmd, wd)); d.Kind != Allow {
		t.Fatalf("a rule added by another process is not seen: %+v", d)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("rules file mode: %v %v", fi, err)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	s := newStore(t, allowGitCommit())
	if _, err := s.Remove(2); err == nil || !strings.Contains(err.Error(), "hark rules list") {
		t.Fatalf("Remove(2) = %v", err)
	}
	r, err := s.Remove(1)
	if err != nil || r.Program != "git" {
		t.Fatalf("Remove(1) = %v, %v", r, err)
	}
	if len(s.Entries()) != 0 {
		t.Fatal("not removed")
	}
}

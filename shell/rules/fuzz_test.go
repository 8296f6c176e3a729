package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
)

// FuzzDecide holds the rules' promises for any command: an allow rule
// decides only one plain, literal, confirm-tier command whose every name,
// expanded and resolved, touches no protected path and stays in its
// folder, and whose script (sed, awk) writes nothing out of sight; and whatever Propose offers,
// once saved, allows the very command it was made for and nothing the
// floor protects.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"git commit -m x", "rm -r build", "rm -rf .git/hooks", "cp a ~/.ssh/x", "touch {a,b}",
		"rm -r ../x", "nice rm x", "echo hi > x", "git push --force", "mkdir -p out/logs",
		"touch $(date)", "rm -f *.o", "cp -r x ~/*", "rm 'a b'", "rm a\\ b", "touch \"$HOME\"",
		"git -c core.pager=less commit", "find . -exec rm '{}' ';'", "cp x /", "touch ~root/x",
		// names that land elsewhere than they are spelt
		"rm -rf cache/*", "rm -f /proc/self/root/etc/x", "rm -f /proc/thread-self/root/etc/x",
		"rm -f /proc/1/root/etc/x", "cp -r x /proc/self/cwd/..", "rm -f /proc/self/cwd/../.ssh/id",
		"cp x /dev/fd/3", "rm -f up/../x", "rm -f .git/../x", "rm -f store/hooks/pre-commit",
		"[ -d x ] && cd /tmp; rm -rf *", "cd .. || true; rm x", `rm "$PWD/x"`, "rm secrets.tx?",
		// scripts that write where no argument shows it
		"sed -i 's/a/b/w /etc/x' f", "sed -i '1e touch x' f", "sed -i '' 's/a/b/w /tmp/x' f",
		`awk '{print > "/etc/x"}' f`, "sed -i -f s.sed f", "sed -i 's/a/b/' f",
	} {
		f.Add(s)
	}
	// A project on disk with links out of it and a .git file pointing to a
	// folder inside it, so that patterns, links and gitdirs are exercised.
	w := newWorld(f)
	if err := os.WriteFile(w.proj+"/.git", []byte("gitdir: store\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(w.proj+"/store/hooks", 0o755); err != nil {
		f.Fatal(err)
	}
	home, wd := w.home, w.proj
	f.Fuzz(func(t *testing.T, command string) {
		if len(command) > 300 {
			return
		}
		s := Open(filepath.Join(t.TempDir(), FileName), home, pol)
		allowRm := Entry{Number: 1, Rule: Rule{Kind: Allow, Program: "rm", Folder: "~/proj"}}
		allowCp := Entry{Number: 2, Rule: Rule{Kind: Allow, Program: "cp"}}
		allowSed := Entry{Number: 3, Rule: Rule{Kind: Allow, Program: "sed", Folder: "~/proj"}}
		v := verdict(command, wd)
		check := func(entries []Entry) {
			d := s.decide(entries, command, wd, v)
			if d.Kind != Allow {
				return
			}
			p := parse(command, wd, home)
			if v.Tier != policy.Confirm {
				t.Fatalf("%q: allowed at tier %s", command, v.Tier)
			}
			if !p.single || len(p.calls) != 1 {
				t.Fatalf("%q: allowed though not one plain command", command)
			}
			rs := newResolver(home)
			sps, unknown := rs.spots(p.calls[0])
			switch {
			case unknown != "":
				t.Fatalf("%q: allowed though what it touches is unknown (%s)", command, unknown)
			case rs.floor(sps) != "":
				t.Fatalf("%q: allowed though it touches %s", command, rs.floor(sps))
			case s.hiddenWrites(p.calls[0], wd) != "":
				t.Fatalf("%q: allowed though %s", command, s.hiddenWrites(p.calls[0], wd))
			case d.Rule.Folder != "" && rs.leaves(sps, rs.real(expandFolder(d.Rule.Folder, home))) != "":
				t.Fatalf("%q: allowed though it leaves %s", command, d.Rule.Folder)
			}
		}
		check([]Entry{allowRm, allowCp, allowSed})
		r, err := s.Propose(command, wd, v)
		if err != nil {
			return
		}
		check([]Entry{{Number: 1, Rule: r}})
		if d := s.decide([]Entry{{Number: 1, Rule: r}}, command, wd, v); d.Kind != Allow {
			t.Fatalf("%q: the proposed rule %s does not allow it: %s", command, r, d.Why)
		}
	})
}

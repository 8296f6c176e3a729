package rules

import (
	"path/filepath"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
)

// FuzzDecide holds the rules' promises for any command: an allow rule
// decides only one plain, literal, confirm-tier command that touches no
// protected path and stays in its folder; and whatever Propose offers,
// once saved, allows the very command it was made for and nothing the
// floor protects.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"git commit -m x", "rm -r build", "rm -rf .git/hooks", "cp a ~/.ssh/x", "touch {a,b}",
		"rm -r ../x", "nice rm x", "echo hi > x", "git push --force", "mkdir -p out/logs",
		"touch $(date)", "rm -f *.o", "cp -r x ~/*", "rm 'a b'", "rm a\\ b", "touch \"$HOME\"",
		"git -c core.pager=less commit", "find . -exec rm '{}' ';'", "cp x /", "touch ~root/x",
	} {
		f.Add(s)
	}
	wd := "/home/u/src/app"
	f.Fuzz(func(t *testing.T, command string) {
		if len(command) > 300 {
			return
		}
		s := Open(filepath.Join(t.TempDir(), FileName), home, pol)
		allowRm := Entry{Number: 1, Rule: Rule{Kind: Allow, Program: "rm", Folder: "~/src/app"}}
		allowCp := Entry{Number: 2, Rule: Rule{Kind: Allow, Program: "cp"}}
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
			case d.Rule.Folder != "" && rs.leaves(sps, rs.real(expandFolder(d.Rule.Folder, home))) != "":
				t.Fatalf("%q: allowed though it leaves %s", command, d.Rule.Folder)
			}
		}
		check([]Entry{allowRm, allowCp})
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

package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/rules"
)

// A rule matches the parsed command, not its text: the allow rule holds for
// git by any path but only in its folder, and the never rule reaches through
// the shell that would run git.
func ExampleStore_Decide() {
	home, err := os.MkdirTemp("", "hark-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)

	p := policy.New(policy.Options{})
	s := rules.Open(filepath.Join(home, rules.FileName), home, p)
	for _, r := range []rules.Rule{
		{Kind: rules.Allow, Program: "git", Words: []string{"commit"}, Folder: "~/src/hark",
			Examples: rules.Examples{Match: []string{"git commit -m wip"}, NoMatch: []string{"git push"}}},
		{Kind: rules.Never, Program: "git", Words: []string{"push", "--force"},
			Examples: rules.Examples{Match: []string{"git push --force"}, NoMatch: []string{"git push"}}},
	} {
		if _, err := s.Add(r); err != nil {
			fmt.Println(err)
			return
		}
	}

	for _, c := range []struct{ command, dir string }{
		{"git commit -m 'fix typo'", "~/src/hark"},
		{"/usr/bin/git commit -m 'fix typo'", "~/src/hark"},
		{"git commit -m 'fix typo'", "~"},
		{"bash -c 'git push origin --force'", "~/src/hark"},
		{"git push origin", "~/src/hark"},
	} {
		dir := filepath.Join(home, strings.TrimPrefix(c.dir, "~"))
		d := s.Decide(c.command, dir, p.ClassifyIn(c.command, dir))
		label := d.Label()
		if label == "" {
			label = "no rule, the policy's tier stands"
		}
		fmt.Printf("%s$ %s\n  %s\n", c.dir, c.command, label)
	}
	// Output:
	// ~/src/hark$ git commit -m 'fix typo'
	//   rule 1: always allow git commit in ~/src/hark
	// ~/src/hark$ /usr/bin/git commit -m 'fix typo'
	//   rule 1: always allow git commit in ~/src/hark
	// ~$ git commit -m 'fix typo'
	//   no rule, the policy's tier stands
	// ~/src/hark$ bash -c 'git push origin --force'
	//   rule 2: never run git push --force
	// ~/src/hark$ git push origin
	//   no rule, the policy's tier stands
}

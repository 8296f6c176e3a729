package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapePinnedFolderMovedIntoSSH: the approved folder itself, not a
// link in its place, is moved into ~/.ssh, either between the approval
// and the run or just after Run has checked it, before the command starts
// (as another process of the user could), with or without a link to it
// left where it was. The run must not start there:
// it is refused, and `..` never reaches the key. Checked from outside: the
// key is in no output and nothing was made in ~/.ssh. Every way a command
// starts, approved and sandboxed; named TestEscape… so that the nobody
// run of the suite runs it too.
func TestEscapePinnedFolderMovedIntoSSH(t *testing.T) {
	tiers := []struct {
		name    string
		verdict Verdict
		command string
	}{
		{"approved", confirmed, "pwd -P; cat ../id_rsa; touch ran-here"},
		{"sandboxed", Verdict{Tier: Safe}, "pwd -P; cat ../id_rsa"},
	}
	for _, m := range runModes() {
		for _, tier := range tiers {
			if tier.verdict.Tier == Safe && m.direct {
				continue // Linux sandboxes only through the helper; direct is macOS's way
			}
			for _, when := range []string{"before the run", "after the check", "after the check, a link left in its place"} {
				t.Run(m.name+"/"+tier.name+"/"+when, func(t *testing.T) {
					home, ssh, wd := pinTree(t, 1)
					r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
					m.apply(r)
					pin, err := PinDir(wd)
					if err != nil {
						t.Fatal(err)
					}
					defer pin.Close()
					moved := filepath.Join(ssh, "moved")
					move := func() {
						if err := os.Rename(wd, moved); err != nil {
							t.Errorf("move: %v", err)
						}
						if strings.Contains(when, "link") {
							if err := os.Symlink(moved, wd); err != nil {
								t.Errorf("link: %v", err)
							}
						}
					}
					if when == "before the run" {
						move()
					} else {
						r.pinChecked = move
					}
					res := r.Run(context.Background(), Request{Command: tier.command, WorkingDirectory: wd, Verdict: tier.verdict, Pin: pin})
					if _, err := os.Stat(moved); err != nil {
						t.Fatalf("the folder was not moved: %v", err)
					}
					if strings.Contains(res.Output, "KEY") || strings.Contains(res.Output, ssh) || len(ranHere(ssh)) != 0 {
						t.Fatalf("the run started in the folder moved into ~/.ssh and reached the key: %s", res.JSON())
					}
					if res.Executed || !strings.Contains(res.Error, "changed after the command was approved") || !strings.Contains(res.Error, "Nothing ran") {
						t.Errorf("the run should not start, saying the folder changed: %s", res.JSON())
					}
					t.Logf("%s", res.Error)
				})
			}
		}
	}
}

package shell

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/scope"
)

// An approved run starts in its folder on the same mount its own paths
// reach, so a program that names one file by its full path and another
// relative to the folder (git repack renames $PWD/.git/objects/pack/.tmp-…
// to .git/objects/pack/pack-…; ln "$PWD/a" b) links and renames within
// one file system as it does outside Hark, instead of failing with
// "Invalid cross-device link". Each scope path: the zygote's, and the
// helper's with mounts (a repository run with more than git).
func TestApprovedRunRenamesAcrossItsOwnPaths(t *testing.T) {
	if ok, _ := SandboxStatus(); !ok {
		t.Skip("no OS sandbox here: approved runs are not confined, so nothing to compare")
	}
	const work = `touch a && ln "$PWD/a" b && mv "$PWD/b" c && perl -e 'rename("$ENV{PWD}/c", "d") or die "rename: $!\n"' && ls`
	for _, repo := range []bool{false, true} {
		home := t.TempDir()
		dir := filepath.Join(home, "proj")
		if err := os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if !repo {
			os.RemoveAll(filepath.Join(dir, ".git"))
		} else if err := os.WriteFile(filepath.Join(dir, ".git/config"), []byte("[core]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: home, Timeout: time.Minute})
		sc := scope.Build(scope.Input{Dir: dir, Home: home, Programs: [][]string{{"make"}}})
		pin, err := PinDir(dir) // as the agent pins every approved folder
		if err != nil {
			t.Fatal(err)
		}
		res := r.Run(context.Background(), Request{Command: work, WorkingDirectory: dir, Verdict: confirmed, Scope: &sc, Pin: pin})
		pin.Close()
		if !res.Success || res.Sandbox != SandboxScoped {
			t.Errorf("repository %v: %s", repo, res.JSON())
		}
	}
}

package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// A repository whose own config names programs for the hooks git runs on
// read-only commands: with the guards, a sandboxed git status, log, diff
// and branch run none of them and still work; without them (an approved,
// unsandboxed run) the same repository runs its program, which shows the
// test can tell.
func TestSandboxGitRunsNoRepositoryPrograms(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	hook := filepath.Join(dir, "hook.sh")
	exectest.WriteScript(t, hook, "#!/bin/sh\necho HOOK-RAN >&2\nexit 0\n")
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "f"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "first")
	os.WriteFile(filepath.Join(repo, "f"), []byte("two\n"), 0o644)
	for _, kv := range [][2]string{
		{"core.fsmonitor", hook}, {"core.pager", hook}, {"pager.log", hook}, {"gpg.program", hook},
		{"log.showSignature", "true"}, {"core.hooksPath", dir}, {"credential.helper", hook}, {"core.sshCommand", hook},
	} {
		git("config", kv[0], kv[1])
	}
	// A hook that git runs on status, were hooks honoured.
	exectest.WriteScript(t, filepath.Join(dir, "post-index-change"), "#!/bin/sh\necho HOOK-RAN >&2\n")

	r := testRunner(t, RunnerOptions{Shell: "/bin/sh"})
	for _, cmd := range []string{"git status --short", "git log --oneline", "git diff --stat", "git branch"} {
		res := r.Run(context.Background(), Request{Command: cmd, WorkingDirectory: repo, Verdict: safe})
		if res.Sandbox != SandboxApplied || !res.Success || strings.Contains(res.Output+res.Error, "HOOK-RAN") {
			t.Errorf("%s: %s", cmd, res.JSON())
		}
	}
	control := r.Run(context.Background(), Request{Command: "git status --short", WorkingDirectory: repo, Verdict: confirmed})
	if !strings.Contains(control.Output+control.Error, "HOOK-RAN") {
		t.Errorf("control: unguarded, the repository's fsmonitor should run: %s", control.JSON())
	}

	// A bare repository committed inside a project is not entered.
	bare := filepath.Join(repo, "vendor.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	res := r.Run(context.Background(), Request{Command: "git -C vendor.git log", WorkingDirectory: repo, Verdict: safe})
	if res.Success || !strings.Contains(res.Error, "bare") {
		t.Errorf("an implicit bare repository was used: %s", res.JSON())
	}
}

// The guards replace whatever GIT_CONFIG_* and git program variables the
// parent had, and sit beside the run's TMPDIR.
func TestSandboxEnvGuards(t *testing.T) {
	t.Parallel()
	base := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=/evil", "GIT_EXTERNAL_DIFF=/evil", "HOME=/h", "TMPDIR=/old"}
	env := sandboxEnv(base, "/run/t")
	joined := strings.Join(env, "\n")
	for _, bad := range []string{"/evil", "TMPDIR=/old"} {
		if strings.Contains(joined, bad) {
			t.Errorf("env keeps %q:\n%s", bad, joined)
		}
	}
	for _, want := range []string{"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_NOSYSTEM=1", "TMPDIR=/run/t", "HOME=/h"} {
		if !strings.Contains(joined, want) {
			t.Errorf("env lacks %q:\n%s", want, joined)
		}
	}
	if lookupEnv(env, "GIT_CONFIG_COUNT") != strconv.Itoa(len(gitGuards)) || lookupEnv(env, "GIT_CONFIG_KEY_"+strconv.Itoa(len(gitGuards)-1)) == "" {
		t.Errorf("GIT_CONFIG_COUNT %q for %d guards", lookupEnv(env, "GIT_CONFIG_COUNT"), len(gitGuards))
	}
}

// repoPrograms reads a repository's real configuration, found as git finds
// it (walking up from a subfolder, through a worktree's gitfile), and the
// policy built for this machine asks for git diff there.
func TestRepoProgramsFindsDrivers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	mk := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(home, "clean/.git/config"), "[core]\n\tbare = false\n\tfsmonitor = /evil\n[diff]\n\tcolorMoved = zebra\n")
	mk(filepath.Join(home, "ext/.git/config"), "[diff]\n\texternal = /evil\n")
	mk(filepath.Join(home, "textconv/.git/config"), "[diff \"pdf\"]\n\ttextconv = /evil\n")
	mk(filepath.Join(home, "oldform/.git/config"), "[filter.lfs]\n\tsmudge = /evil\n")
	mk(filepath.Join(home, "include/.git/config"), "[includeIf \"gitdir:~/\"]\n\tpath = /elsewhere\n")
	mk(filepath.Join(home, "main/.git/worktrees/wt/commondir"), "../..\n")
	mk(filepath.Join(home, "main/.git/config"), "[filter \"x\"]\n\tprocess = /evil\n")
	mk(filepath.Join(home, "wt/.git"), "gitdir: "+filepath.Join(home, "main/.git/worktrees/wt")+"\n")
	if err := os.MkdirAll(filepath.Join(home, "ext/deep/er"), 0o755); err != nil {
		t.Fatal(err)
	}
	rp := repoPrograms(home)
	for dir, want := range map[string]string{
		"~/clean": "", "~/ext": "diff.external", filepath.Join(home, "ext/deep/er"): "diff.external",
		"textconv": "diff.pdf.textconv", "~/oldform": "filter.lfs.smudge", "~/include": "configuration that cannot be read (/elsewhere)",
		"~/wt": "filter.x.process", "~": "",
	} {
		if got := rp(dir); got != want {
			t.Errorf("repoPrograms(%q) = %q, want %q", dir, got, want)
		}
	}
	p := NewPolicyWith(PolicyOptions{RepoPrograms: rp})
	if v := p.ClassifyIn("git diff", filepath.Join(home, "ext")); v.Tier != Confirm {
		t.Errorf("git diff in a repository with diff.external: %s", v.Tier)
	}
	if v := p.ClassifyIn("git diff", filepath.Join(home, "clean")); v.Tier != Safe {
		t.Errorf("git diff in a clean repository: %s %v", v.Tier, v.Reasons)
	}
}

package agent

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
)

const privateNobodyEnv = "HARK_PRIVATE_AS_NOBODY"

// TestEveryPrivateEntryHidden is generated from privateHome: with the
// list as Request.Hide, as the sandbox gets it for another program's
// unasked run, a read of each entry is refused by Landlock, while the same
// read without the list succeeds, and the rest of home stays readable.
// TestEveryPrivateEntryHiddenAsNobody runs it again unprivileged.
func TestEveryPrivateEntryHidden(t *testing.T) {
	if ok, detail := shell.SandboxStatus(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is no sandbox to test: " + detail)
	}
	home := t.TempDir()
	const secret = "entry-secret-material"
	makePrivateEntries(t, home, secret)
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("visible\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
	hide := PrivateLocations(home)
	run := func(command string, hide []string) shell.Result {
		t.Helper()
		res := r.Run(context.Background(), shell.Request{Command: command, WorkingDirectory: home, Verdict: shell.Verdict{Command: command, Tier: shell.Safe}, Hide: hide})
		if !res.Executed || res.Sandbox != shell.SandboxApplied {
			t.Fatalf("%q did not run in the sandbox: %s", command, res.JSON())
		}
		return res
	}
	for _, e := range privateHome {
		t.Run(e.rel, func(t *testing.T) {
			command := "cat '" + privateEntryFile(home, e) + "'"
			if res := run(command, nil); !strings.Contains(res.Output, secret) {
				t.Fatalf("without the list %s should read the file: %s", command, res.JSON())
			}
			if res := run(command, hide); res.ExitCode == 0 || strings.Contains(res.Output, secret) || !strings.Contains(res.Error, "Permission denied") {
				t.Errorf("the sandbox let %s read ~/%s: %s", command, e.rel, res.JSON())
			}
		})
	}
	if res := run("cat notes.txt", hide); !res.Success || res.Output != "visible\n" {
		t.Errorf("the rest of home should stay readable: %s", res.JSON())
	}
	// An app folder made under ~/snap while the command runs (or before)
	// is inside the hidden parent: never readable. The command waits for
	// it by name (names stay visible) for a bounded number of checks.
	late := filepath.Join(home, "snap", "newapp", "common", "login")
	done := make(chan shell.Result, 1)
	go func() {
		done <- run("i=0; while [ ! -s '"+late+"' ] && [ $i -lt 200000 ]; do i=$((i+1)); done; cat '"+late+"'", hide)
	}()
	if err := os.MkdirAll(filepath.Dir(late), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(late, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.ExitCode == 0 || strings.Contains(res.Output, secret) {
		t.Errorf("an app folder made under ~/snap was readable: %s", res.JSON())
	}
}

// TestEveryPrivateEntryHiddenAsNobody: as root file permissions stop
// nothing, so the refusals above are Landlock's; this runs them again as
// nobody (uid 65534), where the kernel lets root drop to it.
func TestEveryPrivateEntryHiddenAsNobody(t *testing.T) {
	if os.Getenv(privateNobodyEnv) != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to drop to nobody; this run is already unprivileged")
	}
	if ok, detail := shell.SandboxStatus(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is no sandbox to test: " + detail)
	}
	bin, work := exectest.NobodyCopy(t, "agent.test")
	cmd := exec.Command(bin, "-test.run", "^TestEveryPrivateEntryHidden$", "-test.count=1", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + work, privateNobodyEnv + "=1", "CI=" + os.Getenv("CI")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test failed as nobody: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestEveryPrivateEntryHidden")) || bytes.Contains(out, []byte("--- SKIP: TestEveryPrivateEntryHidden")) {
		t.Fatalf("the unprivileged run did not run the test:\n%s", out)
	}
}

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command run on behalf of another program that the policy wrongly calls
// read-only still cannot read the user's keys: Request.Hide takes them out
// of the sandbox's reach, by any path, while the rest of home stays
// readable. Named TestEscape… so that TestEscapeAsNobody runs it again as
// an unprivileged user. As root file permissions stop nothing, so a refusal
// here is Landlock's doing.
func TestEscapeHiddenFiles(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	home := filepath.Join(t.TempDir(), "home")
	const secret = "secret-key-material"
	for name, data := range map[string]string{
		".ssh/id_rsa":      secret + "\n",
		".aws/credentials": "[default]\naws_secret_access_key = " + secret + "\n",
		"notes.txt":        "visible notes\n",
		"project/a.txt":    "nothing here\n",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Links into the hidden folder, from a project and from home itself.
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "project", "keys")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".ssh", filepath.Join(home, "sshlink")); err != nil {
		t.Fatal(err)
	}
	hide := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".aws"), filepath.Join(home, ".gnupg")} // .gnupg does not exist
	key := filepath.Join(home, ".ssh", "id_rsa")

	for _, mode := range helperModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
			mode.apply(r)
			run := func(command string, hide []string) Result {
				t.Helper()
				res := r.Run(context.Background(), Request{Command: command, WorkingDirectory: home, Verdict: safe, Hide: hide})
				if !res.Executed || res.Sandbox != SandboxApplied {
					t.Fatalf("%q did not run in the sandbox: %s", command, res.JSON())
				}
				return res
			}
			// Without the list the same command reads the key, so the
			// refusals below are the list's doing.
			if res := run("cat "+key, nil); !strings.Contains(res.Output, secret) {
				t.Fatalf("without Hide the key should be readable: %s", res.JSON())
			}
			for _, cmd := range []string{
				"cat " + key,
				"cat ~/.ssh/id_rsa",
				"cat sshlink/id_rsa",
				"cat project/keys/id_rsa",
				"cat " + filepath.Join(home, ".aws", "credentials"),
				"cat /proc/self/root" + key,
			} {
				res := run(cmd, hide)
				if res.ExitCode == 0 || strings.Contains(res.Output, secret) || !strings.Contains(res.Error, "Permission denied") {
					t.Errorf("%q was not refused with permission denied: %s", cmd, res.JSON())
				}
			}
			// A hard link into the writable temp folder would be a file of
			// that folder, so Landlock refuses to make it (EXDEV).
			if res := run("ln "+key+" \"$TMPDIR/k\" && cat \"$TMPDIR/k\"", hide); res.ExitCode == 0 || strings.Contains(res.Output, secret) {
				t.Errorf("a hard link in the temp folder read the key: %s", res.JSON())
			}
			if res := run("grep -R "+secret+" project/", hide); strings.Contains(res.Output, secret) || res.ExitCode == 0 {
				t.Errorf("grep -R through the link found the key: %s", res.JSON())
			}
			if res := run("ls", hide); !res.Success || !strings.Contains(res.Output, "notes.txt") || !strings.Contains(res.Output, "project") {
				t.Errorf("ls of home should still work: %s", res.JSON())
			}
			if res := run("cat notes.txt project/a.txt", hide); !res.Success || res.Output != "visible notes\nnothing here\n" {
				t.Errorf("the rest of home should stay readable: %s", res.JSON())
			}
			// The rest of the system stays readable too, and the shell ran.
			if res := run("cat /etc/passwd >/dev/null && echo ok", hide); !res.Success || res.Output != "ok\n" {
				t.Errorf("/etc should stay readable: %s", res.JSON())
			}
		})
	}
}

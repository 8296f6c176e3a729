package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
	"github.com/hark-sh/hark/shell/trash"
)

const pinNobodyEnv = "HARK_PIN_AS_NOBODY"

// everythingAsks makes every command one the user must approve.
type everythingAsks struct{}

func (everythingAsks) ClassifyIn(c, _ string) shell.Verdict {
	return shell.Verdict{Command: c, Tier: shell.Confirm, Reasons: []shell.Reason{{Why: "test: asks"}}}
}

// pinHome is a throwaway home with a fake ~/.ssh and an ordinary project.
func pinHome(t *testing.T) (home, ssh string) {
	t.Helper()
	home = t.TempDir()
	ssh = filepath.Join(home, ".ssh")
	for _, d := range []string{ssh, filepath.Join(ssh, "proj"), filepath.Join(home, "other")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_rsa"), []byte("BEGIN OPENSSH PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, ssh
}

// markers lists every file named ran-here under root: where a command ran.
func markers(root string) []string {
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "ran-here" {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// pinSwaps are the ways a folder can be made to name another one between
// the check and the run; each gets home and the approved folder's path.
var pinSwaps = []struct {
	name string
	wd   func(home string) string
	swap func(home, wd string) error
}{
	{"replaced by a link to ~/.ssh", projWD, func(home, wd string) error {
		return renameThen(wd, func() error { return os.Symlink(filepath.Join(home, ".ssh"), wd) })
	}},
	{"replaced by a relative link to ~/.ssh", projWD, func(home, wd string) error {
		return renameThen(wd, func() error { return os.Symlink(".ssh", wd) })
	}},
	{"removed and a link to ~/.ssh put there", projWD, func(home, wd string) error {
		if err := os.Remove(wd); err != nil {
			return err
		}
		return os.Symlink(filepath.Join(home, ".ssh"), wd)
	}},
	{"replaced by a link to an ordinary folder", projWD, func(home, wd string) error {
		return renameThen(wd, func() error { return os.Symlink(filepath.Join(home, "other"), wd) })
	}},
	{"a parent swapped for a link into ~/.ssh", nestedWD, func(home, wd string) error {
		parent := filepath.Dir(wd)
		return renameThen(parent, func() error { return os.Symlink(filepath.Join(home, ".ssh"), parent) })
	}},
	{"a grandparent swapped for a link", deepWD, func(home, wd string) error {
		gp := filepath.Dir(filepath.Dir(wd))
		if err := os.MkdirAll(filepath.Join(home, ".ssh", "b", "proj"), 0o700); err != nil {
			return err
		}
		return renameThen(gp, func() error { return os.Symlink(filepath.Join(home, ".ssh"), gp) })
	}},
	{"renamed over by another folder", projWD, func(home, wd string) error {
		// wd is empty, so rename(2) replaces it (os.Rename refuses to).
		return syscall.Rename(filepath.Join(home, "other"), wd)
	}},
	{"swapped for another ordinary folder", projWD, func(home, wd string) error {
		return renameThen(wd, func() error { return os.Mkdir(wd, 0o755) })
	}},
	{"deleted and made again", projWD, func(home, wd string) error {
		if err := os.Remove(wd); err != nil {
			return err
		}
		return os.Mkdir(wd, 0o755)
	}},
}

func projWD(home string) string   { return mkdirs(home, "proj") }
func nestedWD(home string) string { return mkdirs(home, "a", "proj") }
func deepWD(home string) string   { return mkdirs(home, "a", "b", "proj") }

func mkdirs(home string, parts ...string) string {
	p := filepath.Join(append([]string{home}, parts...)...)
	os.MkdirAll(p, 0o755)
	return p
}

// renameThen moves p aside and calls put to put something else at p.
func renameThen(p string, put func() error) error {
	if err := os.Rename(p, p+".aside"); err != nil {
		return err
	}
	return put()
}

// TestApprovedFolderCannotBeRedirected: a client's command is approved in
// an ordinary folder, and the approval itself (the Confirmer) swaps the
// folder before it answers yes, as a client could while the user reads.
// The command must run nowhere, and the result must say the folder changed.
// The same agent.Handle path serves hark mcp and hark exec.
func TestApprovedFolderCannotBeRedirected(t *testing.T) {
	const command = "pwd -P; ls; touch ran-here"
	for _, form := range pinSwaps {
		t.Run(form.name, func(t *testing.T) {
			home, _ := pinHome(t)
			wd := form.wd(home)
			h := newHarness(t, nil, func(o *Options) {
				o.Classifier, o.Home = everythingAsks{}, home
				o.Executor = shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
					Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
			})
			swapped := false
			confirm := ConfirmerFunc(func(ctx context.Context, p Pending) (Decision, error) {
				if err := form.swap(home, wd); err != nil {
					t.Errorf("swap: %v", err)
				}
				swapped = true
				return Decision{Approved: true, By: ByMenu}, nil
			})
			args, _ := json.Marshal(map[string]string{"command": command, "workingDirectory": wd, "purpose": "testing"})
			res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: confirm, PrivateDirs: PrivateLocations(home)})
			if err != nil {
				t.Fatal(err)
			}
			if !swapped {
				t.Fatalf("the user was not asked, so nothing was swapped: %s", res.JSON())
			}
			if m := markers(home); res.Executed || len(m) != 0 {
				t.Fatalf("the command ran after its folder was swapped (markers %v): %s", m, res.JSON())
			}
			if !strings.Contains(res.Error, "changed after the command was approved") || !strings.Contains(res.Error, "Nothing ran") {
				t.Errorf("the result should say the folder changed after approval: %q", res.Error)
			}
		})
	}
	t.Run("unchanged folder runs", func(t *testing.T) {
		home, _ := pinHome(t)
		wd := projWD(home)
		h := newHarness(t, nil, func(o *Options) {
			o.Classifier, o.Home = everythingAsks{}, home
			o.Executor = shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
				Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
		})
		h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
		args, _ := json.Marshal(map[string]string{"command": command, "workingDirectory": wd, "purpose": "testing"})
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: h.confirmer, PrivateDirs: PrivateLocations(home)})
		real, _ := filepath.EvalSymlinks(wd)
		if err != nil || !res.Success || !strings.HasPrefix(res.Output, real+"\n") {
			t.Fatalf("an approved command in an unchanged folder should run there (%s): %v %s", real, err, res.JSON())
		}
		if m := markers(home); len(m) != 1 || filepath.Dir(m[0]) != wd {
			t.Fatalf("it should have run in %s only: %v", wd, m)
		}
	})
}

// TestApprovedFolderRace: each approval sets a goroutine swapping the
// folder for a link to ~/.ssh and back, a different number of times, while
// the approved command starts; none may ever start in ~/.ssh. Each run
// either starts in the folder (under its name or the name it is moved
// aside to) or is refused.
func TestApprovedFolderRace(t *testing.T) {
	const runs = 80
	home, ssh := pinHome(t)
	wd := projWD(home)
	h := newHarness(t, nil, func(o *Options) {
		o.Classifier, o.Home = everythingAsks{}, home
		o.Executor = shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
			Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
	})
	realWD, _ := filepath.EvalSymlinks(wd)
	var ran, refused int
	for i := range runs {
		done := make(chan struct{})
		approve := ConfirmerFunc(func(_ context.Context, p Pending) (Decision, error) {
			if p.Further != "" {
				// A run stopped at the edge of its scope while the folder
				// was away: the second question is not this test's.
				return Decision{By: ByMenu}, nil
			}
			go func() {
				defer close(done)
				// Each state is held for a few scheduler turns, so the run
				// lands in all of them; it always ends restored.
				for k := range 1 + i%9 {
					if os.Rename(wd, wd+".aside") != nil {
						t.Error("could not move the folder aside")
						return
					}
					os.Symlink(ssh, wd)
					yield((i + k) % 13)
					os.Remove(wd)
					os.Rename(wd+".aside", wd)
					yield((i * k) % 7)
				}
			}()
			yield(i % 11)
			return Decision{Approved: true, By: ByMenu}, nil
		})
		args, _ := json.Marshal(map[string]string{"command": "pwd -P; touch ran-here", "workingDirectory": wd, "purpose": "testing"})
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: approve, PrivateDirs: PrivateLocations(home)})
		<-done
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case res.Executed:
			ran++
			if got := strings.TrimSpace(res.Output); got != realWD && got != realWD+".aside" {
				t.Errorf("run %d started in %q, not in the approved folder: %s", i, got, res.JSON())
			}
		default:
			refused++
			if !strings.Contains(res.Error, "changed after the command was approved") && !strings.Contains(res.Error, "does not exist") {
				t.Errorf("run %d was refused for another reason: %s", i, res.Error)
			}
		}
		if m := markers(ssh); len(m) != 0 {
			t.Fatalf("run %d ran in ~/.ssh: %v %s", i, m, res.JSON())
		}
		os.Remove(filepath.Join(wd, "ran-here"))
	}
	t.Logf("%d runs: %d ran in the approved folder, %d refused", runs, ran, refused)
}

func yield(n int) {
	for range n {
		runtime.Gosched()
	}
}

// TestApprovedFolderAsNobody runs the tests above again as nobody (uid
// 65534), where the kernel lets root drop to it: the pin must not lean on
// root's reach.
func TestApprovedFolderAsNobody(t *testing.T) {
	if os.Getenv(pinNobodyEnv) != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to drop to nobody; this run is already unprivileged")
	}
	bin, work := exectest.NobodyCopy(t, "agent.test")
	cmd := exec.Command(bin, "-test.run", "^TestApprovedFolder(CannotBeRedirected|Race|TrashNotRedirected|VoiceNotRedirected)$", "-test.count=1", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + work, pinNobodyEnv + "=1", "CI=" + os.Getenv("CI")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests failed as nobody: %v\n%s", err, out)
	}
	for _, name := range []string{"TestApprovedFolderCannotBeRedirected", "TestApprovedFolderRace", "TestApprovedFolderTrashNotRedirected", "TestApprovedFolderVoiceNotRedirected"} {
		if !bytes.Contains(out, []byte("--- PASS: "+name)) {
			t.Fatalf("the unprivileged run did not pass %s:\n%s", name, out)
		}
	}
}

// TestApprovedFolderTrashNotRedirected: Move to Trash works on paths under
// the folder, so a swap during the approval must stop it too.
func TestApprovedFolderTrashNotRedirected(t *testing.T) {
	var bin *trash.Bin
	var home, ssh string
	h := newHarness(t, nil, func(o *Options) {
		home, ssh = pinHome(t)
		o.Home = home
		o.Classifier = shell.NewPolicy()
		withTrash(t, &bin)(o)
	})
	wd := projWD(home)
	writeFile(t, filepath.Join(wd, "notes.txt"))
	writeFile(t, filepath.Join(ssh, "notes.txt"))
	confirm := ConfirmerFunc(func(ctx context.Context, p Pending) (Decision, error) {
		if !p.TrashOffered {
			t.Errorf("Move to Trash was not offered for %q", p.Command)
		}
		if err := renameThen(wd, func() error { return os.Symlink(ssh, wd) }); err != nil {
			t.Error(err)
		}
		return Decision{Trash: true, By: ByMenu}, nil
	})
	args, _ := json.Marshal(map[string]string{"command": "rm notes.txt", "workingDirectory": wd, "purpose": "executing"})
	res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: confirm, PrivateDirs: PrivateLocations(home)})
	if err != nil {
		t.Fatal(err)
	}
	if !present(filepath.Join(ssh, "notes.txt")) || !present(filepath.Join(wd+".aside", "notes.txt")) {
		t.Fatalf("a file was moved after the folder was swapped: %s", res.JSON())
	}
	if res.Success || !strings.Contains(res.Error, "changed after the command was approved") {
		t.Errorf("the result should say the folder changed: %s", res.JSON())
	}
}

// TestApprovedFolderVoiceNotRedirected: the same attack on a command Hark's
// own model proposed (the app's path, agent.Run).
func TestApprovedFolderVoiceNotRedirected(t *testing.T) {
	var home, ssh, wd string
	h := newHarness(t, nil, func(o *Options) {
		home, ssh = pinHome(t)
		wd = projWD(home)
		o.Classifier, o.Home = everythingAsks{}, home
		o.Executor = shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
			Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
		o.Confirmer = ConfirmerFunc(func(ctx context.Context, p Pending) (Decision, error) {
			if err := renameThen(wd, func() error { return os.Symlink(ssh, wd) }); err != nil {
				t.Error(err)
			}
			return Decision{Approved: true, By: ByMenu}, nil
		})
	})
	h.client.replies = []reply{tools(call("command", "pwd -P; touch ran-here", "purpose", "executing", "workingDirectory", wd)), text("done")}
	if _, err := h.agent.Run(context.Background(), NewConversation(), "make a marker"); err != nil {
		t.Fatal(err)
	}
	if m := markers(home); len(m) != 0 {
		t.Fatalf("the command ran after its folder was swapped: %v", m)
	}
	msgs := toolMessages(t, h.client.requests[len(h.client.requests)-1].Messages)
	if len(msgs) != 1 || !strings.Contains(msgs[0]["error"].(string), "changed after the command was approved") {
		t.Fatalf("the model should read that the folder changed: %v", msgs)
	}
}

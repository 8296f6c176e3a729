package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
)

// everythingSafe is a policy that is wrong about every command: it calls
// them all read-only.
type everythingSafe struct{}

func (everythingSafe) ClassifyIn(c, _ string) shell.Verdict {
	return shell.Verdict{Command: c, Tier: shell.Safe, Reasons: []shell.Reason{}}
}

// recordingRunner is the real Runner, keeping what it returned.
type recordingRunner struct {
	*shell.Runner
	mu  sync.Mutex
	res []shell.Result
}

func (r *recordingRunner) Run(ctx context.Context, req shell.Request) shell.Result {
	res := r.Runner.Run(ctx, req)
	r.mu.Lock()
	r.res = append(r.res, res)
	r.mu.Unlock()
	return res
}

// TestSandboxHidesSecretsFromOtherPrograms: a program nothing can see
// into (a script that reads ~/.ssh/id_rsa with no argument naming it),
// called read-only by a policy that is wrong, runs unasked for another
// program through Handle, and the sandbox refuses the read. The voice
// loop's sandbox is as it was: the same script reads the key there.
func TestSandboxHidesSecretsFromOtherPrograms(t *testing.T) {
	if ok, detail := shell.SandboxStatus(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is no sandbox to test: " + detail)
	}
	home := t.TempDir()
	project, _ := secretHome(t, home)
	key := filepath.Join(home, ".ssh", "id_rsa")
	script := filepath.Join(t.TempDir(), "show-config")
	exectest.WriteProgram(t, script, []byte("#!/bin/sh\ncat '"+key+"'\n"), 0o755)
	const keyText = "BEGIN OPENSSH PRIVATE KEY"
	newRunner := func() *recordingRunner {
		return &recordingRunner{Runner: shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh",
			Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})}
	}

	t.Run("from another program", func(t *testing.T) {
		exec := newRunner()
		h := newHarness(t, nil, func(o *Options) {
			o.Classifier, o.Executor, o.Home = everythingSafe{}, exec, home
		})
		args, _ := json.Marshal(map[string]string{"command": script, "workingDirectory": project, "purpose": "testing"})
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: h.confirmer})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.confirmer.asked) != 0 {
			t.Fatalf("it was asked about, so this does not test the sandbox: %v", h.confirmer.askedCommands())
		}
		if !res.Executed || res.Sandbox != shell.SandboxApplied {
			t.Fatalf("the command did not run in the sandbox: %s", res.JSON())
		}
		if strings.Contains(res.Output, keyText) || res.ExitCode == 0 || !strings.Contains(res.Error, "Permission denied") {
			t.Errorf("the sandbox let another program's command read the key: %s", res.JSON())
		}
		// The rest of home is still there for it.
		args, _ = json.Marshal(map[string]string{"command": "cat README.md", "workingDirectory": project, "purpose": "testing"})
		if res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: h.confirmer}); err != nil || !res.Success || res.Output != "hello\n" {
			t.Errorf("an ordinary read failed: %v %s", err, res.JSON())
		}
	})

	t.Run("voice", func(t *testing.T) {
		exec := newRunner()
		h := newHarness(t, []reply{
			tools(call("command", script, "purpose", "testing", "workingDirectory", project)),
			text("done"),
		}, func(o *Options) {
			o.Classifier, o.Executor, o.Home = everythingSafe{}, exec, home
		})
		if _, err := h.agent.Run(context.Background(), NewConversation(), "show the config"); err != nil {
			t.Fatal(err)
		}
		if len(exec.res) != 1 || exec.res[0].Sandbox != shell.SandboxApplied || !strings.Contains(exec.res[0].Output, keyText) {
			t.Errorf("the voice loop's sandbox changed: %+v", exec.res)
		}
	})
}

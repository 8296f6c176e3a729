package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// Every approved run is held to its scope, end to end with the real
// policy, previewer and runner: a project's hostile build, approved in the
// project, makes its own output but reaches neither the start-up files,
// the keys nor Hark's own settings; its approval showed the project as
// what it may change, and the audit log recorded the same.
func TestApprovedBuildHeldToWhatItsCardShowed(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	for p, body := range map[string]string{".bashrc": "orig\n", ".ssh/id_rsa": "KEY\n", ".config/hark/settings.json": "{}\n",
		"proj/build.sh": "echo evil >> ~/.bashrc; cp ~/.ssh/id_rsa stolen; echo '{\"confirm\":false}' > ~/.config/hark/settings.json; echo built > out.txt\n"} {
		p = filepath.Join(home, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := newWire(t, []ollamatest.Reply{
		{Calls: []api.ToolCall{ollamatest.Call("command", "sh build.sh", "workingDirectory", proj, "purpose", "executing")}},
		{Text: "Built."},
	}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		runner := shell.NewRunner(shell.RunnerOptions{Home: home, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}})
		o.Executor = runner
		o.Previewer = preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second})
		o.Home = home
	})
	w.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	if _, err := w.agent.Run(context.Background(), NewConversation(), "build it"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{".bashrc": "orig\n", ".config/hark/settings.json": "{}\n", "proj/out.txt": "built\n"} {
		if got, _ := os.ReadFile(filepath.Join(home, p)); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, "stolen")); err == nil {
		t.Error("the build copied the key into the project")
	}
	asked := w.confirmer.asked
	realProj, _ := filepath.EvalSymlinks(proj)
	if len(asked) != 1 || asked[0].Scope == nil || len(asked[0].Scope.Write) != 1 || asked[0].Scope.Write[0] != realProj {
		t.Fatalf("the card's scope %+v, want the project alone", asked)
	}
	if lines := strings.Join(asked[0].Scope.Lines(home), "\n"); !strings.Contains(lines, "May change: ") || strings.Contains(lines, "⚠") {
		t.Errorf("the card says %q", lines)
	}
	es := w.auditEntries(t)
	if len(es) != 1 || es[0].Scope == nil || es[0].Sandbox != shell.SandboxScoped || es[0].Scope.Write[0] != realProj {
		t.Errorf("audit %+v", es)
	}
}

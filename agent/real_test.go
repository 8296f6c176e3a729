package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// The runner re-executes the running binary as `__sandbox …`, and the
// previewer as `__preview …`; in tests that is this test binary, so serve
// both helpers before the tests start.
func init() {
	if len(os.Args) > 1 && os.Args[1] == shell.HelperCommand {
		syscall.Exit(shell.SandboxHelperMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == preview.HelperCommand {
		syscall.Exit(preview.HelperMain(os.Args[2:]))
	}
}

// End to end with the real client, policy and runner: a read-only look runs
// at once (sandboxed where the OS allows), an approved change really
// happens, a denied one really does not, and the model sees every result.
func TestWireRealPolicyAndRunner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.log"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	made, kept := filepath.Join(dir, "made"), filepath.Join(dir, "old.log")
	w := newWire(t, []ollamatest.Reply{
		{Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "checking")}},
		{Calls: []api.ToolCall{
			ollamatest.Call("command", "mkdir "+made, "purpose", "executing"),
			ollamatest.Call("command", "rm "+kept, "purpose", "executing"),
		}},
		{Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "verifying")}},
		{Text: "Made the folder; old.log stays."},
	}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		runner := shell.NewRunner(shell.RunnerOptions{Home: dir})
		o.Executor = runner
		// A generous bound: this machine's cores may be shared.
		o.Previewer = preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second})
		o.Home = dir
	})
	w.confirmer.decisions = []Decision{{Approved: true, By: ByTerminal}, {Approved: false, By: ByTerminal}}
	if _, err := w.agent.Run(context.Background(), NewConversation(), "make a folder and delete the log"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(made); err != nil {
		t.Errorf("approved mkdir did not happen: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("denied rm happened: %v", err)
	}
	first := w.wireToolResults(t, 1)
	if first[0]["executed"] != true || !strings.Contains(first[0]["output"].(string), "old.log") || first[0]["tier"] != "safe" {
		t.Errorf("first result %v", first[0])
	}
	if sb := first[0]["sandbox"]; sb != shell.SandboxApplied && sb != shell.SandboxUnavailable {
		t.Errorf("safe command sandbox = %v", sb)
	}
	last := w.wireToolResults(t, 3)
	if len(last) != 4 || !strings.Contains(last[3]["output"].(string), "made") || last[3]["purpose"] != "verifying" {
		t.Errorf("verify result %v", last)
	}
	if last[2]["executed"] != false || !strings.HasPrefix(last[2]["error"].(string), "The user denied this command.") {
		t.Errorf("denied result %v", last[2])
	}
	es := w.auditEntries(t)
	if len(es) != 4 || es[1].Decision != DecisionApproved || es[1].ExitCode == nil || *es[1].ExitCode != 0 || es[2].Decision != DecisionDenied {
		t.Errorf("audit %+v", es)
	}
	// The approval of the rm showed what it would delete, looked at in the
	// sandbox, and the audit log kept what was shown.
	want := preview.Shown
	if ok, _ := shell.SandboxStatus(); !ok {
		want = preview.Unavailable
	}
	asked := w.confirmer.asked
	if len(asked) != 2 || asked[1].Preview == nil || asked[1].Preview.Status != want {
		t.Fatalf("the rm's approval had preview %+v, want status %s", asked[1].Preview, want)
	}
	// mkdir deletes, moves and overwrites nothing: no preview.
	if asked[0].Preview != nil || (want == preview.Shown && asked[1].Preview.Summary != "Deletes 1 file, 1 B") {
		t.Errorf("previews: mkdir %+v, rm %+v", asked[0].Preview, asked[1].Preview)
	}
	if es[2].Preview == nil || es[2].Preview.Summary != asked[1].Preview.Summary || es[0].Preview != nil {
		t.Errorf("audit previews: %+v, %+v", es[0].Preview, es[2].Preview)
	}
}

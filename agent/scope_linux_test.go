package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
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

// A run the kernel stopped at the edge of its scope leads to a second,
// separate question that names what was refused; a yes runs it again with
// that place added, for that run. Confirmation off does not answer it.
func TestStoppedAtTheEdgeAsksAgain(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	for _, answer := range []bool{true, false} {
		home := t.TempDir()
		proj, notes := filepath.Join(home, "proj"), filepath.Join(home, "notes")
		os.MkdirAll(proj, 0o755)
		os.MkdirAll(notes, 0o755)
		// The refusal names ../notes/log, relative to the folder the
		// command runs in.
		cmd := "touch built && touch ../notes/log"
		w := newWire(t, []ollamatest.Reply{
			{Calls: []api.ToolCall{ollamatest.Call("command", cmd, "workingDirectory", proj, "purpose", "executing")}},
			{Text: "Done."},
		}, func(o *Options) {
			o.Classifier = shell.NewPolicy()
			runner := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh", Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}})
			o.Executor = runner
			o.Home = home
			o.NoConfirm = true // the first run is not asked; the second always is
		})
		w.confirmer.decisions = []Decision{{Approved: answer, By: ByMenu}}
		if _, err := w.agent.Run(context.Background(), NewConversation(), "build and log"); err != nil {
			t.Fatal(err)
		}
		asked := w.confirmer.asked
		if len(asked) != 1 || !strings.Contains(asked[0].Further, "Also allow changing ~/notes/log (this run)") || asked[0].Unlimited {
			t.Fatalf("the second question: %+v", asked)
		}
		if asked[0].Scope == nil || !slices.Contains(asked[0].Scope.Write, filepath.Join(notes, "log")) && !slices.Contains(asked[0].Scope.Write, notes) {
			t.Errorf("the second question's scope does not add the refused place: %+v", asked[0].Scope)
		}
		_, err := os.Stat(filepath.Join(notes, "log"))
		es := w.auditEntries(t)
		if answer {
			if err != nil || len(es) != 2 || es[0].Decision != DecisionUnconfirmedRun || es[1].Decision != DecisionWidened {
				t.Errorf("after a yes: log %v, audit %+v", err, es)
			}
		} else {
			res := w.wireToolResults(t, 1)[0]
			if err == nil || len(es) != 1 || !strings.Contains(res["error"].(string), "stopped at the edge of what the user approved") {
				t.Errorf("after a no: log %v, audit %+v, result %v", err, es, res)
			}
		}
	}
}

// A refusal whose place the output does not name leads to the question
// of a run without limits, said as such; a yes runs it without the
// sandbox, and the audit log records it as such.
func TestRefusedUnnamedAsksToRunWithoutLimits(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	home := t.TempDir()
	proj, notes := filepath.Join(home, "proj"), filepath.Join(home, "notes")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(notes, 0o755)
	w := newWire(t, []ollamatest.Reply{
		{Calls: []api.ToolCall{ollamatest.Call("command", "cd ../notes && touch y", "workingDirectory", proj, "purpose", "executing")}},
		{Text: "Done."},
	}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		o.Executor = shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh", Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C"}})
		o.Home = home
	})
	w.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}, {Approved: true, By: ByMenu}}
	if _, err := w.agent.Run(context.Background(), NewConversation(), "touch y in notes"); err != nil {
		t.Fatal(err)
	}
	asked := w.confirmer.asked
	if len(asked) != 2 || !asked[1].Unlimited || asked[1].Scope != nil {
		t.Fatalf("the second question should be a run without limits: %+v", asked)
	}
	if _, err := os.Stat(filepath.Join(notes, "y")); err != nil {
		t.Errorf("the run without limits did not happen: %v", err)
	}
	es := w.auditEntries(t)
	if len(es) != 2 || es[1].Decision != DecisionUnlimited || es[1].Sandbox != shell.SandboxNotApplied {
		t.Errorf("audit %+v", es)
	}
}

// The yes is to the card as shown: when what the command would touch
// changes while the user decides (a file a glob now takes), the new card
// is put to the user before anything runs.
func TestChangedWhileDecidingAsksAgain(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	home := t.TempDir()
	build := filepath.Join(home, "proj", "build")
	os.MkdirAll(build, 0o755)
	os.WriteFile(filepath.Join(build, "a.o"), []byte("a"), 0o644)
	w := newWire(t, []ollamatest.Reply{
		{Calls: []api.ToolCall{ollamatest.Call("command", "rm -r build/*", "workingDirectory", filepath.Join(home, "proj"), "purpose", "executing")}},
		{Text: "Done."},
	}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		runner := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh", Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}})
		o.Executor = runner
		o.Previewer = preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second})
		o.Home = home
	})
	w.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}, {Approved: true, By: ByMenu}}
	w.confirmer.before = func(p Pending) {
		if p.Further == "" { // while the first card waits, a file appears
			os.WriteFile(filepath.Join(build, "b.o"), []byte("bb"), 0o644)
		}
	}
	if _, err := w.agent.Run(context.Background(), NewConversation(), "clean the build"); err != nil {
		t.Fatal(err)
	}
	asked := w.confirmer.asked
	if len(asked) != 2 || asked[0].Preview == nil || asked[1].Preview == nil || asked[0].Preview.Summary == asked[1].Preview.Summary ||
		!strings.Contains(asked[1].Further, "changed while you decided") {
		t.Fatalf("the changed card was not put again: %+v", asked)
	}
	if ents, _ := os.ReadDir(build); len(ents) != 0 {
		t.Errorf("approved on the new card, the deletion did not happen: %v", ents)
	}
}

// A file made directly in home opens home to the kernel without the right
// to remove or rename there; a program that writes a temporary file and
// renames it into place (zip) is refused that, and its output names no
// place. The second question names what was withheld — removing and
// renaming in ~ — not a run without limits; a yes runs it again with
// that right alone added, and the archive is made.
func TestRefusedRenameInHomeAsksForThatAlone(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	zip, err := exec.LookPath("zip")
	if err != nil {
		t.Skip("zip is not installed: nothing writes its archive by a rename here")
	}
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "a.txt"), []byte("x\n"), 0o644)
	w := newWire(t, []ollamatest.Reply{
		{Calls: []api.ToolCall{ollamatest.Call("command", zip+" -qr ../proj.zip .", "workingDirectory", proj, "purpose", "executing")}},
		{Text: "Zipped."},
	}, func(o *Options) {
		o.Classifier = shell.NewPolicy()
		runner := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh", Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C"}})
		o.Executor = runner
		o.Previewer = preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second})
		o.Home = home
	})
	w.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}, {Approved: true, By: ByMenu}}
	if _, err := w.agent.Run(context.Background(), NewConversation(), "zip the project"); err != nil {
		t.Fatal(err)
	}
	asked := w.confirmer.asked
	if len(asked) != 2 || asked[1].Unlimited || !strings.Contains(asked[1].Further, "Also allow removing and renaming files in ~ (this run)") {
		t.Fatalf("the second question: %+v", asked)
	}
	if sc := asked[1].Scope; sc == nil || len(sc.NoRemove) != 0 || sc.Network {
		t.Errorf("the second question's scope: %+v", sc)
	}
	if _, err := os.Stat(filepath.Join(home, "proj.zip")); err != nil {
		t.Errorf("no archive after the yes: %v", err)
	}
	if es := w.auditEntries(t); len(es) != 2 || es[1].Decision != DecisionWidened {
		t.Errorf("audit %+v", es)
	}
}

// A run's output chooses the place the second question offers. A refusal
// of a name that does not exist directly in home (../nothere) would grant
// all of home under a card that names the file alone, so it is not
// offered; a refusal of home itself (../.) offers home, said as such,
// and its start-up files and Hark's own stay kept.
func TestRefusedPlaceKeepsWhatItHolds(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("orig\n"), 0o644)
	own := filepath.Join(home, ".config/hark") + "/"
	sc := &scope.Scope{Write: []string{proj}, Keep: []string{filepath.Join(home, ".bashrc"), own}}
	run := func(out string) shell.Result {
		return shell.Result{Executed: true, Sandbox: shell.SandboxScoped, WorkingDirectory: proj, Error: out}
	}
	if b, _ := refusedOutside(run("x: ../nothere: Permission denied"), sc, home); len(b.places) != 0 {
		t.Errorf("a missing name in home offers %q, which grants %v", b.words(home), b.widen(sc).Write)
	}
	b, _ := refusedOutside(run("x: ../.: Permission denied"), sc, home)
	if got := b.words(home); got != "changing ~" {
		t.Errorf("home refused offers %q", got)
	}
	if w := b.widen(sc); !slices.Contains(w.Keep, filepath.Join(home, ".bashrc")) || !slices.Contains(w.Keep, own) {
		t.Errorf("home offered drops what it keeps: %v", w.Keep)
	}
}

package agent

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
)

// recordingExecutor runs through the real runner and keeps the scope of
// each run it was asked for.
type recordingExecutor struct {
	r      *shell.Runner
	mu     sync.Mutex
	scopes []*scope.Scope
}

func (e *recordingExecutor) Run(ctx context.Context, req shell.Request) shell.Result {
	e.mu.Lock()
	e.scopes = append(e.scopes, req.Scope)
	e.mu.Unlock()
	return e.r.Run(ctx, req)
}

// snapshot is every entry under root: its kind and what it holds.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			out[rel] = "link " + strings.ReplaceAll(to, root, "~")
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %o", fi.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %o %x", fi.Mode().Perm(), sha256.Sum256(b))
		}
		return nil
	})
	return out
}

// changed are the entries that differ between two snapshots.
func changed(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// allowedBy says whether a change at rel (under home) is one sc lets a run
// make: inside a writable place and no kept one, or the removal of an
// empty folder directly inside a Remove place.
func allowedBy(sc *scope.Scope, home, rel string, removedDir bool) bool {
	p := filepath.Join(home, rel)
	for _, k := range sc.Keep {
		if scope.Under(p, filepath.Clean(k)) {
			return false
		}
	}
	for _, w := range sc.Write {
		if scope.Under(p, w) {
			return true
		}
	}
	return removedDir && slices.Contains(sc.Remove, filepath.Dir(p))
}

// TestScopesHoldOverGeneratedCommands is the differential test of scopes:
// generated approved commands over a generated home, each run twice on
// identical copies, held to its scope and without limits. Checked from
// outside: every change the held run made lies in its scope; where the
// held run succeeded, it made exactly the changes the free run made.
func TestScopesHoldOverGeneratedCommands(t *testing.T) {
	if ok, why := shell.SandboxStatus(); !ok {
		t.Skip("no sandbox on this machine: " + why)
	}
	rng := rand.New(rand.NewPCG(37, 11))
	places := []string{"proj/a.txt", "proj/sub", "proj/sub/b.txt", "proj/new", "proj/new.txt", "Documents/d.txt", "Documents",
		"notes.txt", "new-in-home.txt", ".bashrc", ".ssh/authorized_keys", ".config/hark/rules.json", "Downloads/old", "Downloads/old/x.o", "Downloads"}
	ops := []func(a, b string) string{
		func(a, _ string) string { return "rm -f ~/" + a },
		func(a, _ string) string { return "rm -rf ~/" + a },
		func(a, b string) string { return "mv ~/" + a + " ~/" + b },
		func(a, b string) string { return "cp -r ~/" + a + " ~/" + b },
		func(a, _ string) string { return "mkdir -p ~/" + a },
		func(a, _ string) string { return "touch ~/" + a },
		func(a, _ string) string { return "echo gen > ~/" + a },
		func(a, _ string) string { return "echo gen >> ~/" + a },
		func(a, b string) string { return "ln -s ~/" + a + " ~/" + b },
		func(a, _ string) string { return "chmod 600 ~/" + a },
		func(a, _ string) string { return "sed -i s/o/0/ ~/" + a },
		func(_, _ string) string { return "sh -c 'echo built > out.txt; echo x >> ~/.bashrc'" },
	}
	lay := func(home string) {
		for p, body := range map[string]string{"proj/a.txt": "one\n", "proj/sub/b.txt": "two\n", "Documents/d.txt": "doc\n",
			"notes.txt": "notes\n", ".bashrc": "# rc\n", ".ssh/authorized_keys": "key\n", ".config/hark/rules.json": "{}\n", "Downloads/old/x.o": "o"} {
			p = filepath.Join(home, p)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
	}
	const n = 60
	held, checked := 0, 0
	var mu sync.Mutex
	var wider []string // held runs that failed where the free run succeeded: a second question
	for i := range n {
		pick := func() string { return places[rng.IntN(len(places))] }
		cmd := ops[rng.IntN(len(ops))](pick(), pick())
		if rng.IntN(3) == 0 {
			cmd += " && " + ops[rng.IntN(len(ops))](pick(), pick())
		}
		dir := "proj"
		if rng.IntN(2) == 0 {
			dir = ""
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			run := func(free bool) (string, map[string]string, map[string]string, shell.Result, *scope.Scope) {
				home := t.TempDir()
				lay(home)
				env := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "LANG=C"}
				runner := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/sh", Environ: env})
				ex := &recordingExecutor{r: runner}
				mode := shell.SandboxAuto
				if free {
					mode = shell.SandboxOff
				}
				a, err := New(Options{Client: &scriptedClient{}, Model: "qwen3:4b", Host: "http://127.0.0.1:11434", Classifier: shell.NewPolicy(),
					Executor: ex, Home: home, SystemPrompt: "diff", Sandbox: mode, now: time.Now,
					Previewer: preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second})})
				if err != nil {
					t.Fatal(err)
				}
				before := snapshot(t, home)
				args, _ := json.Marshal(map[string]string{"command": cmd, "workingDirectory": filepath.Join(home, dir), "purpose": "executing"})
				confirm := ConfirmerFunc(func(_ context.Context, p Pending) (Decision, error) {
					// The first card only: going further is not this test's.
					return Decision{Approved: p.Further == "", By: ByMenu}, nil
				})
				res, err := a.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: confirm})
				if err != nil {
					t.Fatal(err)
				}
				var sc *scope.Scope
				if len(ex.scopes) > 0 {
					sc = ex.scopes[0]
				}
				return home, before, snapshot(t, home), res, sc
			}
			home, before, after, res, sc := run(false)
			if !res.Executed || res.Tier != shell.Confirm {
				return // refused, trashed or read-only: no approved run to check
			}
			if sc == nil {
				t.Fatalf("%s: an approved run without a scope: %s", cmd, res.JSON())
			}
			for _, rel := range changed(before, after) {
				_, was := before[rel]
				_, is := after[rel]
				removedDir := was && !is && strings.HasPrefix(before[rel], "dir")
				if !allowedBy(sc, home, rel, removedDir) {
					t.Errorf("%s: changed ~/%s, outside its scope %+v", cmd, rel, sc)
				}
			}
			held++
			_, fbefore, fafter, fres, _ := run(true)
			if !res.Success {
				if fres.Success {
					mu.Lock()
					wider = append(wider, cmd)
					mu.Unlock()
				}
				return
			}
			if strings.Join(changed(before, after), " ") != strings.Join(changed(fbefore, fafter), " ") {
				t.Errorf("%s: held, it changed %q; free, %q (%s)", cmd, changed(before, after), changed(fbefore, fafter), fres.JSON())
			}
			checked++
		})
	}
	t.Logf("%d generated commands: %d ran held to their scope, %d of them succeeded and matched the run without limits; %d needed more than their scope: %q",
		n, held, checked, len(wider), wider)
	if held < n/3 {
		t.Errorf("only %d of %d generated commands were approved runs: the generator no longer exercises scopes", held, n)
	}
}

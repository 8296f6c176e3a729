package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
)

// fakeShell writes an executable script standing in for the user's login
// shell; body runs with the -ilc script as "$2".
func fakeShell(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shell")
	exectest.WriteScript(t, path, "#!/bin/sh\n"+body+"\n")
	return path
}

func TestLoginShellPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		body    string
		want    string
		wantErr string
		timeout time.Duration
	}{
		{"plain", `PATH=/opt/homebrew/bin:/usr/bin; eval "$2"`, "/opt/homebrew/bin:/usr/bin", "", 0},
		{"greeting around the output", `echo "Welcome back"; PATH=/a:/b; eval "$2"; echo bye`, "/a:/b", "", 0},
		{"shell prints nothing", `exit 0`, "", "no PATH in its output", 0},
		{"shell fails", `echo oops >&2; exit 3`, "", "could not read PATH", 0},
		{"shell hangs", `exec sleep 10`, "", "took longer than", 300 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			timeout := c.timeout
			if timeout == 0 {
				timeout = waitTimeout
			}
			got, err := LoginShellPath(context.Background(), fakeShell(t, c.body), timeout)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
	if _, err := LoginShellPath(context.Background(), "zsh", time.Second); err == nil {
		t.Error("a relative SHELL was accepted")
	}
}

func TestMergePath(t *testing.T) {
	t.Parallel()
	cases := []struct{ login, current, want string }{
		{"/opt/homebrew/bin:/usr/bin", "/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin"},
		{"/a::/a", "", "/a"},
		{"", "/usr/bin", "/usr/bin"},
	}
	for _, c := range cases {
		if got := MergePath(c.login, c.current); got != c.want {
			t.Errorf("MergePath(%q, %q) = %q, want %q", c.login, c.current, got, c.want)
		}
	}
}

func TestLoginShellPathOnlyOnMac(t *testing.T) {
	t.Parallel()
	before := os.Getenv("PATH")
	p := StartLoginShellPath(context.Background(), "linux")
	if !p.Wait(context.Background()) || p.Err() != nil || os.Getenv("PATH") != before {
		t.Errorf("on Linux: resolved %v, err %v, PATH changed %v", p.Wait(context.Background()), p.Err(), os.Getenv("PATH") != before)
	}
}

// envRecorder stands in for os.Setenv, so parallel tests never change the
// process's PATH.
type envRecorder struct {
	mu   sync.Mutex
	path string
}

func (e *envRecorder) set(k, v string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if k == "PATH" {
		e.path = v
	}
	return nil
}

func (e *envRecorder) get() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.path
}

// The login shell is slow: starting the lookup must not wait for it (the
// menu-bar icon comes first), and a command started meanwhile waits for
// the PATH, then runs with it. The fake shell blocks until the test
// releases it, so the order is certain without timing.
func TestSlowLoginShellDoesNotBlockStartupAndCommandsWait(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "go")
	sh := fakeShell(t, `while [ ! -e '`+gate+`' ]; do sleep 0.02; done; PATH=/opt/homebrew/bin:/usr/bin; eval "$2"`)
	env := &envRecorder{}
	p := startLoginPath(context.Background(), sh, time.Minute, env.set)
	select {
	case <-p.Done():
		t.Fatal("the lookup finished before the shell was released: it is not in the background")
	default:
	}

	var built []string
	g := &PathGatedExecutor{Path: p, New: func() agent.Executor {
		built = append(built, env.get())
		return fakeExecutor{path: env.get()}
	}}
	res := make(chan shell.Result, 1)
	go func() { res <- g.Run(context.Background(), shell.Request{Command: "brew list"}) }()
	select {
	case r := <-res:
		t.Fatalf("a command ran before the PATH was known: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	exectest.WriteScript(t, gate, "")
	select {
	case r := <-res:
		if !strings.HasPrefix(r.Output, "/opt/homebrew/bin:/usr/bin") {
			t.Errorf("the command ran with PATH %q, want the login shell's first", r.Output)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the command still waits after the PATH arrived")
	}
	if p.Err() != nil {
		t.Errorf("Err() = %v", p.Err())
	}
	g.Run(context.Background(), shell.Request{Command: "ls"})
	if len(built) != 1 {
		t.Errorf("executor built %d times (%q), want once", len(built), built)
	}
}

// A shell that never answers: commands wait only up to the bound, run with
// the PATH there is, and the executor is rebuilt when a PATH arrives late
// (here it never does, so the failure is reported).
func TestLoginShellBoundReleasesWaitingCommands(t *testing.T) {
	t.Parallel()
	env := &envRecorder{}
	p := startLoginPath(context.Background(), fakeShell(t, `exec sleep 30`), 200*time.Millisecond, env.set)
	n := 0
	g := &PathGatedExecutor{Path: p, New: func() agent.Executor { n++; return fakeExecutor{} }}
	done := make(chan struct{})
	go func() { g.Run(context.Background(), shell.Request{Command: "ls"}); close(done) }()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		t.Fatal("a command waited past the bound for a shell that never answers")
	}
	select {
	case <-p.Done():
	case <-time.After(waitTimeout):
		t.Fatal("the lookup did not give up")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "took longer than") {
		t.Errorf("Err() = %v, want the timeout", err)
	}
	if env.get() != "" {
		t.Errorf("PATH set to %q after a failure", env.get())
	}
	g.Run(context.Background(), shell.Request{Command: "ls"})
	if n != 2 {
		t.Errorf("executor built %d times, want 2 (before the bound, then once resolved)", n)
	}
}

// fakeExecutor answers every command with the PATH it was built with.
type fakeExecutor struct{ path string }

func (f fakeExecutor) Run(_ context.Context, req shell.Request) shell.Result {
	return shell.Result{Command: req.Command, Output: f.path}
}

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

// Markers around the PATH a login shell prints, so greetings and other
// output from the user's shell startup files are ignored.
const (
	pathStart = "__HARK_PATH_START__"
	pathEnd   = "__HARK_PATH_END__"
)

// LoginShellPath asks the user's login shell for its PATH by running
// `shell -ilc 'printf …"$PATH"…'`. GUI apps on macOS start with a minimal
// PATH (/usr/bin:/bin:/usr/sbin:/sbin), which would hide Homebrew and
// everything else the user runs in Terminal. timeout bounds a shell whose
// startup files hang or wait for input.
func LoginShellPath(ctx context.Context, shell string, timeout time.Duration) (string, error) {
	if shell == "" {
		shell = "/bin/zsh"
	}
	if !filepath.IsAbs(shell) {
		return "", fmt.Errorf("SHELL=%q is not an absolute path", shell)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	script := fmt.Sprintf(`printf '%s%%s%s' "$PATH"`, pathStart, pathEnd)
	cmd := exec.CommandContext(ctx, shell, "-ilc", script)
	cmd.Stdin = nil // an interactive shell must not wait on our stdin
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s took longer than %s to start; commands run with the default PATH", shell, timeout)
	}
	path, ok := betweenMarkers(out)
	if !ok {
		if err != nil {
			return "", fmt.Errorf("could not read PATH from %s: %v", shell, err)
		}
		return "", fmt.Errorf("could not read PATH from %s: no PATH in its output", shell)
	}
	if path == "" {
		return "", errors.New("the login shell reported an empty PATH")
	}
	return path, nil
}

func betweenMarkers(out []byte) (string, bool) {
	i := bytes.LastIndex(out, []byte(pathStart))
	if i < 0 {
		return "", false
	}
	rest := out[i+len(pathStart):]
	j := bytes.Index(rest, []byte(pathEnd))
	if j < 0 {
		return "", false
	}
	return string(rest[:j]), true
}

// MergePath puts the login shell's entries first and keeps any entry of the
// current PATH it lacks, without duplicates.
func MergePath(login, current string) string {
	seen := map[string]bool{}
	var out []string
	for _, list := range []string{login, current} {
		for _, p := range filepath.SplitList(list) {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// LoginShellBound is how long startup lets the login shell take to report
// its PATH, and how long a command started before then waits for it.
const LoginShellBound = 3 * time.Second

// LoginPath is the login shell's PATH being resolved in the background, so
// a slow shell startup (nvm, conda, a heavy prompt) never delays the
// menu-bar icon. When it arrives it is merged into this process's PATH.
type LoginPath struct {
	done     chan struct{}
	deadline time.Time
	err      error // set before done is closed
}

// StartLoginShellPath starts resolving the login shell's PATH on macOS and
// returns at once. GUI apps there start with a minimal PATH; elsewhere the
// desktop session already passes the user's PATH and the result is
// resolved from the start.
func StartLoginShellPath(ctx context.Context, goos string) *LoginPath {
	if goos != "darwin" {
		return resolvedLoginPath(nil)
	}
	return startLoginPath(ctx, os.Getenv("SHELL"), LoginShellBound, os.Setenv)
}

func resolvedLoginPath(err error) *LoginPath {
	p := &LoginPath{done: make(chan struct{}), err: err}
	close(p.done)
	return p
}

func startLoginPath(ctx context.Context, shell string, bound time.Duration, setenv func(k, v string) error) *LoginPath {
	p := &LoginPath{done: make(chan struct{}), deadline: time.Now().Add(bound)}
	go func() {
		defer close(p.done)
		login, err := LoginShellPath(ctx, shell, bound)
		if err == nil {
			err = setenv("PATH", MergePath(login, os.Getenv("PATH")))
		}
		p.err = err
	}()
	return p
}

// Done is closed once the PATH is adopted or the attempt failed.
func (p *LoginPath) Done() <-chan struct{} { return p.done }

// Err is why the PATH could not be read (nil before Done, or on success).
// It is for the log and status line; the app works on with the PATH it has.
func (p *LoginPath) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Wait blocks until the PATH is resolved, the startup bound has passed, or
// ctx ends, whichever is first. It reports whether the PATH is resolved.
func (p *LoginPath) Wait(ctx context.Context) bool {
	select {
	case <-p.done:
		return true
	default:
	}
	t := time.NewTimer(time.Until(p.deadline))
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// PathGatedExecutor holds each command until the login shell's PATH is
// known (or the startup bound passes), so a command asked for in the first
// seconds finds Homebrew's tools like every later one. The real executor is
// built from the environment as it is then (*shell.Runner captures it), and
// built again once if the PATH arrives after the bound.
type PathGatedExecutor struct {
	Path *LoginPath
	New  func() agent.Executor

	mu       sync.Mutex
	ex       agent.Executor
	resolved bool // ex was built after Path was done
}

// Run waits for the PATH as Wait does, then runs req.
func (g *PathGatedExecutor) Run(ctx context.Context, req shell.Request) shell.Result {
	resolved := g.Path.Wait(ctx)
	g.mu.Lock()
	if g.ex == nil || (resolved && !g.resolved) {
		g.ex, g.resolved = g.New(), resolved
	}
	ex := g.ex
	g.mu.Unlock()
	return ex.Run(ctx, req)
}

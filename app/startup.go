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
	"time"
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

// AdoptLoginShellPath sets this process's PATH from the login shell on
// macOS, once at startup, so commands Hark runs find what the user's
// Terminal finds. Elsewhere the desktop session already passes the user's
// PATH and nothing is done. The error is for the log and status line; the
// app works on with the PATH it has.
func AdoptLoginShellPath(ctx context.Context, goos string) error {
	if goos != "darwin" {
		return nil
	}
	login, err := LoginShellPath(ctx, os.Getenv("SHELL"), 3*time.Second)
	if err != nil {
		return err
	}
	return os.Setenv("PATH", MergePath(login, os.Getenv("PATH")))
}

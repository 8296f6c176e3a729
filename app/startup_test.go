package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeShell writes an executable script standing in for the user's login
// shell; body runs with the -ilc script as "$2".
func fakeShell(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shell")
	writeScript(t, path, "#!/bin/sh\n"+body+"\n")
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

func TestAdoptLoginShellPathOnlyOnMac(t *testing.T) {
	t.Parallel()
	before := os.Getenv("PATH")
	if err := AdoptLoginShellPath(context.Background(), "linux"); err != nil || os.Getenv("PATH") != before {
		t.Errorf("on Linux PATH changed or err %v", err)
	}
}

// writeScript creates an executable script without this process ever holding
// a writable descriptor to it: a child process forked meanwhile by another
// test would inherit such a descriptor, and exec would then fail with "text
// file busy" until that child itself execs.
func writeScript(t testing.TB, path, content string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat > "$1" && chmod 700 "$1"`, "sh", path)
	cmd.Stdin = strings.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v\n%s", path, err, out)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
)

// sendEnv points Hark at a short temporary home (unix socket paths are
// limited to about 100 bytes).
func sendEnv(t *testing.T) settings.Paths {
	t.Helper()
	home, err := os.MkdirTemp("", "hks")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("HARK_HOME", home)
	t.Setenv("XDG_RUNTIME_DIR", "")
	paths, err := settings.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func runSendCLI(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, append([]string{"send"}, args...))
	return cliResult{code, out.String(), errb.String()}
}

func TestSendNotRunning(t *testing.T) {
	sendEnv(t)
	r := runSendCLI("hello")
	if r.code != exitError || !strings.Contains(r.stderr, "Hark is not running — start it with `hark`") {
		t.Errorf("got code %d, stderr %q; want exit 1 and the not-running message", r.code, r.stderr)
	}
}

func TestSendUsage(t *testing.T) {
	sendEnv(t)
	if r := runSendCLI(); r.code != exitUsage || !strings.Contains(r.stderr, "hark send --wait") {
		t.Errorf("no text: code %d, stderr %q", r.code, r.stderr)
	}
}

// TestSendToServer drives the subcommand against a control socket whose
// "app" answers from a table.
func TestSendToServer(t *testing.T) {
	paths := sendEnv(t)
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	got := make(chan app.SendRequest, 4)
	go func() {
		done <- srv.Serve(ctx, func(e app.Event) bool {
			r := e.(app.SendRequest)
			got <- r
			switch {
			case r.Text == "busy":
				r.Reply <- app.SendReply{Error: "Hark is busy with another request"}
			case r.Wait:
				r.Reply <- app.SendReply{OK: true, Answer: "Downloads holds 2.1 GB."}
			default:
				r.Reply <- app.SendReply{OK: true}
			}
			return true
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not stop")
		}
	})
	cases := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderr     string
		wantText   string
		wantWaited bool
	}{
		{"wait prints the answer", []string{"--wait", "how big", "is Downloads"}, exitOK, "Downloads holds 2.1 GB.\n", "", "how big is Downloads", true},
		{"no wait confirms delivery", []string{"tidy up"}, exitOK, "", "hark send: delivered", "tidy up", false},
		{"refusal exits 1 with the reason", []string{"busy"}, exitError, "", "busy with another request", "busy", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runSendCLI(c.args...)
			if r.code != c.code || r.stdout != c.stdout || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("got code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			var req app.SendRequest
			select {
			case req = <-got:
			case <-time.After(5 * time.Second):
				t.Fatal("the app received no request")
			}
			if req.Text != c.wantText || req.Wait != c.wantWaited {
				t.Errorf("app received %+v", req)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/desktop"
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

// TestSendPrompt is the path the tray's terminal window takes: one typed
// line is delivered; an empty one sends nothing; an error stays on screen
// until Enter.
func TestSendPrompt(t *testing.T) {
	paths := sendEnv(t)
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan app.SendRequest, 4)
	go srv.Serve(ctx, func(e app.Event) bool {
		r := e.(app.SendRequest)
		got <- r
		if r.Text == "busy" {
			r.Reply <- app.SendReply{Error: "Hark is busy with another request"}
		} else {
			r.Reply <- app.SendReply{OK: true}
		}
		return true
	})
	prompt := func(stdin string, terminal bool, args ...string) cliResult {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, isTerminal: terminal}
		code := dispatch(ctx, e, append([]string{"send", "--prompt"}, args...))
		return cliResult{code, out.String(), errb.String()}
	}

	r := prompt("  list my downloads \nignored\n", true)
	if r.code != exitOK || !strings.Contains(r.stderr, "What should Hark do?") || !strings.Contains(r.stderr, "delivered") || strings.Contains(r.stderr, "Press Enter") {
		t.Errorf("typed line: code %d stderr %q", r.code, r.stderr)
	}
	select {
	case req := <-got:
		if req.Text != "list my downloads" || req.Wait {
			t.Errorf("the app received %+v", req)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the app received nothing")
	}

	for _, in := range []string{"", "\n", "   \n"} {
		if r := prompt(in, true); r.code != exitOK || !strings.Contains(r.stderr, "nothing sent") {
			t.Errorf("input %q: code %d stderr %q", in, r.code, r.stderr)
		}
	}
	select {
	case req := <-got:
		t.Errorf("an empty line was delivered as %+v", req)
	default:
	}

	r = prompt("busy\n\n", true)
	if r.code != exitError || !strings.Contains(r.stderr, "busy with another request") || !strings.Contains(r.stderr, "Press Enter to close") {
		t.Errorf("refusal: code %d stderr %q", r.code, r.stderr)
	}
	<-got

	if r := prompt("", false, "extra text"); r.code != exitUsage {
		t.Errorf("--prompt with text: code %d, want usage", r.code)
	}
}

// TestSendDenyWhy is the terminal window of Deny and say why…: the typed
// line reaches the app as the denial of the approval it names, never as a
// request; an empty line denies nothing; a refusal stays on screen.
func TestSendDenyWhy(t *testing.T) {
	paths := sendEnv(t)
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan app.Event, 4)
	go srv.Serve(ctx, func(e app.Event) bool {
		got <- e
		switch r := e.(type) {
		case app.DenyRequest:
			if r.PendingID == "gone" {
				r.Reply <- app.SendReply{Error: "that approval is no longer waiting"}
			} else {
				r.Reply <- app.SendReply{OK: true}
			}
		case app.SendRequest:
			r.Reply <- app.SendReply{Error: "Hark is busy with another request"}
		}
		return true
	})
	run := func(stdin, id string) cliResult {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, isTerminal: true}
		code := dispatch(ctx, e, []string{"send", "--question", "Why not run “rm a_b”?", "--deny-why", id})
		return cliResult{code, out.String(), errb.String()}
	}
	r := run("  wrong folder \n", "p1")
	if r.code != exitOK || !strings.Contains(r.stderr, "Why not run “rm a_b”?") || !strings.Contains(r.stderr, "keeps it waiting") {
		t.Errorf("typed reason: code %d stderr %q", r.code, r.stderr)
	}
	select {
	case e := <-got:
		if d, ok := e.(app.DenyRequest); !ok || d.PendingID != "p1" || d.Reason != "wrong folder" {
			t.Errorf("the app received %#v, want the denial of p1", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the app received nothing")
	}
	if r := run("\n", "p1"); r.code != exitOK || !strings.Contains(r.stderr, "still waiting") {
		t.Errorf("empty line: code %d stderr %q", r.code, r.stderr)
	}
	select {
	case e := <-got:
		t.Errorf("an empty line was delivered as %#v", e)
	default:
	}
	if r := run("late\n\n", "gone"); r.code != exitError || !strings.Contains(r.stderr, "no longer waiting") || !strings.Contains(r.stderr, "Press Enter") {
		t.Errorf("refusal: code %d stderr %q", r.code, r.stderr)
	}
}

// TestChoosePrompter: a dialog tool when there is one, else on Linux the
// terminal, else a sentence saying what to install.
func TestChoosePrompter(t *testing.T) {
	t.Parallel()
	look := func(have ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, h := range have {
				if h == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	noEnv := func(string) string { return "" }
	exe := func() (string, error) { return "/opt/hark/hark", nil }

	p, yn, missing := choosePrompter("linux", noEnv, look("zenity", "xterm"), exe)
	if _, ok := p.(*desktop.ExecPrompter); !ok || yn == nil || missing != "" {
		t.Errorf("with zenity: %T, %v, %q", p, yn, missing)
	}
	p, yn, missing = choosePrompter("linux", noEnv, look("xterm"), exe)
	tp, ok := p.(*desktop.TerminalPrompter)
	if !ok || yn != nil || missing != "" || tp.Terminal.Name != "xterm" || strings.Join(tp.Command, " ") != "/opt/hark/hark send --prompt" ||
		strings.Join(tp.ReasonCommand, " ") != "/opt/hark/hark send" {
		t.Errorf("with xterm only: %#v, %v, %q", p, yn, missing)
	}
	p, _, missing = choosePrompter("linux", noEnv, look(), exe)
	if p != nil || !strings.Contains(missing, "install xterm") || !strings.Contains(missing, "$TERMINAL") {
		t.Errorf("with nothing: %v, %q", p, missing)
	}
}

package control

import (
	"context"
	"errors"
	"github.com/hark-sh/hark/agent"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
)

// shortDir is a temporary folder with a path short enough for a unix
// socket (t.TempDir names can exceed the 104-byte limit of sun_path).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run")
}

// serve runs a control server that hands requests to post.
func serve(t *testing.T, dir string, post func(app.Event) bool) *Server {
	t.Helper()
	return serveAs(t, dir, post, os.Getuid())
}

// serveAs runs a control server that admits only uid.
func serveAs(t *testing.T, dir string, post func(app.Event) bool, uid int) *Server {
	t.Helper()
	s, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.uid = uid
	s.log = slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, post) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Error("Serve did not return after its context ended")
		}
	})
	return s
}

// fileAgent answers every request the same way and records it.
type fileAgent struct{ calls chan string }

func (f fileAgent) RunWith(ctx context.Context, conv *agent.Conversation, request string, o agent.RequestOptions) (agent.Outcome, error) {
	f.calls <- request
	return agent.Outcome{Answer: "You have 3 files."}, nil
}

func TestControlRoundTripWithApp(t *testing.T) {
	t.Parallel()
	ag := fileAgent{calls: make(chan string, 4)}
	home := t.TempDir()
	core := app.New(app.Options{Settings: settings.Defaults(), Agent: ag,
		Paths:  settings.Paths{Settings: filepath.Join(home, "settings.json"), Runtime: filepath.Join(home, "run")},
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	go core.Run(ctx)
	t.Cleanup(func() { cancel(); <-core.Done() })
	dir := shortDir(t)
	serve(t, dir, core.Post)

	cases := []struct {
		name string
		text string
		wait bool
		want app.SendReply
	}{
		{"wait prints the answer", "how many files", true, app.SendReply{OK: true, Answer: "You have 3 files."}},
		{"empty text is refused", "", false, app.SendReply{Error: "nothing to send"}},
		{"no wait returns once accepted", "how many files", false, app.SendReply{OK: true}},
	}
	for _, c := range cases {
		got, err := Send(ctx, dir, c.text, c.wait)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.OK != c.want.OK || got.Answer != c.want.Answer || !strings.Contains(got.Error, c.want.Error) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		if c.want.OK {
			select {
			case r := <-ag.calls:
				if r != c.text {
					t.Errorf("%s: agent got %q", c.name, r)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: the agent got no request", c.name)
			}
		}
	}
}

func TestControlSocketIsPrivate(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	s := serve(t, dir, func(app.Event) bool { return false })
	for path, want := range map[string]os.FileMode{s.Path(): 0o600, dir: 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", path, got, want)
		}
	}
}

func TestControlPeerCheck(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	posted := make(chan app.Event, 1)
	s := serve(t, dir, func(e app.Event) bool { posted <- e; return true })

	// The kernel reports our own uid for our own connection.
	c, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	uid, err := peerUID(c.(*net.UnixConn))
	c.Close()
	if err != nil || uid != os.Getuid() {
		t.Fatalf("peerUID = %d, %v; want %d", uid, err, os.Getuid())
	}

	// A server that expects another user refuses us before reading.
	other := shortDir(t)
	serveAs(t, other, func(e app.Event) bool { posted <- e; return true }, os.Getuid()+1)
	r, err := Send(context.Background(), other, "rm -rf /", true)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || !strings.Contains(r.Error, "permission denied") {
		t.Errorf("reply %+v, want permission denied", r)
	}
	if len(posted) != 0 {
		t.Error("a request from another user reached the app")
	}
}

func TestSendWhenNotRunning(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"no folder", func(t *testing.T, dir string) {}},
		{"stale socket from a crash", func(t *testing.T, dir string) { staleSocket(t, dir) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := shortDir(t)
			c.setup(t, dir)
			_, err := Send(context.Background(), dir, "hello", false)
			if !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Send = %v, want ErrNotRunning", err)
			}
			if !strings.Contains(err.Error(), "start it with `hark`") {
				t.Errorf("error %q does not say how to start Hark", err)
			}
		})
	}
}

// staleSocket leaves a socket file with nobody listening, as a crash does.
func staleSocket(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: SocketPath(dir), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(SocketPath(dir)); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
}

func TestListenControlHandlesLeftovers(t *testing.T) {
	t.Parallel()
	t.Run("stale socket is replaced", func(t *testing.T) {
		t.Parallel()
		dir := shortDir(t)
		staleSocket(t, dir)
		posted := make(chan app.Event, 1)
		serve(t, dir, func(e app.Event) bool {
			posted <- e
			e.(app.SendRequest).Reply <- app.SendReply{OK: true}
			return true
		})
		if r, err := Send(context.Background(), dir, "hi", false); err != nil || !r.OK {
			t.Fatalf("Send after replacing a stale socket: %+v, %v", r, err)
		}
		if e := recv(t, "request", posted); e.(app.SendRequest).Text != "hi" {
			t.Errorf("posted %+v", e)
		}
	})
	t.Run("a live socket means already running", func(t *testing.T) {
		t.Parallel()
		dir := shortDir(t)
		serve(t, dir, func(app.Event) bool { return false })
		if _, err := Listen(dir); !errors.Is(err, ErrAlreadyRunning) {
			t.Errorf("second Listen = %v, want ErrAlreadyRunning", err)
		}
	})
	t.Run("a regular file is left alone", func(t *testing.T) {
		t.Parallel()
		dir := shortDir(t)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(SocketPath(dir), []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Listen(dir); err == nil || !strings.Contains(err.Error(), "not a socket") {
			t.Errorf("Listen over a file = %v, want a not-a-socket error", err)
		}
		if b, _ := os.ReadFile(SocketPath(dir)); string(b) != "mine" {
			t.Error("the file was removed")
		}
	})
	t.Run("closing removes the socket", func(t *testing.T) {
		t.Parallel()
		dir := shortDir(t)
		s, err := Listen(dir)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
			t.Errorf("socket still there after Close: %v", err)
		}
	})
}

func TestControlBadRequests(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	s := serve(t, dir, func(e app.Event) bool { e.(app.SendRequest).Reply <- app.SendReply{OK: true}; return true })
	cases := []struct {
		name, body, want string
	}{
		{"not JSON", "hello\n", "could not read the request"},
		{"too large", `{"text":"` + strings.Repeat("a", requestLimit+10) + `"}`, "larger than"},
	}
	for _, c := range cases {
		conn, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		go conn.Write([]byte(c.body))
		buf := make([]byte, 4096)
		conn.SetReadDeadline(time.Now().Add(waitTimeout))
		n, _ := conn.Read(buf)
		conn.Close()
		if !strings.Contains(string(buf[:n]), c.want) {
			t.Errorf("%s: reply %q, want it to contain %q", c.name, buf[:n], c.want)
		}
	}
}

func TestSingleInstanceLock(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	release, err := AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireInstanceLock(dir); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second lock = %v, want ErrAlreadyRunning", err)
	}
	if !strings.Contains(ErrAlreadyRunning.Error(), "already running") {
		t.Errorf("message %q", ErrAlreadyRunning)
	}
	release()
	again, err := AcquireInstanceLock(dir)
	if err != nil {
		t.Fatalf("lock after release = %v, want success", err)
	}
	again()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime folder mode %v (err %v), want 0700", fi.Mode().Perm(), err)
	}
}

const waitTimeout = 5 * time.Second

func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func TestAlreadyRunningNamesTheDesktopsPlace(t *testing.T) {
	t.Parallel()
	for goos, want := range map[string]string{"darwin": "menu bar", "linux": "system tray"} {
		if got := alreadyRunning(goos); !strings.Contains(got, want) {
			t.Errorf("%s: %q does not say %q", goos, got, want)
		}
	}
}

// A second launch announces itself: the running app's callback runs, no
// request reaches the core, and with nothing listening the caller learns
// it (ErrNotRunning) rather than waiting.
func TestAnnounceReachesTheRunningApp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	if err := Announce(ctx, shortDir(t)); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Announce with no app = %v, want ErrNotRunning", err)
	}

	dir := shortDir(t)
	posted := make(chan app.Event, 1)
	s := serve(t, dir, func(ev app.Event) bool { posted <- ev; return true })
	if err := Announce(ctx, dir); err != nil {
		t.Fatalf("Announce before a callback is set = %v, want nil", err)
	}
	launches := make(chan struct{}, 2)
	s.OnAnotherLaunch(func() { launches <- struct{}{} })
	if err := Announce(ctx, dir); err != nil {
		t.Fatalf("Announce = %v", err)
	}
	recv(t, "the another-launch callback", launches)
	select {
	case ev := <-posted:
		t.Errorf("an announcement reached the core as %T; it must not run as a request", ev)
	default:
	}
}

// PressHotkey reaches the running app as a ListenRequest and carries its
// answer back; with nobody listening it is ErrNotRunning and starts
// nothing.
func TestPressHotkey(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	if _, err := PressHotkey(context.Background(), dir, app.ListenTap); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("PressHotkey with no app = %v, want ErrNotRunning", err)
	}
	got := make(chan app.ListenAction, 4)
	serve(t, dir, func(e app.Event) bool {
		r, ok := e.(app.ListenRequest)
		if !ok {
			t.Errorf("posted %T, want a ListenRequest", e)
			return false
		}
		got <- r.Action
		if r.Action == app.ListenStop {
			r.Reply <- app.SendReply{Error: "Hark is not listening"}
		} else {
			r.Reply <- app.SendReply{OK: true}
		}
		return true
	})
	for _, a := range []app.ListenAction{app.ListenTap, app.ListenStart, app.ListenCancel, app.ListenStop} {
		r, err := PressHotkey(context.Background(), dir, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if want := a != app.ListenStop; r.OK != want || (!want && r.Error != "Hark is not listening") {
			t.Errorf("%s: reply %+v", a, r)
		}
		if posted := <-got; posted != a {
			t.Errorf("posted %q, want %q", posted, a)
		}
	}
}

// Quit reaches the running app's OnQuit, never the core, and returns only
// once the socket stops answering; without an OnQuit the app refuses, and
// with no app it is ErrNotRunning.
func TestQuitStopsTheRunningApp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := Quit(ctx, shortDir(t)); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Quit with no app = %v, want ErrNotRunning", err)
	}

	dir := shortDir(t)
	posted := make(chan app.Event, 1)
	s := serve(t, dir, func(ev app.Event) bool { posted <- ev; return true })
	if err := Quit(ctx, dir); err == nil || !strings.Contains(err.Error(), "Quit in its menu") {
		t.Fatalf("Quit without OnQuit = %v, want a refusal", err)
	}
	// The app's shutdown closes the socket a moment after the reply, as
	// cancelling its context does; Quit must wait for that.
	quitting := make(chan struct{})
	s.OnQuit(func() {
		close(quitting)
		go s.Close()
	})
	if err := Quit(ctx, dir); err != nil {
		t.Fatalf("Quit = %v", err)
	}
	recv(t, "the quit callback", quitting)
	if c, err := net.Dial("unix", SocketPath(dir)); err == nil {
		c.Close()
		t.Error("Quit returned while the socket still answered")
	}
	select {
	case ev := <-posted:
		t.Errorf("a quit reached the core as %T", ev)
	default:
	}
}

// TestDenyReachesTheAppAsADenial: a reason typed in the terminal window
// reaches the core as a DenyRequest naming the approval, never as a
// request to run, and the core's answer comes back.
func TestDenyReachesTheAppAsADenial(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	dir := shortDir(t)
	posted := make(chan app.Event, 1)
	serve(t, dir, func(ev app.Event) bool {
		posted <- ev
		if d, ok := ev.(app.DenyRequest); ok {
			d.Reply <- app.SendReply{OK: true}
		}
		return true
	})
	r, err := Deny(ctx, dir, "p7", "use the other folder")
	if err != nil || !r.OK {
		t.Fatalf("Deny = %+v, %v", r, err)
	}
	ev := recv(t, "posted", posted)
	d, ok := ev.(app.DenyRequest)
	if !ok || d.PendingID != "p7" || d.Reason != "use the other folder" {
		t.Fatalf("the core got %#v, want a DenyRequest for p7", ev)
	}
}

// TestApproveAndDenyOldestReachTheApp: hark approve and hark deny reach
// the core as AnswerRequests (never as a request to run, never naming an
// approval), and the core's words come back; with no app they are
// ErrNotRunning.
func TestApproveAndDenyOldestReachTheApp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	dir := shortDir(t)
	if _, err := Approve(ctx, dir, false); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Approve with no app = %v, want ErrNotRunning", err)
	}
	posted := make(chan app.AnswerRequest, 1)
	serve(t, dir, func(ev app.Event) bool {
		a, ok := ev.(app.AnswerRequest)
		if !ok {
			t.Errorf("posted %T, want an AnswerRequest", ev)
			return false
		}
		posted <- a
		if a.Approve {
			a.Reply <- app.SendReply{Error: "no approval is waiting"}
		} else {
			a.Reply <- app.SendReply{OK: true, Answer: "Denied “rm x”"}
		}
		return true
	})
	r, err := Approve(ctx, dir, true)
	if err != nil || r.OK || r.Error != "no approval is waiting" {
		t.Fatalf("Approve = %+v, %v", r, err)
	}
	if a := recv(t, "approve", posted); !a.Approve || !a.Delete {
		t.Errorf("the core got %+v, want approve with delete", a)
	}
	r, err = DenyOldest(ctx, dir, "keep it")
	if err != nil || !r.OK || r.Answer != "Denied “rm x”" {
		t.Fatalf("DenyOldest = %+v, %v", r, err)
	}
	if a := recv(t, "deny", posted); a.Approve || a.Reason != "keep it" {
		t.Errorf("the core got %+v, want a denial with its reason", a)
	}
}

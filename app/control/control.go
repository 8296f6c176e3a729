// Package control is how other processes reach the running app: the
// control socket that lets `hark send` hand text to it as if it had been
// spoken, the single-instance lock, and the peer-credential check. The
// socket is a unix socket in the user's private runtime folder (0700),
// itself mode 0600, and the server also checks the peer's user id, so only
// the same user can drive the app even if the folder is shared by mistake.
// Each connection carries one JSON request and one JSON response. A second
// launch of the app uses the same socket to tell the first that it was
// started again (see Announce), because an app started by macOS
// LaunchServices has no visible stderr to say it.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hark-sh/hark/app"
)

// ErrNotRunning is what `hark send` reports when no app is listening.
var ErrNotRunning = errors.New("Hark is not running — start it with `hark`")

// ErrAlreadyRunning is what a second `hark` app reports.
var ErrAlreadyRunning = errors.New(alreadyRunning(runtime.GOOS))

// alreadyRunning says where to find the running Hark, in the words of the
// desktop it runs on.
func alreadyRunning(goos string) string {
	where := "the system tray (the panel's status area)"
	if goos == "darwin" {
		where = "the menu bar"
	}
	return "Hark is already running — look for its icon in " + where + ", or quit it there first"
}

// SocketPath is the control socket in runtimeDir (settings.Paths.Runtime).
func SocketPath(runtimeDir string) string { return filepath.Join(runtimeDir, "hark.sock") }

// controlRequest is the JSON a client sends.
type controlRequest struct {
	Text string `json:"text"`
	Wait bool   `json:"wait"`
	// Launch marks the request of a second app launch (Announce): no text
	// to run, the running app only shows that it is there.
	Launch bool `json:"launch,omitempty"`
	// Listen is `hark listen`'s action (app.ListenAction): the hotkey,
	// pressed from outside.
	Listen string `json:"listen,omitempty"`
	// Quit asks the running app to shut down as its menu's Quit does:
	// `hark quit`, which `make run` uses so that a rebuilt Hark.app starts
	// instead of the old one being brought to the front.
	Quit bool `json:"quit,omitempty"`
	// Deny names an open approval to deny with Reason (Deny and say why…
	// typed in a terminal); Text is then empty.
	Deny   string `json:"deny,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Answer is `hark approve` ("approve", with Delete for --delete) or
	// `hark deny` ("deny", with Reason): an answer to the oldest waiting
	// approval (app.AnswerRequest).
	Answer string `json:"answer,omitempty"`
	Delete bool   `json:"delete,omitempty"`
	// Approval is a command another program wants to run (`hark mcp`),
	// for the app to put to the user. The connection stays open until
	// the answer; closing it withdraws the approval.
	Approval *app.Pending `json:"approval,omitempty"`
}

// requestLimit bounds a request so a stuck or hostile client cannot make
// the app buffer without end.
const requestLimit = 64 << 10

// readTimeout bounds how long a client may take to send its request.
const readTimeout = 5 * time.Second

// Server is the listening control socket.
type Server struct {
	ln   *net.UnixListener
	path string
	uid  int // the only user allowed to connect
	log  *slog.Logger

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	onLaunch func()
	onQuit   func()
	wg       sync.WaitGroup
	// approvals counts the approvals asked over the socket still waiting.
	approvals int
}

// OnQuit sets how the app shuts down when `hark quit` asks. fn runs on the
// connection's goroutine after the reply is sent, and must not block for
// long: it should start the shutdown (cancel the app's context), not wait
// for it.
func (s *Server) OnQuit(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onQuit = fn
}

// OnAnotherLaunch sets what the app does when a second launch announces
// itself (a notification saying Hark already runs, a log line). fn runs on
// the connection's goroutine and must not block for long.
func (s *Server) OnAnotherLaunch(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onLaunch = fn
}

// Listen creates the runtime folder (0700) and listens on the
// control socket (0600). A socket left behind by a crashed app is removed;
// one that still answers means another app is running (ErrAlreadyRunning).
func Listen(runtimeDir string) (*Server, error) {
	if err := ensurePrivateDir(runtimeDir); err != nil {
		return nil, err
	}
	path := SocketPath(runtimeDir)
	// sun_path holds 104 bytes on macOS and 108 on Linux, terminator
	// included.
	if len(path) >= 104 {
		return nil, fmt.Errorf("the control socket path %s is too long for a unix socket (%d bytes, at most 103); set HARK_HOME or XDG_RUNTIME_DIR to a shorter folder", path, len(path))
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("could not listen on %s: %w", path, err)
	}
	// The folder is already private; this closes the window for anyone
	// who can see into it anyway.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("could not restrict %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(true)
	return &Server{ln: ln, path: path, uid: os.Getuid(), log: slog.Default(), conns: map[net.Conn]struct{}{}}, nil
}

// Path is the socket file.
func (s *Server) Path() string { return s.path }

// removeStaleSocket deletes a socket file nobody listens on.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; move it away and start Hark again", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return ErrAlreadyRunning
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s exists but cannot be checked (%v); if Hark is not running, delete it", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("could not remove the stale socket %s: %w", path, err)
	}
	return nil
}

// ensurePrivateDir creates dir with mode 0700, or tightens an existing one
// that belongs to us.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("could not create %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%s must be private to you (mode 0700): %w", dir, err)
		}
	}
	return nil
}

// Serve answers connections until ctx ends or Close is called, handing each
// request to post (App.Post) as a app.SendRequest.
func (s *Server) Serve(ctx context.Context, post func(app.Event) bool) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				s.wg.Wait()
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.wg.Wait()
			return err
		}
		s.track(c, true)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.track(c, false)
			defer c.Close()
			s.handle(ctx, c, post)
		}()
	}
}

func (s *Server) track(c net.Conn, add bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
}

// Close stops listening, removes the socket file and drops open
// connections.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *Server) handle(ctx context.Context, c *net.UnixConn, post func(app.Event) bool) {
	respond := func(r app.SendReply) {
		_ = c.SetWriteDeadline(time.Now().Add(readTimeout))
		if err := json.NewEncoder(c).Encode(r); err != nil {
			s.log.Debug("control socket: the client left before the reply", "err", err)
		}
	}
	uid, err := peerUID(c)
	if err != nil {
		respond(app.SendReply{Error: fmt.Sprintf("could not check who is connecting: %v", err)})
		return
	}
	if uid != s.uid {
		s.log.Warn("control socket: refused a connection from another user", "uid", uid)
		respond(app.SendReply{Error: "permission denied: only the user running Hark may send it requests"})
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(readTimeout))
	var req controlRequest
	if err := json.NewDecoder(&limitedReader{r: c, n: requestLimit}).Decode(&req); err != nil {
		respond(app.SendReply{Error: fmt.Sprintf("could not read the request (%v); send one JSON object {\"text\": …, \"wait\": …}", err)})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if req.Launch {
		s.mu.Lock()
		fn := s.onLaunch
		s.mu.Unlock()
		if fn != nil {
			fn()
		}
		respond(app.SendReply{OK: true})
		return
	}
	if req.Quit {
		s.mu.Lock()
		fn := s.onQuit
		s.mu.Unlock()
		if fn == nil {
			respond(app.SendReply{Error: "this Hark cannot be quit from outside; use Quit in its menu"})
			return
		}
		respond(app.SendReply{OK: true})
		fn()
		return
	}
	if req.Approval != nil {
		s.approval(ctx, c, *req.Approval, post, respond)
		return
	}
	reply := make(chan app.SendReply, 1)
	var ev app.Event = app.SendRequest{Text: req.Text, Wait: req.Wait, Reply: reply}
	if req.Listen != "" {
		ev = app.ListenRequest{Action: app.ListenAction(req.Listen), Reply: reply}
	}
	if req.Deny != "" {
		ev = app.DenyRequest{PendingID: req.Deny, Reason: req.Reason, Reply: reply}
	}
	switch req.Answer {
	case "":
	case answerApprove, answerDeny:
		ev = app.AnswerRequest{Approve: req.Answer == answerApprove, Delete: req.Delete, Reason: req.Reason, Reply: reply}
	default:
		respond(app.SendReply{Error: fmt.Sprintf("unknown answer %q; use %q or %q (update hark, or quit and start Hark again)", req.Answer, answerApprove, answerDeny)})
		return
	}
	if !post(ev) {
		respond(app.SendReply{Error: "Hark is quitting; start it again with `hark`"})
		return
	}
	select {
	case r := <-reply:
		respond(r)
	case <-ctx.Done():
		respond(app.SendReply{Error: "Hark is quitting; the request did not finish"})
	}
}

// approval puts p to the user through the app and answers with the
// decision. The client has nothing more to send, so a read that returns
// means it left (cancelled, or gone): the approval is then withdrawn.
func (s *Server) approval(ctx context.Context, c *net.UnixConn, p app.Pending, post func(app.Event) bool, respond func(app.SendReply)) {
	s.mu.Lock()
	full := s.approvals >= MaxApprovals
	if !full {
		s.approvals++
	}
	s.mu.Unlock()
	if full {
		respond(app.SendReply{Error: fmt.Sprintf("%d commands from other programs already wait for the user's approval; wait for their results before asking for more", MaxApprovals)})
		return
	}
	defer func() {
		s.mu.Lock()
		s.approvals--
		s.mu.Unlock()
	}()
	p = fromOutside(p)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		var b [1]byte
		_, _ = c.Read(b[:])
		cancel()
	}()
	reply := make(chan app.Decision, 1)
	if !post(app.ApprovalRequest{Ctx: actx, Pending: p, Reply: reply}) {
		respond(app.SendReply{Error: "Hark is quitting; start it again with `hark`"})
		return
	}
	d := <-reply // the app always answers, at the latest with a cancel
	respond(app.SendReply{OK: true, Decision: &d})
}

// MaxApprovals bounds the approvals other programs may have waiting in
// the menu at once, whoever connects: beyond it a request is refused, not
// queued, so that no program can bury the user's own approvals.
const MaxApprovals = 8

// fromOutside is p as the app may show it: whatever another program
// sends, its approval names it and never passes for Hark's own, so what
// only the app knows (what was heard and how sure, a no said earlier) is
// dropped.
func fromOutside(p app.Pending) app.Pending {
	p.Client = strings.Join(strings.Fields(p.Client), " ")
	if p.Client == "" {
		p.Client = "another program"
	}
	p.Heard, p.HeardDoubt, p.AfterNo, p.ConversationID = "", "", "", ""
	p.AfterTimeout = false
	return p
}

// limitedReader fails instead of ending quietly when the limit is hit, so
// an oversized request is an error rather than truncated JSON.
type limitedReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("request larger than %d bytes", requestLimit)
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// Announce tells the app running for this user that another launch was
// refused, so it can show itself: the second process exits, and on macOS
// nobody would see its stderr. ErrNotRunning means nothing listens (the
// other app may hold the lock without a socket).
func Announce(ctx context.Context, runtimeDir string) error {
	r, err := exchange(ctx, runtimeDir, controlRequest{Launch: true})
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("the running Hark refused the announcement: %s", r.Error)
	}
	return nil
}

// Send hands text to the running app through the control socket in
// runtimeDir. With wait it returns when the run has ended, with the answer;
// without, as soon as the app has accepted the request. A reply with OK
// false carries the app's reason in Error. ErrNotRunning means no app
// listens. Cancelling ctx abandons the wait (the app keeps going).
func Send(ctx context.Context, runtimeDir, text string, wait bool) (app.SendReply, error) {
	return exchange(ctx, runtimeDir, controlRequest{Text: text, Wait: wait})
}

// PressHotkey asks the running app to act as if its hotkey was pressed (see
// app.ListenAction): `hark listen`. It returns as soon as the app has taken the request
// or refused it: a reply with OK false carries the reason. ErrNotRunning
// means no app listens; PressHotkey never starts one.
func PressHotkey(ctx context.Context, runtimeDir string, action app.ListenAction) (app.SendReply, error) {
	return exchange(ctx, runtimeDir, controlRequest{Listen: string(action)})
}

// Quit asks the app running for this user to shut down, and returns once
// its control socket no longer answers (the app is gone or nearly so), or
// when ctx ends. ErrNotRunning means nothing listened in the first place.
func Quit(ctx context.Context, runtimeDir string) error {
	r, err := exchange(ctx, runtimeDir, controlRequest{Quit: true})
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("the running Hark did not quit: %s", r.Error)
	}
	// The socket is removed when the app closes it; until then a dial
	// still connects (or is refused once the listener is gone).
	path := SocketPath(runtimeDir)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.Dial("unix", path)
		if err != nil {
			return nil
		}
		c.Close()
		select {
		case <-ctx.Done():
			return fmt.Errorf("Hark was asked to quit but still answers at %s: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
}

// Deny denies the running app's open approval pendingID with reason, the
// answer to Deny and say why… typed in a terminal window. A reply with OK
// false says why not (the approval was answered or timed out meanwhile).
func Deny(ctx context.Context, runtimeDir, pendingID, reason string) (app.SendReply, error) {
	return exchange(ctx, runtimeDir, controlRequest{Deny: pendingID, Reason: reason})
}

// The answers of `hark approve` and `hark deny` on the wire.
const (
	answerApprove = "approve"
	answerDeny    = "deny"
)

// Approve answers the running app's oldest waiting approval with yes:
// `hark approve`. Where it offers Move to Trash that is the answer, unless
// del asks to delete for good. A reply with OK false says why not (nothing
// waits, or the approval needs a click); OK true carries what was answered
// in Answer.
func Approve(ctx context.Context, runtimeDir string, del bool) (app.SendReply, error) {
	return exchange(ctx, runtimeDir, controlRequest{Answer: answerApprove, Delete: del})
}

// DenyOldest denies the running app's oldest waiting approval, telling the
// model reason when it is not empty: `hark deny`.
func DenyOldest(ctx context.Context, runtimeDir, reason string) (app.SendReply, error) {
	return exchange(ctx, runtimeDir, controlRequest{Answer: answerDeny, Reason: reason})
}

// RefusedError is the running app's refusal to ask (too many approvals
// from other programs wait already, or it is quitting); Why says so in
// words for the caller's result.
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return "the running Hark did not ask: " + e.Why }

// Ask puts p to the user through the running app (the menu and a
// notification) and waits for the answer; cancelling ctx withdraws it.
// ErrNotRunning means no app listens, so nobody can be asked; Ask never
// starts one.
func Ask(ctx context.Context, runtimeDir string, p app.Pending) (app.Decision, error) {
	r, err := exchange(ctx, runtimeDir, controlRequest{Approval: &p, Wait: true})
	switch {
	case err != nil:
		return app.Decision{}, err
	case !r.OK:
		return app.Decision{}, &RefusedError{Why: r.Error}
	case r.Decision == nil:
		return app.Decision{}, errors.New("the running Hark answered without a decision; update it (quit and start Hark again)")
	}
	return *r.Decision, nil
}

// exchange sends one request and reads its reply.
func exchange(ctx context.Context, runtimeDir string, req controlRequest) (app.SendReply, error) {
	path := SocketPath(runtimeDir)
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := d.DialContext(dctx, "unix", path)
	cancel()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return app.SendReply{}, ErrNotRunning
		}
		return app.SendReply{}, fmt.Errorf("could not reach Hark at %s: %w", path, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	// A write error is not the end: the app may have refused the connection
	// with a reason (another user, shutting down) before reading it.
	writeErr := json.NewEncoder(c).Encode(req)
	if !req.Wait || writeErr != nil {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	}
	var r app.SendReply
	if err := json.NewDecoder(c).Decode(&r); err != nil {
		if writeErr != nil {
			return app.SendReply{}, fmt.Errorf("could not send the request to Hark: %w", writeErr)
		}
		if ctx.Err() != nil {
			return app.SendReply{}, ctx.Err()
		}
		return app.SendReply{}, fmt.Errorf("Hark closed the connection without an answer (%v); check its status in the menu", err)
	}
	return r, nil
}

// Running reports whether a Hark app listens on the control socket in
// runtimeDir. It only connects and hangs up; `hark doctor` uses it so that
// the running app holding its own hotkey is not reported as a conflict.
func Running(runtimeDir string) bool {
	c, err := net.DialTimeout("unix", SocketPath(runtimeDir), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

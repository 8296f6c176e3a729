package preview

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hark-sh/hark/shell"
)

// A Previewer looks through a preview server: one `hark __preview -server`
// that the Runner starts inside the read-only sandbox (shell.Service) and
// that answers every preview after it, so that a preview costs a request
// over a socket and the look itself, not two process starts, a shell and
// a Go runtime. On a busy machine those starts are what made a small
// preview miss its bound. The one-shot helper per preview remains the
// fallback wherever no server can be started (no sandbox, an executable
// that does not serve, a folder the Runner refuses), which is also what
// keeps every refusal worded as before.
//
// Protocol, one JSON object per line: the server first says serverReady;
// then each request{deadline, dir, command} gets one answer{preview} or
// answer{error}.

// ServerArg, after HelperCommand, selects the preview server.
const ServerArg = "-server"

const serverReady = `{"ready":"hark-preview-1"}`

// maxRequest bounds one request line; a command is far shorter.
const maxRequest = 1 << 20

// serverStartTimeout bounds a server's start in the background; a preview
// waits for it only as long as its own bound.
const serverStartTimeout = 10 * time.Second

// maxIdleServers is how many servers a Previewer keeps between previews:
// one serves the usual one approval at a time, a second one previews that
// overlap.
const maxIdleServers = 2

type request struct {
	Deadline int64  `json:"deadline"` // Unix nanoseconds: when to stop looking
	Dir      string `json:"dir"`
	Command  string `json:"command"`
}

type answer struct {
	Preview *Preview `json:"preview"`
	Error   string   `json:"error,omitempty"`
}

// server is Hark's end of one preview server.
type server struct {
	svc *shell.Service
	in  *bufio.Reader
}

// servers are a Previewer's idle preview servers. It is a type of its
// own so that a Previewer dropped without Close still ends them (see New).
type servers struct {
	mu       sync.Mutex
	idle     []*server
	closed   bool
	useless  bool // the executable does not serve: the one-shot helper only
	starting int  // starts in flight that no preview waits for
	started  int  // servers that said they were ready, for the tests
}

// errNoServer says the executable does not speak the protocol.
var errNoServer = errors.New("the preview helper does not serve")

// take returns an idle live server, or nil.
func (ss *servers) take() *server {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for len(ss.idle) > 0 {
		s := ss.idle[len(ss.idle)-1]
		ss.idle = ss.idle[:len(ss.idle)-1]
		select {
		case <-s.svc.Done():
			s.svc.Close()
		default:
			return s
		}
	}
	return nil
}

// put keeps s for the next preview, or ends it when enough are kept.
func (ss *servers) put(s *server) {
	ss.mu.Lock()
	if !ss.closed && len(ss.idle) < maxIdleServers {
		ss.idle = append(ss.idle, s)
		s = nil
	}
	ss.mu.Unlock()
	if s != nil {
		s.svc.Close()
	}
}

// started1 records the outcome of one start: an executable that does not
// serve is not asked again.
func (ss *servers) started1(err error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch {
	case err == nil:
		ss.started++
	case errors.Is(err, errNoServer):
		ss.useless = true
	}
}

func (ss *servers) close() {
	ss.mu.Lock()
	idle := ss.idle
	ss.idle, ss.closed = nil, true
	ss.mu.Unlock()
	for _, s := range idle {
		s.svc.Close()
	}
}

// startServer starts a server and waits for it to say it is ready.
func startServer(runner *shell.Runner, exe string) (*server, error) {
	svc, err := runner.StartService([]string{exe, HelperCommand, ServerArg})
	if err != nil {
		return nil, err
	}
	s := &server{svc: svc, in: bufio.NewReaderSize(svc.Conn(), 64<<10)}
	svc.Conn().SetReadDeadline(time.Now().Add(serverStartTimeout))
	line, err := readLine(s.in, maxRequest)
	svc.Conn().SetReadDeadline(time.Time{})
	switch {
	case err == nil && string(line) == serverReady:
		return s, nil
	case err == nil || errors.Is(err, io.EOF):
		svc.Close() // it said something else, or nothing: not a server
		return nil, errNoServer
	}
	svc.Close()
	return nil, err
}

// server returns a live server: an idle one, or one started now, waited
// for until hard at most. A start that outlasts the wait goes on in the
// background and keeps its server for the next preview: on a loaded
// machine the first preview may miss its bound, the next need not.
func (p *Previewer) server(ctx context.Context, hard time.Time) (*server, bool, error) {
	if s := p.servers.take(); s != nil {
		return s, false, nil
	}
	p.servers.mu.Lock()
	useless := p.servers.useless
	p.servers.mu.Unlock()
	if useless {
		return nil, true, errNoServer
	}
	got := make(chan error, 1)
	var s *server
	go func() {
		var err error
		s, err = startServer(p.runner, p.exe)
		p.servers.started1(err)
		got <- err
	}()
	t := time.NewTimer(time.Until(hard))
	defer t.Stop()
	select {
	case err := <-got:
		return s, true, err
	case <-ctx.Done():
	case <-t.C:
	}
	go func() {
		if <-got == nil {
			p.servers.put(s)
		}
	}()
	return nil, true, context.DeadlineExceeded
}

// Warm starts a preview server in the background, so that even the first
// preview finds one; Hark calls it when it expects to ask for approvals.
// It does nothing where a server is already kept or starting.
func (p *Previewer) Warm() {
	if p.perRun || p.exe == "" {
		return
	}
	ss := p.servers
	ss.mu.Lock()
	if ss.closed || ss.useless || len(ss.idle) > 0 || ss.starting > 0 {
		ss.mu.Unlock()
		return
	}
	ss.starting++
	ss.mu.Unlock()
	go func() {
		s, err := startServer(p.runner, p.exe)
		ss.mu.Lock()
		ss.starting--
		ss.mu.Unlock()
		ss.started1(err)
		if err == nil {
			ss.put(s)
		}
	}()
}

// Close ends the Previewer's servers. A Previewer can still preview after
// Close, through the one-shot helper.
func (p *Previewer) Close() { p.servers.close() }

// ask sends one request and reads its answer, giving up at hard or when
// ctx ends.
func (s *server) ask(ctx context.Context, req request, hard time.Time) ([]byte, error) {
	conn := s.svc.Conn()
	conn.SetDeadline(hard)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return readLine(s.in, maxRequest)
}

// viaServer previews through a server. done is false when no server could
// be had for a reason other than time, so the one-shot helper should look
// instead.
func (p *Previewer) viaServer(ctx context.Context, command, workingDirectory string, deadline, hard time.Time) (pv *Preview, done bool) {
	if ctx.Err() != nil {
		return p.tookTooLong(), true
	}
	dir, err := p.runner.ResolveDir(workingDirectory)
	if err != nil {
		return nil, false // the one-shot path words the refusal
	}
	req := request{Deadline: deadline.UnixNano(), Dir: dir, Command: command}
	for attempt := 0; ; attempt++ {
		s, fresh, err := p.server(ctx, hard)
		switch {
		case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			return p.tookTooLong(), true
		case err != nil:
			return nil, false
		}
		line, err := s.ask(ctx, req, hard)
		if err != nil {
			s.svc.Close() // it may still be looking: it must not answer the next request with this one
			if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
				return p.tookTooLong(), true
			}
			if !fresh && attempt == 0 {
				continue // an idle server that had ended (its CPU budget, a kill): once more with a new one
			}
			return unavailable("the helper failed (" + err.Error() + ")"), true
		}
		if len(line)+1 > p.runner.OutputLimit() {
			p.servers.put(s)
			return unavailable(cutShort), true
		}
		var out answer
		if err := json.Unmarshal(line, &out); err != nil {
			s.svc.Close()
			return unavailable("the helper's answer could not be read (" + err.Error() + ")"), true
		}
		p.servers.put(s)
		if out.Error != "" {
			return unavailable("the helper failed (" + out.Error + ")"), true
		}
		return out.Preview, true
	}
}

func (p *Previewer) tookTooLong() *Preview {
	return unavailable(fmt.Sprintf("looking took longer than %s; check the targets yourself before approving", seconds(p.timeout)))
}

const cutShort = "the helper's answer was cut short; give the Previewer a runner with a larger output limit"

// readLine reads up to a newline, which it drops, refusing lines longer
// than max.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull) && len(line) <= max:
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, errors.New("answer too long")
		case len(line) > 0 && errors.Is(err, io.EOF):
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
}

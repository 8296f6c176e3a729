package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

func init() {
	register(&command{
		name:    "mcp",
		usage:   "[--print-config claude|claude-code|cursor|zed|goose|codex]",
		summary: "Serve MCP over stdio: other agents run shell commands through Hark's policy, sandbox and approvals.",
		about: `Serves the Model Context Protocol on stdin/stdout, for an MCP client (Claude Desktop, Cursor,
Zed, Goose …) to start. Its one tool, execute_terminal_command, takes the path a spoken request
takes: read-only commands run at once in the sandbox, forbidden ones never, and anything else
waits for your approval in the running Hark app (not running: not run). See docs/mcp.md.`,
		run: runMCP,
	})
}

// mcpToolDescription tells the calling model what happens to its command,
// so that it neither retries a refusal nor takes a wait for a failure.
const mcpToolDescription = "Run one shell command on the user's machine through Hark and get back one JSON object " +
	"(success, exitCode, output, error, tier, executed, sandbox …). Read-only commands (ls, cat, du, git status …) run at once " +
	"in a read-only, no-network sandbox, except that reading the user's keys, credentials, browser profiles, shell history or " +
	"Hark's settings (~/.ssh, ~/.aws, grep -r over home …) is asked about first. Anything that changes something waits until the user approves it in Hark's menu or " +
	"notification, and may be denied or time out: then it did not run, and the result's error says why. Forbidden commands " +
	"(sudo, disk erasure, deleting home …) never run; do not try another way to do the same. The command runs in a fresh " +
	"shell with no input, in workingDirectory (an absolute path; default: the user's home), with a time limit."

// appConfirmer puts a client's command to the user through the running
// app; the only thing that differs from a spoken request's approval is the
// way there. waiting counts this session's approvals in the menu, so that
// one client cannot fill the menu with its requests.
type appConfirmer struct {
	runtime string
	client  string
	waiting *atomic.Int32
	unasked *atomic.Bool // set when the user could not be asked at all
	// progress, when the client asked for progress, sends it notes while
	// the approval waits; nil: none.
	progress *progressNotes
}

// maxClientApprovals is how many approvals one hark mcp session may have
// waiting in the menu at once; more is a client asking faster than a
// person can read, and each further call is refused without asking.
const maxClientApprovals = 4

func (c appConfirmer) Confirm(ctx context.Context, p agent.Pending) (agent.Decision, error) {
	if c.waiting != nil {
		if n := c.waiting.Add(1); n > maxClientApprovals {
			c.waiting.Add(-1)
			return c.notAsked(fmt.Sprintf("not run: %d commands from %s already wait for the user's approval; "+
				"wait for their results before asking for more", maxClientApprovals, c.client))
		}
		defer c.waiting.Add(-1)
	}
	if c.progress != nil {
		c.progress.start(ctx)
		defer c.progress.stop()
	}
	d, err := control.Ask(ctx, c.runtime, p)
	var refused *control.RefusedError
	switch {
	case errors.Is(err, control.ErrNotRunning):
		return c.notAsked("not run: this command needs your approval and Hark is not running; start Hark to approve commands from " + c.client)
	case errors.As(err, &refused):
		return c.notAsked("not run: " + refused.Why)
	case err != nil && ctx.Err() == nil:
		return c.notAsked("not run: could not ask for approval (" + err.Error() + "); start Hark to approve commands from " + c.client)
	}
	return d, err
}

// notAsked is the answer when nobody could be asked, noted for the
// call's structured result.
func (c appConfirmer) notAsked(why string) (agent.Decision, error) {
	if c.unasked != nil {
		c.unasked.Store(true)
	}
	return agent.Decision{}, &agent.NotAsked{Why: why}
}

// mcpServer answers one client's tool calls.
type mcpServer struct {
	guard     *agent.Agent
	runtime   string // Hark's runtime folder, where the app's socket is
	noConfirm bool   // confirmation off, and mcpConfirmOff says so for clients too
	// confirmTimeout is how long an approval waits, for the progress notes.
	confirmTimeout time.Duration
	private        []string // folders no call may run in (mcpPrivateDirs)

	// stop ends every call when the session ends (stdin closed, SIGTERM):
	// the SDK cancels its calls on a closed stdin but not on its own
	// context, and a call may wait minutes for an approval. calls counts
	// the calls still running, which serveMCP waits for, so that no
	// process and no approval outlives hark mcp.
	stop    context.Context
	calls   sync.WaitGroup
	waiting atomic.Int32 // approvals of this session waiting in the menu
	// session remembers what the user denied this client, so that it is
	// not put to the user again.
	session agent.Session
	// name is the client's, fixed for the session.
	name sessionName
}

// mcpPrivateDirs are the folders a client's command may not name as its
// folder, and the files and folders its read-only commands may not read
// unasked: where credentials usually live (agent.PrivateLocations), and
// Hark's own.
func mcpPrivateDirs(paths settings.Paths) []string {
	var dirs []string
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		dirs = agent.PrivateLocations(home)
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{paths.Settings, paths.Audit, paths.History} {
		d := filepath.Dir(p)
		// HARK_HOME may be home itself (or above it): that cannot close
		// home to every client, so only Hark's own files stay private
		// there, through the classifier and the approval.
		if p == "" || home == d || strings.HasPrefix(home, d+string(filepath.Separator)) || d == string(filepath.Separator) {
			continue
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// newMCPServer is the SDK server with Hark's one tool.
func newMCPServer(m *mcpServer) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hark", Title: "Hark", Version: version}, nil)
	yes := true
	s.AddTool(&mcp.Tool{
		Name:        agent.ToolName,
		Title:       mcpToolTitle,
		Description: mcpToolDescription,
		InputSchema: agent.ToolParameters(),
		// What the tool may do once the user approves: anything a shell
		// can, the network included. Read-only commands are the part
		// that runs unasked, not the whole tool.
		Annotations: &mcp.ToolAnnotations{
			Title:           mcpToolTitle,
			ReadOnlyHint:    false,
			DestructiveHint: &yes,
			IdempotentHint:  false,
			OpenWorldHint:   &yes,
		},
		OutputSchema: mcpOutputSchema,
	}, m.call)
	s.AddReceivingMiddleware(m.learnName)
	return s
}

const mcpToolTitle = "Run a terminal command (guarded by Hark)"

// mcpOutcome is a call's structured result: the result JSON hark exec
// prints, and what Hark decided and why, so that a client can tell a
// command that ran from one that was refused, denied, left unanswered or
// moved to the Trash without reading the error's words. The text content
// is the same object, for clients that read only text.
type mcpOutcome struct {
	shell.Result
	Decision  string `json:"decision"`
	Why       string `json:"why"`
	Sandboxed bool   `json:"sandboxed"`
	Trashed   bool   `json:"trashed"`
}

// JSON encodes o as Result.JSON does: && and > stay readable.
func (o mcpOutcome) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(o) // plain strings, bools and numbers: it cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Decisions a client sees beside the audit log's own words.
const (
	mcpNotAsked = "not-asked" // it needed the user, who could not be asked (Hark not running, too many waiting)
	mcpInvalid  = "invalid"   // the arguments could not be used; nothing was classified or run
)

// outcome is res with what was decided (decision, the audit log's word,
// or "" when the arguments were bad).
func outcome(res shell.Result, decision string, unasked bool) mcpOutcome {
	if res.Reasons == nil {
		res.Reasons = []shell.Reason{}
	}
	o := mcpOutcome{Result: res, Decision: decision, Sandboxed: res.Executed && (res.Sandbox == shell.SandboxApplied || res.Sandbox == shell.SandboxScoped),
		// Not run and yet done: only the Trash does that.
		Trashed: res.Success && !res.Executed}
	switch {
	case decision == "":
		o.Decision, o.Why = mcpInvalid, res.Error
	case decision == agent.DecisionDenied && unasked:
		o.Decision, o.Why = mcpNotAsked, res.Error
	case o.Trashed && decision == agent.DecisionUnconfirmedRun:
		o.Why = "confirmation is off for MCP clients (mcpConfirmOff), so nobody was asked; a deletion under home that runs unasked goes to the Trash instead, so its targets were moved there and nothing was deleted for good"
	case o.Trashed && decision == agent.DecisionAllowed:
		o.Why = "one of the user's rules allows it without asking; a deletion under home that runs unasked goes to the Trash instead, so its targets were moved there and nothing was deleted for good"
	case o.Trashed:
		o.Why = "Hark moved the command's targets to the Trash instead of running it; nothing was deleted for good"
	case decision == agent.DecisionAuto && o.Sandboxed:
		o.Why = "read-only: ran at once in the read-only, no-network sandbox; nobody was asked"
	case decision == agent.DecisionAuto:
		o.Why = "read-only: ran at once, nobody was asked (no sandbox on this system)"
	case decision == agent.DecisionApproved && res.Sandbox == shell.SandboxScoped:
		o.Why = "the user approved it; it ran held to what its approval showed it may change (scope)"
	case decision == agent.DecisionApproved:
		o.Why = "the user approved it"
	case decision == agent.DecisionWidened:
		o.Why = "it was stopped at the edge of what the user approved, and the user allowed what it needed, for this run (scope)"
	case decision == agent.DecisionUnlimited:
		o.Why = "it was stopped at the edge of what the user approved, and the user let it run without limits"
	case decision == agent.DecisionAllowed:
		o.Why = "one of the user's rules allows it, so it ran without asking"
	case decision == agent.DecisionUnconfirmedRun:
		o.Why = "confirmation is off for MCP clients (mcpConfirmOff), so it ran without asking"
	default: // refused, denied, timeout, cancelled: the error says why
		o.Why = res.Error
	}
	return o
}

// mcpOutputSchema describes mcpOutcome for tools/list.
var mcpOutputSchema = json.RawMessage(`{
  "type": "object",
  "required": ["success", "command", "workingDirectory", "purpose", "tier", "reasons", "executed", "exitCode",
    "output", "error", "timedOut", "truncated", "executionTimeMs", "sandbox", "decision", "why", "sandboxed", "trashed"],
  "properties": {
    "success": {"type": "boolean", "description": "the request is done: the command ran and exited 0, or its targets went to the Trash"},
    "command": {"type": "string"},
    "workingDirectory": {"type": "string"},
    "purpose": {"type": "string", "enum": ["checking", "executing", "verifying", ""]},
    "tier": {"type": "string", "enum": ["safe", "confirm", "forbidden", ""], "description": "what Hark's policy made of the command; empty when the arguments were bad"},
    "reasons": {"type": "array", "items": {"type": "object", "required": ["command", "why", "category"],
      "properties": {"command": {"type": "string"}, "why": {"type": "string"}, "category": {"type": "string"}}}},
    "executed": {"type": "boolean", "description": "the command was started"},
    "exitCode": {"type": "integer", "description": "its exit status; -1 when it did not run"},
    "output": {"type": "string"},
    "error": {"type": "string", "description": "its stderr, or why Hark did not run it"},
    "timedOut": {"type": "boolean", "description": "the command ran past Hark's time limit and was stopped"},
    "truncated": {"type": "boolean"},
    "executionTimeMs": {"type": "integer"},
    "sandbox": {"type": "string", "enum": ["read-only", "scoped", "off", "unavailable", ""], "description": "read-only: the read-only sandbox; scoped: held to what its approval showed it may change (scope)"},
    "scope": {"type": "object", "description": "what a scoped run could change and reach",
      "properties": {"write": {"type": "array", "items": {"type": "string"}}, "remove": {"type": "array", "items": {"type": "string"}},
        "keep": {"type": "array", "items": {"type": "string"}}, "network": {"type": "boolean"}, "sshAgent": {"type": "boolean"},
        "signals": {"type": "boolean"}, "broad": {"type": "string"}, "why": {"type": "object"}}},
    "rule": {"type": "string", "description": "the user's rule that decided, when one did"},
    "decision": {"type": "string",
      "enum": ["auto", "approved", "allowed", "unconfirmed-run", "widened", "unlimited", "trashed", "refused", "denied", "not-asked", "timeout", "cancelled", "invalid"],
      "description": "ran: auto (read-only, unasked), approved, allowed (a rule), unconfirmed-run (confirmation off), widened or unlimited (a second approval after the first run was stopped at the edge of its scope); not run: trashed (moved to the Trash instead), refused (never runs), denied (by the user), not-asked (nobody could be asked), timeout (the approval went unanswered), cancelled, invalid (bad arguments)"},
    "why": {"type": "string", "description": "why Hark decided so, in words"},
    "sandboxed": {"type": "boolean", "description": "it ran confined: in the read-only sandbox, or held to its scope"},
    "trashed": {"type": "boolean", "description": "its targets went to the Trash instead of being deleted"}
  }
}`)

// clientName is how the approval and the audit log name a client: the
// title or name it gave, or a plain word when it gave none.
func clientName(info *mcp.Implementation) string {
	if info != nil {
		for _, n := range []string{info.Title, info.Name} {
			if n = strings.Join(strings.Fields(n), " "); n != "" {
				return clipText(n, 60)
			}
		}
	}
	return "an MCP client"
}

// sessionName is the client's name for the whole session, fixed the first
// time the client gives one: in initialize, in server/discover, or (at
// protocol 2026-07-28, which needs neither) in a call's _meta. The SDK
// takes the client's word anew from every server/discover and every
// request, so a client could otherwise have its next approval say it
// comes from another program, one the user trusts more.
type sessionName struct {
	mu   sync.Mutex
	info *mcp.Implementation
}

// of is the session's name; info, the name the request gives, fixes it
// when none is fixed yet.
func (n *sessionName) of(info *mcp.Implementation) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.info == nil && clientName(info) != clientName(nil) {
		n.info = info
	}
	return clientName(n.info)
}

// learnName is middleware that fixes the session's name from the first
// initialize or server/discover that gives one.
func (m *mcpServer) learnName(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "initialize" || method == "server/discover" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && err == nil {
				if p := ss.InitializeParams(); p != nil {
					m.name.of(p.ClientInfo)
				}
			}
		}
		return res, err
	}
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// call answers tools/call: bad arguments are an error result the model
// can act on; everything else is the result JSON that hark exec prints.
func (m *mcpServer) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	m.calls.Add(1)
	defer m.calls.Done()
	if m.stop != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(m.stop, cancel)()
	}
	client := m.name.of(req.ClientInfo())
	var args json.RawMessage
	if req.Params != nil {
		args = req.Params.Arguments
	}
	var decision string
	var unasked atomic.Bool
	confirmer := appConfirmer{runtime: m.runtime, client: client, waiting: &m.waiting, unasked: &unasked}
	if req.Params != nil && req.Session != nil {
		if token := req.Params.GetProgressToken(); token != nil {
			confirmer.progress = &progressNotes{session: req.Session, token: token, limit: m.confirmTimeout}
			// The approval may end before its Confirm returns (a timeout):
			// no note may follow the result.
			defer confirmer.progress.stop()
		}
	}
	res, err := m.guard.Handle(ctx, agent.CallRequest{
		Arguments:   args,
		Client:      client,
		Confirmer:   confirmer,
		NoConfirm:   m.noConfirm,
		PrivateDirs: m.private,
		Session:     &m.session,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventDecided {
				decision = e.Decision
			}
		},
	})
	if err != nil {
		res, decision = shell.Result{ExitCode: -1, Error: err.Error() + ". Nothing was run; send {\"command\": \"…\"} with an optional absolute workingDirectory."}, ""
	}
	text := safeJSON(outcome(agent.ShownResult(res), decision, unasked.Load()).JSON())
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		// Not run, or failed: an error. Moved to the Trash as the user
		// chose is the request done (Success), not a failure to retry.
		IsError: !res.Success || (!res.Executed && res.Error != ""),
	}, nil
}

func mcpUsage(w io.Writer, fs *flag.FlagSet) { writeUsage(w, "mcp", fs) }

func runMCP(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	printConfig := fs.String("print-config", "", "print the snippet for `client`'s config file ("+mcpClientList+") and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			mcpUsage(e.stdout, fs)
			return exitOK
		}
		showln(e.stderr, "hark mcp:", err)
		mcpUsage(e.stderr, fs)
		return exitUsage
	}
	if fs.NArg() > 0 {
		showf(e.stderr, "hark mcp: unexpected argument %q\n", fs.Arg(0))
		mcpUsage(e.stderr, fs)
		return exitUsage
	}
	if *printConfig != "" {
		return printMCPConfig(e, *printConfig)
	}
	// stdout is the protocol: every word for a person goes to stderr,
	// which MCP clients keep in their logs.
	paths, st, err := loadSettings()
	var bad *badSettings
	switch {
	case errors.As(err, &bad):
		showln(e.stderr, "hark mcp: warning:", err)
	case err != nil:
		showln(e.stderr, "hark mcp:", err)
		return exitError
	}
	if w := holdConfirm(&st); w != "" {
		showln(e.stderr, "hark mcp: warning:", w)
	}
	guard, err := newGuard(st, paths, true)
	if err != nil {
		showln(e.stderr, "hark mcp:", err)
		return exitError
	}
	m := &mcpServer{guard: guard, runtime: paths.Runtime, noConfirm: !st.ConfirmBeforeExecute && st.MCPConfirmOff,
		private: mcpPrivateDirs(paths), confirmTimeout: st.ConfirmTimeout.D()}
	return serveMCP(ctx, e, m)
}

// serveMCP runs m on e's stdin and stdout until the client closes stdin
// or ctx ends. Every call still running then is cancelled, which kills
// its process group and withdraws its approval, and serveMCP returns only
// once they have ended: a client that goes away leaves nothing behind.
func serveMCP(ctx context.Context, e *env, m *mcpServer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.stop = ctx
	s := newMCPServer(m)
	out := &lineWriter{w: e.stdout}
	in := screenLines(e.stdin, out, cancel)
	t := &quietCancelled{Transport: &mcp.IOTransport{Reader: in, Writer: out}}
	err := s.Run(ctx, t)
	cancel()
	m.calls.Wait()
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		showln(e.stderr, "hark mcp:", err)
		return exitError
	}
	return exitOK
}

// quietCancelled is a transport that sends no response for a request the
// client cancelled (notifications/cancelled): the protocol says the
// receiver should not, and clients log one as a response to an unknown
// request. The SDK cancels the handler's context but still writes what it
// returns, so the reply is dropped here, on its way out. A response that
// left before the cancel arrived has left; that race is the protocol's.
type quietCancelled struct{ mcp.Transport }

func (q *quietCancelled) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := q.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelFilter{Connection: c, open: map[jsonrpc.ID]bool{}}, nil
}

// cancelFilter tracks the client's requests still unanswered (open: true
// once cancelled), so that a cancel for an id already answered, or never
// sent, silences nothing.
type cancelFilter struct {
	mcp.Connection
	mu   sync.Mutex
	open map[jsonrpc.ID]bool
}

func (c *cancelFilter) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && err == nil {
		c.mu.Lock()
		switch {
		case req.IsCall():
			c.open[req.ID] = false
		case req.Method == "notifications/cancelled":
			var p mcp.CancelledParams
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					if _, ok := c.open[id]; ok {
						c.open[id] = true
					}
				}
			}
		}
		c.mu.Unlock()
	}
	return m, err
}

func (c *cancelFilter) Write(ctx context.Context, m jsonrpc.Message) error {
	if resp, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cancelled := c.open[resp.ID]
		delete(c.open, resp.ID)
		c.mu.Unlock()
		if cancelled {
			return nil
		}
	}
	return c.Connection.Write(ctx, m)
}

// maxMCPLine bounds one JSON-RPC message; a longer line is answered with an
// error and skipped, so that one bad client line never costs the session.
const maxMCPLine = 4 << 20

// screenLines passes the lines of r that are JSON-RPC messages to the SDK
// and answers the others itself with a JSON-RPC error, since the SDK ends
// the connection on a line it cannot decode. At the end of r (the client
// has gone) it calls gone.
func screenLines(r io.Reader, out *lineWriter, gone func()) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer gone()
		defer pw.Close()
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			switch t := bytes.TrimSpace(line); {
			case tooLong:
				out.rpcError(nil, jsonrpc.CodeParseError, fmt.Sprintf("message larger than %d bytes; nothing was run", maxMCPLine))
			case len(t) == 0:
			case !json.Valid(t):
				out.rpcError(nil, jsonrpc.CodeParseError, "not JSON: send one JSON-RPC 2.0 message per line; nothing was run")
			case t[0] == '[':
				// The protocol versions the SDK speaks have no batches, and
				// the SDK would end the session on one.
				out.rpcError(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not accepted: send one message per line; nothing was run")
			default:
				if _, derr := jsonrpc.DecodeMessage(t); derr != nil {
					out.rpcError(messageID(t), jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message ("+derr.Error()+"); nothing was run")
					break
				}
				if _, werr := pw.Write(append(t, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return pr
}

// messageID is the id of a message that is no valid request, when it has
// a usable one, so that the error answers it.
func messageID(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	switch m.ID.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// readLine reads up to a newline, keeping at most maxMCPLine bytes.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxMCPLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// lineWriter serialises whole messages on the client's stdout: the SDK's
// and screenLines' own error replies.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lineWriter) Close() error { return nil }

func (l *lineWriter) rpcError(id any, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_, _ = l.Write(append(b, '\n'))
}

// harkPath is the absolute path of this hark, symlinks resolved, for a
// client's config file.
func harkPath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}

// mcpClientList names the clients --print-config knows.
const mcpClientList = "claude, claude-code, cursor, zed, goose or codex"

// mcpConfigs are the config snippets per client, for the path of hark
// and the seconds a tool call may take (mcpToolTimeout). Where a client
// has a setting for that, its snippet sets it; note says what to know
// where it has none.
var mcpConfigs = map[string]struct {
	where   string
	note    string
	snippet func(path string, secs int) string
}{
	"claude": {"Claude Desktop: Settings → Developer → Edit Config (claude_desktop_config.json), under \"mcpServers\"",
		"Claude Desktop has no setting for how long a tool call may take; Hark sends progress while an approval waits, " +
			"but a client that does not reset its wait on progress gives up on a call after about 60 s: answer approvals within a minute",
		func(p string, _ int) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{"hark": map[string]any{"command": p, "args": []string{"mcp"}}}})
		}},
	"cursor": {"Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in a project), under \"mcpServers\"",
		"Cursor's mcp.json has no setting for how long a tool call may take; Hark sends progress while an approval waits, " +
			"but a client that does not reset its wait on progress gives up on a call after about 60 s: answer approvals within a minute",
		func(p string, _ int) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{"hark": map[string]any{"command": p, "args": []string{"mcp"}}}})
		}},
	"zed": {"Zed: settings.json (zed: open settings), under \"context_servers\"", "",
		func(p string, secs int) string {
			return jsonSnippet(map[string]any{"context_servers": map[string]any{"hark": map[string]any{"source": "custom", "command": p, "args": []string{"mcp"}, "timeout": secs}}})
		}},
	"claude-code": {"Claude Code: run this once in a shell (--scope user: in every project); Claude Code reads MCP_TOOL_TIMEOUT (milliseconds) from its environment or the \"env\" of ~/.claude/settings.json", "",
		func(p string, secs int) string {
			return "claude mcp add --scope user hark -- " + shellQuote(p) + " mcp\n" +
				"# and in ~/.claude/settings.json, so that a call can wait for your approval:\n" +
				"#   \"env\": {\"MCP_TOOL_TIMEOUT\": \"" + strconv.Itoa(secs) + "000\"}\n"
		}},
	"codex": {"Codex: ~/.codex/config.toml", "",
		func(p string, secs int) string {
			q, _ := json.Marshal(p) // a JSON string of a path is a valid TOML string
			return "[mcp_servers.hark]\ncommand = " + string(q) + "\nargs = [\"mcp\"]\ntool_timeout_sec = " + strconv.Itoa(secs) + "\n"
		}},
	"goose": {"Goose: ~/.config/goose/config.yaml, under extensions:", "",
		func(p string, secs int) string {
			q, _ := json.Marshal(p) // a JSON string is a valid YAML string
			return "extensions:\n  hark:\n    name: hark\n    type: stdio\n    cmd: " + string(q) + "\n    args: [mcp]\n    enabled: true\n    timeout: " + strconv.Itoa(secs) + "\n"
		}},
}

// mcpToolTimeout is how long, in whole seconds rounded up to ten, a
// client should let one call of the tool take: the approval's wait, the
// preview before it, the command's time limit, and a margin.
func mcpToolTimeout(st settings.Settings) int {
	d := st.ConfirmTimeout.D() + st.PreviewTimeout.D() + st.CommandTimeout.D() + 30*time.Second
	secs := int((d + time.Second - 1) / time.Second)
	return (secs + 9) / 10 * 10
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func jsonSnippet(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b) + "\n"
}

func printMCPConfig(e *env, client string) int {
	c, ok := mcpConfigs[strings.ToLower(client)]
	if !ok {
		showf(e.stderr, "hark mcp: --print-config takes %s, not %q\n", mcpClientList, client)
		return exitUsage
	}
	p, err := harkPath()
	if err != nil {
		showln(e.stderr, "hark mcp: cannot find this hark's path:", err)
		return exitError
	}
	_, st, err := loadSettings()
	if err != nil {
		// The snippet is still right for the defaults; say which.
		showln(e.stderr, "# warning: hark mcp:", err, "— the timeout below is for the default settings")
		st = settings.Defaults()
	}
	fmt.Fprintln(e.stderr, "# "+c.where)
	if c.note != "" {
		fmt.Fprintln(e.stderr, "# "+c.note)
	}
	if strings.Contains(p, string(filepath.Separator)+"go-build") {
		// go run's binary is gone once it exits: a client told to
		// start it would fail to.
		fmt.Fprintln(e.stderr, "# warning: "+p+" is a temporary build that go run deletes; run bin/hark mcp --print-config "+client+" (make build) instead")
	}
	fmt.Fprint(e.stdout, c.snippet(p, mcpToolTimeout(st)))
	return exitOK
}

// progressTicker is the part of *time.Ticker the progress notes use; a
// test drives its own.
type progressTicker interface {
	C() <-chan time.Time
	Stop()
}

type realTicker struct{ *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.Ticker.C }

// newProgressTicker makes the ticker of one approval's progress notes.
var newProgressTicker = func(d time.Duration) progressTicker { return realTicker{time.NewTicker(d)} }

// mcpProgressEvery is how often a waiting approval tells the client it
// still waits: well inside the 60 s after which the TypeScript SDK, and
// the clients built on it, give up on a request unless progress resets
// the wait.
const mcpProgressEvery = 15 * time.Second

// progressNotes sends notifications/progress for one call while its
// approval waits: one at once and one per tick, counting up, so that a
// client that resets its timeout on progress keeps waiting for the user.
type progressNotes struct {
	session *mcp.ServerSession
	token   any
	limit   time.Duration

	mu   sync.Mutex
	n    float64
	quit chan struct{}
	done chan struct{}
}

func (p *progressNotes) start(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quit != nil {
		return
	}
	quit, done := make(chan struct{}), make(chan struct{})
	p.quit, p.done = quit, done // stop clears them: the goroutine keeps its own
	tk := newProgressTicker(mcpProgressEvery)
	msg := "waiting for the user's approval in Hark"
	if p.limit > 0 {
		msg += " (at most " + p.limit.String() + ")"
	}
	go func() {
		defer close(done)
		defer tk.Stop()
		for {
			p.n++
			_ = p.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
			select {
			case <-tk.C():
			case <-quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
}

// stop ends the notes and returns once the last has been written; it may
// be called more than once.
func (p *progressNotes) stop() {
	p.mu.Lock()
	quit, done := p.quit, p.done
	p.quit = nil
	p.mu.Unlock()
	if quit == nil {
		return
	}
	close(quit)
	<-done
}

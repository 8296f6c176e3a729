package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// mcpWait bounds how long a test waits for something that should happen
// at once; a loaded machine is slow, never this slow.
const mcpWait = 60 * time.Second

// mcpHome isolates Hark's folders, the home folder and the runtime folder
// (a short one: unix socket paths are limited), so that no test reaches
// a Hark the user is running.
func mcpHome(t *testing.T) settings.Paths {
	t.Helper()
	execHome(t)
	rt, err := os.MkdirTemp("", "hkm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	paths, err := settings.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// startMCP runs `hark mcp` in this process on pipes, as a client would
// start it, and connects the SDK's client to it as clientName. The
// returned channel receives the subcommand's exit code.
func startMCP(t *testing.T, clientName string) (*mcp.ClientSession, <-chan int) {
	t.Helper()
	cs, done, _ := startMCPPipe(t, clientName)
	return cs, done
}

// startMCPPipe is startMCP that also returns the pipe to the server's
// stdin, for a test to close as a client that dies does.
func startMCPPipe(t *testing.T, clientName string) (*mcp.ClientSession, <-chan int, io.Closer) {
	t.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	var stderr lockedBuffer
	e := &env{stdin: inR, stdout: outW, stderr: &stderr}
	done := make(chan int, 1)
	go func() {
		code := dispatch(context.Background(), e, []string{"mcp"})
		outW.Close()
		done <- code
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	t.Cleanup(func() { inW.Close(); cs.Close() })
	return cs, done, inW
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// callResult is a tool call's outcome: the result JSON and isError.
type callResult struct {
	res     shell.Result
	text    string
	isError bool
}

func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, args any) (callResult, error) {
	t.Helper()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: args})
	if err != nil {
		return callResult{}, err
	}
	if len(r.Content) != 1 {
		t.Fatalf("content: %d items, want one text", len(r.Content))
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", r.Content[0])
	}
	out := callResult{text: tc.Text, isError: r.IsError}
	if err := json.Unmarshal([]byte(tc.Text), &out.res); err != nil {
		t.Fatalf("the result is not the result JSON: %v\n%s", err, tc.Text)
	}
	return out, nil
}

func mustCall(t *testing.T, cs *mcp.ClientSession, args any) callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
	defer cancel()
	r, err := callTool(ctx, t, cs, args)
	if err != nil {
		t.Fatalf("tools/call %v: %v", args, err)
	}
	return r
}

// fakeApp is the menu-bar core with its control socket, as `hark` runs
// it, minus the tray and the notifications: a test reads its menu and
// clicks in it.
type fakeApp struct {
	core *app.App
	menu *menuSeen
}

type menuSeen struct {
	mu   sync.Mutex
	last app.Menu
}

func (m *menuSeen) Render(menu app.Menu) {
	m.mu.Lock()
	m.last = menu
	m.mu.Unlock()
}

type idleAgent struct{}

func (idleAgent) RunWith(context.Context, *agent.Conversation, string, agent.RequestOptions) (agent.Outcome, error) {
	return agent.Outcome{Answer: "nothing"}, nil
}

func startApp(t *testing.T, paths settings.Paths) *fakeApp {
	t.Helper()
	f := &fakeApp{menu: &menuSeen{}}
	f.core = app.New(app.Options{Settings: settings.Defaults(), Agent: idleAgent{}, Menu: f.menu, Paths: paths,
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	go f.core.Run(ctx)
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = srv.Serve(ctx, f.core.Post); close(served) }()
	t.Cleanup(func() { cancel(); <-f.core.Done(); <-served })
	return f
}

// pending waits until the menu offers n approvals and returns their IDs
// and the menu's text.
func (f *fakeApp) pending(t *testing.T, n int) ([]string, string) {
	t.Helper()
	deadline := time.Now().Add(mcpWait)
	for {
		f.menu.mu.Lock()
		m := f.menu.last
		f.menu.mu.Unlock()
		var ids []string
		var text strings.Builder
		// Beside another, an entry is folded into a submenu: its rows
		// and answers are its children.
		var walk func(items []app.MenuItem)
		walk = func(items []app.MenuItem) {
			for _, it := range items {
				if id, ok := strings.CutPrefix(it.ID, app.PrefixDeny); ok {
					ids = append(ids, id)
				}
				text.WriteString(it.Label + "\n")
				walk(it.Children)
			}
		}
		walk(m.Items)
		if len(ids) == n && len(m.Items) > 0 {
			return ids, text.String()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the menu never showed %d approvals:\n%s", n, text.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *fakeApp) click(t *testing.T, id string) {
	t.Helper()
	if !f.core.Post(app.MenuClick{ID: id}) {
		t.Fatal("the app has stopped")
	}
}

// processWith reports whether a process whose command line is exactly
// args is alive.
func processWith(args ...string) bool {
	want := strings.Join(args, "\x00") + "\x00"
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && string(b) == want {
			if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie has stopped
			}
			return true
		}
	}
	return false
}

func waitGone(t *testing.T, what string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(mcpWait)
	for processWith(args...) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q still runs", what, args)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitStarted(t *testing.T, args ...string) {
	t.Helper()
	deadline := time.Now().Add(mcpWait)
	for !processWith(args...) {
		if time.Now().After(deadline) {
			t.Fatalf("%q never started", args)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMcpListsTheOneTool(t *testing.T) {
	mcpHome(t)
	cs, _ := startMCP(t, "test-client")
	if v := cs.InitializeResult().ProtocolVersion; !contains(mcp.SupportedProtocolVersions(), v) {
		t.Errorf("negotiated protocol %q, not one the SDK supports", v)
	}
	if n := cs.InitializeResult().ServerInfo.Name; n != "hark" {
		t.Errorf("server name %q", n)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != agent.ToolName {
		t.Fatalf("tools: %+v, want only %s", tools.Tools, agent.ToolName)
	}
	tool := tools.Tools[0]
	for _, want := range []string{"read-only", "sandbox", "approves", "never run"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("the description does not say %q: %s", want, tool.Description)
		}
	}
	schema, _ := json.Marshal(tool.InputSchema)
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Required, ",") != "command" || len(s.Properties) != 3 || s.Properties["workingDirectory"] == nil || s.Properties["purpose"] == nil {
		t.Errorf("input schema %s, want command required, workingDirectory and purpose", schema)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestMcpSafeForbiddenAndNoApp: a safe command runs at once and answers
// with the result JSON; a forbidden one is refused; one that needs
// approval is not run while Hark is not running, and the result says how
// to fix that. The audit log names the client for each.
func TestMcpSafeForbiddenAndNoApp(t *testing.T) {
	paths := mcpHome(t)
	cs, _ := startMCP(t, "Claude Desktop")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustCall(t, cs, map[string]any{"command": "ls", "workingDirectory": dir, "purpose": "checking"})
	if r.isError || !r.res.Executed || r.res.Tier != shell.Safe || !strings.Contains(r.res.Output, "hello.txt") {
		t.Errorf("safe call: isError %v, %s", r.isError, r.text)
	}
	if landlock, _ := shell.SandboxStatus(); landlock && r.res.Sandbox != shell.SandboxApplied {
		t.Errorf("the safe command ran with sandbox %q, want %q", r.res.Sandbox, shell.SandboxApplied)
	}

	r = mustCall(t, cs, map[string]any{"command": "sudo rm -rf /"})
	if !r.isError || r.res.Executed || r.res.Tier != shell.Forbidden || !strings.Contains(r.res.Error, "Refused") {
		t.Errorf("forbidden call: isError %v, %s", r.isError, r.text)
	}

	marker := filepath.Join(dir, "made")
	r = mustCall(t, cs, map[string]any{"command": "touch " + marker})
	if !r.isError || r.res.Executed || !strings.Contains(r.res.Error, "start Hark to approve commands from Claude Desktop") {
		t.Errorf("with no app: isError %v, %s", r.isError, r.text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command that needed approval ran without the app")
	}

	es, _, err := agent.ReadAudit(paths.Audit)
	if err != nil || len(es) != 3 {
		t.Fatalf("audit: %d entries, %v; want 3", len(es), err)
	}
	for i, want := range []string{agent.DecisionAuto, agent.DecisionRefused, agent.DecisionNotAsked} {
		if es[i].Client != "Claude Desktop" || es[i].Decision != want {
			t.Errorf("audit entry %d: client %q decision %q, want Claude Desktop and %s", i, es[i].Client, es[i].Decision, want)
		}
	}
	var table strings.Builder
	writeAuditTable(&table, es)
	if strings.Count(table.String(), ", from Claude Desktop)") != 3 {
		t.Errorf("hark audit does not name the client:\n%s", table.String())
	}
}

// TestMcpApprovalsFromTheApp: two calls at once queue two approvals in
// the running app's menu, named by the client; the one approved runs,
// the one denied does not.
func TestMcpApprovalsFromTheApp(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	cs, _ := startMCP(t, "Cursor")
	dir := t.TempDir()
	yes, no := filepath.Join(dir, "approved"), filepath.Join(dir, "denied")
	results := make(chan callResult, 2)
	for _, f := range []string{yes, no} {
		go func() { results <- mustCall(t, cs, map[string]any{"command": "touch " + f, "workingDirectory": dir}) }()
	}
	ids, text := a.pending(t, 2)
	if strings.Count(text, "Cursor asks:") != 2 {
		t.Errorf("the approvals do not name the client:\n%s", text)
	}
	// Which is which follows the order they arrived in.
	first := strings.Index(text, "touch "+yes) < strings.Index(text, "touch "+no)
	approve, deny := ids[0], ids[1]
	if !first {
		approve, deny = deny, approve
	}
	a.click(t, app.PrefixApprove+approve)
	a.click(t, app.PrefixDeny+deny)
	for range 2 {
		r := <-results
		switch r.res.Command {
		case "touch " + yes:
			if r.isError || !r.res.Executed {
				t.Errorf("the approved call: %s", r.text)
			}
		case "touch " + no:
			if !r.isError || r.res.Executed || !strings.Contains(r.res.Error, "denied") {
				t.Errorf("the denied call: %s", r.text)
			}
		}
	}
	if _, err := os.Stat(yes); err != nil {
		t.Error("the approved command did not run")
	}
	if _, err := os.Stat(no); err == nil {
		t.Error("the denied command ran")
	}
	es, _, _ := agent.ReadAudit(paths.Audit)
	for _, e := range es {
		if e.Client != "Cursor" || e.DecidedBy != agent.ByMenu {
			t.Errorf("audit: %+v, want Cursor decided from the menu", e)
		}
	}
}

// TestMcpCancellation: notifications/cancelled (the SDK client sends it
// when the call's context ends) stops a running command's process and
// withdraws a waiting approval from the menu.
func TestMcpCancellation(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	cs, _ := startMCP(t, "test-client")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := callTool(ctx, t, cs, map[string]any{"command": "sleep 3141"}); done <- err }()
	waitStarted(t, "sleep", "3141")
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	waitGone(t, "after cancelling", "sleep", "3141")
	t.Logf("the cancelled command was gone %v after the cancel", time.Since(start).Round(time.Millisecond))

	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		_, err := callTool(ctx, t, cs, map[string]any{"command": "touch " + filepath.Join(t.TempDir(), "x")})
		done <- err
	}()
	a.pending(t, 1)
	cancel()
	<-done
	a.pending(t, 0)
	// The session still serves after both.
	if r := mustCall(t, cs, map[string]any{"command": "true"}); r.isError {
		t.Errorf("after cancelling: %s", r.text)
	}
}

// TestMcpBadInput: each bad call is answered, with an error result or a
// JSON-RPC error that says what is wrong, and the server keeps serving.
func TestMcpBadInput(t *testing.T) {
	paths := mcpHome(t)
	cs, _ := startMCP(t, "test-client")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	ssh := filepath.Join(home, ".ssh", "keys")
	link := filepath.Join(home, "innocent")
	if err := os.MkdirAll(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), link); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args any
		want string
	}{
		"missing command":    {map[string]any{}, `missing argument \"command\"`},
		"non-string command": {map[string]any{"command": 7}, `must be a string`},
		"relative folder":    {map[string]any{"command": "ls", "workingDirectory": "src"}, "absolute path"},
		"missing folder":     {map[string]any{"command": "ls", "workingDirectory": "/no/such/dir"}, "does not exist"},
		"file as folder":     {map[string]any{"command": "ls", "workingDirectory": file}, "is not a folder"},
		"huge argument":      {map[string]any{"command": "echo " + strings.Repeat("a", 1<<20)}, "at most"},
		"credentials folder": {map[string]any{"command": "ls", "workingDirectory": ssh}, "holds credentials"},
		"link into them":     {map[string]any{"command": "ls", "workingDirectory": link}, "holds credentials"},
		"hark's own folder":  {map[string]any{"command": "ls", "workingDirectory": filepath.Dir(paths.Settings)}, "Hark's own settings"},
		"dot dot into them":  {map[string]any{"command": "ls", "workingDirectory": home + "/x/../.ssh"}, "holds credentials"},
	} {
		t.Run(name, func(t *testing.T) {
			r := mustCall(t, cs, tc.args)
			if !r.isError || r.res.Executed || !strings.Contains(r.text, tc.want) {
				t.Errorf("isError %v, %s; want an error result mentioning %s", r.isError, r.text, tc.want)
			}
		})
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("an unknown tool: %v, want a JSON-RPC error naming it", err)
	}
	if r := mustCall(t, cs, map[string]any{"command": "true"}); r.isError {
		t.Errorf("after the bad calls: %s", r.text)
	}
}

// TestMcpSubprocess drives a real `hark mcp` process through the SDK's
// command transport, as a client starts it.
func TestMcpSubprocess(t *testing.T) {
	mcpHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "mcp")
	cmd.Env = append(os.Environ(), benchCLIEnv+"=1")
	c := mcp.NewClient(&mcp.Implementation{Name: "subprocess-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	r, err := callTool(ctx, t, cs, map[string]any{"command": "echo hello from hark"})
	if err != nil || r.isError || strings.TrimSpace(r.res.Output) != "hello from hark" {
		t.Errorf("safe call: %v, %s", err, r.text)
	}
	r, err = callTool(ctx, t, cs, map[string]any{"command": "rm -r " + t.TempDir()})
	if err != nil || !r.isError || !strings.Contains(r.res.Error, "start Hark to approve commands from subprocess-client") {
		t.Errorf("with no app: %v, %s", err, r.text)
	}
}

func TestMcpPrintConfig(t *testing.T) {
	self, err := harkPath()
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"claude", "claude-code", "cursor", "zed", "goose", "codex"} {
		var out, errb strings.Builder
		code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, []string{"mcp", "--print-config", client})
		path := strconv.Quote(self)
		if client == "claude-code" {
			path = shellQuote(self)
		}
		if code != exitOK || !strings.Contains(out.String(), path) || !strings.Contains(out.String(), "mcp") {
			t.Errorf("%s: exit %d, %s", client, code, out.String())
		}
		if (client == "claude" || client == "cursor" || client == "zed") && !json.Valid([]byte(out.String())) {
			t.Errorf("%s: not JSON: %s", client, out.String())
		}
		// A test binary, like go run's, lives in a go-build folder that
		// is deleted: the snippet would name a program that is gone.
		if temp := strings.Contains(self, string(filepath.Separator)+"go-build"); temp != strings.Contains(errb.String(), "temporary build") {
			t.Errorf("%s: path %s, temporary %v, but stderr %q", client, self, temp, errb.String())
		}
	}
	var errb strings.Builder
	if code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb}, []string{"mcp", "--print-config", "emacs"}); code != exitUsage || !strings.Contains(errb.String(), mcpClientList) {
		t.Errorf("an unknown client: exit %d, %s", code, errb.String())
	}
	if got := shellQuote("/a b/it's/hark"); got != `'/a b/it'\''s/hark'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// rawMCP is `hark mcp` in this process on pipes, spoken to line by line
// without the SDK's client, for what a real client would never send.
type rawMCP struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan int
}

func startRawMCP(t *testing.T) *rawMCP {
	t.Helper()
	r := startRawMCPVersion(t, "2025-06-18")
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// startRawMCPVersion starts the server and sends initialize asking for
// protocol version v; the reply is left to read.
func startRawMCPVersion(t *testing.T, v string) *rawMCP {
	t.Helper()
	return startRawMCPAnswered(t, v, v)
}

// startRawMCPAnswered is startRawMCPVersion where the server is to answer
// with version want.
func startRawMCPAnswered(t *testing.T, v, want string) *rawMCP {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawMCP{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan int, 1)}
	r.out.Buffer(nil, 8<<20)
	go func() {
		code := dispatch(context.Background(), &env{stdin: inR, stdout: outW, stderr: io.Discard}, []string{"mcp"})
		outW.Close()
		r.done <- code
	}()
	t.Cleanup(func() { inW.Close() })
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := r.read()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["protocolVersion"] != want {
		t.Fatalf("initialize for %s: %v, want %s", v, m, want)
	}
	return r
}

// TestMcpEveryProtocolVersion: initialize is answered in each protocol
// version the SDK supports, and the tool is listed in each. Versions from
// 2026-07-28 on have no initialize (the SDK discovers them otherwise), so
// an initialize asking for one gets the newest version that has it, as
// the specification's negotiation says.
func TestMcpEveryProtocolVersion(t *testing.T) {
	mcpHome(t)
	const stateless = "2026-07-28"
	newest := ""
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < stateless && v > newest {
			newest = v
		}
	}
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			want := v
			if v >= stateless {
				want = newest
			}
			r := startRawMCPAnswered(t, v, want)
			r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if m := r.read(); !strings.Contains(fmt.Sprint(m["result"]), agent.ToolName) {
				t.Errorf("tools/list in %s: %v", v, m)
			}
		})
	}
}

func (r *rawMCP) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("writing %q: %v", line, err)
	}
}

// read is the server's next message, decoded.
func (r *rawMCP) read() map[string]any {
	r.t.Helper()
	if !r.out.Scan() {
		r.t.Fatalf("the server closed its output (%v)", r.out.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(r.out.Bytes(), &m); err != nil {
		r.t.Fatalf("the server wrote no JSON: %q", r.out.Text())
	}
	return m
}

// TestMcpInvalidMessages: a line that is no JSON, or JSON that is no
// JSON-RPC message, or a call whose params or arguments have the wrong
// shape, is answered with a JSON-RPC error (or an error result) that says
// what is wrong, nothing runs, and the same session goes on serving.
func TestMcpInvalidMessages(t *testing.T) {
	mcpHome(t)
	r := startRawMCP(t)
	marker := filepath.Join(t.TempDir(), "ran")
	touch := strconv.Quote("touch " + marker)
	for _, tc := range []struct {
		name, line string
		code       float64 // the JSON-RPC error code; 0: an error result
		id         any
		want       string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call",`, -32700, nil, "not JSON"},
		{"binary", "\x00\xff\xfe", -32700, nil, "not JSON"},
		{"empty batch", `[]`, -32600, nil, "batches"},
		{"batch", `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_terminal_command","arguments":{"command":` + touch + `}}}]`, -32600, nil, "batches"},
		{"no version", `{"id":3,"method":"ping"}`, -32600, 3.0, "not a JSON-RPC 2.0 message"},
		{"a number", `42`, -32600, nil, "not a JSON-RPC 2.0 message"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil, "not a JSON-RPC 2.0 message"},
		{"params not an object", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"ls"}`, -32602, 4.0, ""},
		{"arguments a string", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_terminal_command","arguments":"ls"}}`, 0, 5.0, "one JSON object"},
		{"arguments an array", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"execute_terminal_command","arguments":[` + touch + `]}}`, 0, 6.0, "one JSON object"},
		{"command an array", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_terminal_command","arguments":{"command":[` + touch + `]}}}`, 0, 7.0, "must be a string"},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"tools/run"}`, -32601, 8.0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.t = t
			r.send(tc.line)
			m := r.read()
			if m["id"] != tc.id {
				t.Errorf("answered id %v, want %v: %v", m["id"], tc.id, m)
			}
			if tc.code != 0 {
				e, _ := m["error"].(map[string]any)
				if e == nil || e["code"] != tc.code || !strings.Contains(fmt.Sprint(e["message"]), tc.want) {
					t.Errorf("got %v, want error %v mentioning %q", m, tc.code, tc.want)
				}
				return
			}
			res, _ := m["result"].(map[string]any)
			if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), tc.want) {
				t.Errorf("got %v, want an error result mentioning %q", m, tc.want)
			}
		})
	}
	r.t = t
	if _, err := os.Stat(marker); err == nil {
		t.Error("a malformed call ran its command")
	}
	r.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"execute_terminal_command","arguments":{"command":"echo still here"}}}`)
	m := r.read()
	if m["id"] != "after" || !strings.Contains(fmt.Sprint(m["result"]), "still here") {
		t.Errorf("after the bad lines: %v", m)
	}
}

// TestMcpDisconnect: a client that closes stdin while one call runs and
// another waits for approval leaves neither behind: the command's process
// is killed, the approval leaves the menu, and hark mcp exits.
func TestMcpDisconnect(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	cs, done, stdin := startMCPPipe(t, "test-client")
	go func() { _, _ = callTool(context.Background(), t, cs, map[string]any{"command": "sleep 2718"}) }()
	go func() {
		_, _ = callTool(context.Background(), t, cs, map[string]any{"command": "touch " + filepath.Join(t.TempDir(), "x")})
	}()
	waitStarted(t, "sleep", "2718")
	a.pending(t, 1)
	stdin.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("hark mcp exited %d", code)
		}
	case <-time.After(mcpWait):
		t.Fatal("hark mcp did not exit when its client went away")
	}
	// hark mcp has returned, so nothing it started may still run.
	if processWith("sleep", "2718") {
		t.Error("the running command outlived hark mcp")
	}
	a.pending(t, 0)
}

// TestMcpKilledWithdrawsTheApproval: a hark mcp that dies at once (kill
// -9) still withdraws its waiting approval: the app sees its socket close.
// And SIGTERM, as a client sends when it quits, ends a running command
// before hark mcp exits.
func TestMcpKilledWithdrawsTheApproval(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(self, "mcp")
			cmd.Env = append(os.Environ(), benchCLIEnv+"=1")
			c := mcp.NewClient(&mcp.Implementation{Name: "doomed", Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			go func() {
				_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: map[string]any{"command": "rm -r " + t.TempDir()}})
			}()
			_, text := a.pending(t, 1)
			if !strings.Contains(text, "doomed asks:") {
				t.Errorf("the approval does not name the client:\n%s", text)
			}
			// Either way, a command already running dies with hark mcp:
			// after SIGTERM it is stopped, after SIGKILL (which nothing
			// can catch) the runner's parent-death signal ends it.
			{
				go func() {
					_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: map[string]any{"command": "sleep 1618"}})
				}()
				waitStarted(t, "sleep", "1618")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// The transport waits for the process itself (its Close runs
			// once, whoever calls it): a Wait here would be a second one.
			_ = cs.Close()
			if sig == syscall.SIGTERM && processWith("sleep", "1618") {
				t.Error("the running command outlived hark mcp")
			}
			waitGone(t, "the running command outlived hark mcp "+sig.String(), "sleep", "1618")
			a.pending(t, 0)
		})
	}
}

// TestMcpClientCannotDisguiseOrFlood: what a client puts in its name, its
// command or its purpose reaches the menu only as visible text; the
// purpose is one of the tool's three words, whatever was sent; and one
// session never has more than maxClientApprovals waiting: a further call
// is refused without asking, and says why.
func TestMcpClientCannotDisguiseOrFlood(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	cs, _ := startMCP(t, "Hark\x1b[8m\u202e")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results := make(chan callResult, maxClientApprovals)
	for i := range maxClientApprovals {
		go func() {
			r, err := callTool(ctx, t, cs, map[string]any{"command": fmt.Sprintf("touch f%d\x1b[2K\r$ ls", i), "workingDirectory": dir, "purpose": "\x1b]8;;https://evil\x07checking"})
			if err == nil {
				results <- r
			}
		}()
	}
	_, text := a.pending(t, maxClientApprovals)
	for _, bad := range []string{"\x1b", "\u202e", "\r", "evil"} {
		if strings.Contains(text, bad) {
			t.Errorf("the menu shows %q raw:\n%s", bad, text)
		}
	}
	if !strings.Contains(text, "“Hark") || !strings.Contains(text, "(another program) asks:") {
		t.Errorf("the approvals do not name the client as another program:\n%s", text)
	}
	r := mustCall(t, cs, map[string]any{"command": "touch one-more", "workingDirectory": dir})
	if !r.isError || r.res.Executed || !strings.Contains(r.res.Error, "already wait") {
		t.Errorf("past the limit: %s", r.text)
	}
	if _, text := a.pending(t, maxClientApprovals); strings.Contains(text, "one-more") {
		t.Error("the refused call reached the menu")
	}
	cancel()
	a.pending(t, 0)
	es, _, _ := agent.ReadAudit(paths.Audit)
	for _, e := range es {
		if e.Purpose != agent.PurposeDefault && e.Purpose != agent.PurposeChecking {
			t.Errorf("audit purpose %q", e.Purpose)
		}
	}
	if r := mustCall(t, cs, map[string]any{"command": "ls", "purpose": "\x1b[31mchecking"}); r.res.Purpose != agent.PurposeDefault {
		t.Errorf("the result's purpose is %q, want %q", r.res.Purpose, agent.PurposeDefault)
	}
}

// TestMcpFloorInAFolderUnderHome: the policy's floor sees a folder under
// home as ~/…, so that `cd .. && rm -rf *` in ~/src is the deletion of
// home it is: refused, never put to the user. (The voice loop classifies
// through the same agent code.)
func TestMcpFloorInAFolderUnderHome(t *testing.T) {
	a := startApp(t, mcpHome(t))
	cs, _ := startMCP(t, "test-client")
	home, _ := os.UserHomeDir()
	src := filepath.Join(home, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(home, "keep")
	if err := os.WriteFile(keep, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cd .. && rm -rf *", "env -C .. rm -rf *", "rm -rf ../*"} {
		r := mustCall(t, cs, map[string]any{"command": cmd, "workingDirectory": src})
		if r.res.Tier != shell.Forbidden || r.res.Executed || !r.isError {
			t.Errorf("%s in ~/src: %s", cmd, r.text)
		}
	}
	if _, text := a.pending(t, 0); strings.Contains(text, "rm -rf") {
		t.Errorf("a floor case was put to the user:\n%s", text)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("home lost a file")
	}
}

// TestMcpConfirmOffAndTimeout: confirmation off in the app does not reach
// MCP clients; with mcpConfirmOff too their commands run unasked, and a
// plain deletion under home then goes to the Trash; confirmTimeout bounds
// a client's approval as a spoken one's, and the timeout is a denial that
// leaves the menu.
func TestMcpConfirmOffAndTimeout(t *testing.T) {
	paths := mcpHome(t)
	home, _ := os.UserHomeDir()
	dir := t.TempDir()
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(paths.Settings, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	write(`{"confirmBeforeExecute": false}`)
	cs, _ := startMCP(t, "Cursor")
	if r := mustCall(t, cs, map[string]any{"command": "touch " + filepath.Join(dir, "a")}); r.res.Executed || !strings.Contains(r.res.Error, "start Hark") {
		t.Errorf("confirmation off alone: %s", r.text)
	}

	write(`{"confirmBeforeExecute": false, "mcpConfirmOff": true}`)
	cs, _ = startMCP(t, "Cursor")
	if r := mustCall(t, cs, map[string]any{"command": "touch " + filepath.Join(dir, "b")}); !r.res.Executed || r.isError {
		t.Errorf("with mcpConfirmOff: %s", r.text)
	}
	doomed := filepath.Join(home, "old.txt")
	if err := os.WriteFile(doomed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := mustCall(t, cs, map[string]any{"command": "rm ~/old.txt"}); r.res.Executed || !strings.Contains(r.res.Output, "Trash") {
		t.Errorf("an unasked deletion under home: %s", r.text)
	}
	if _, err := os.Stat(doomed); err == nil {
		t.Error("the file is still there")
	}

	write(`{"confirmTimeout": "5s"}`)
	a := startApp(t, paths)
	cs, _ = startMCP(t, "Cursor")
	res := make(chan callResult, 1)
	go func() { res <- mustCall(t, cs, map[string]any{"command": "touch " + filepath.Join(dir, "c")}) }()
	a.pending(t, 1)
	if r := <-res; r.res.Executed || !r.isError {
		t.Errorf("an unanswered approval: %s", r.text)
	}
	a.pending(t, 0)
	es, _, _ := agent.ReadAudit(paths.Audit)
	if last := es[len(es)-1]; last.Decision != agent.DecisionTimeout {
		t.Errorf("the unanswered approval is recorded as %q, want %q", last.Decision, agent.DecisionTimeout)
	}
}

// TestMcpCannotReachTheApprovalChannels: no command a client sends can
// answer an approval unasked: whatever talks to the session bus (the tray
// menu, the notifications), to Hark's control socket or to the X server
// needs the user's own approval, so with no app running it does not run.
func TestMcpCannotReachTheApprovalChannels(t *testing.T) {
	mcpHome(t)
	cs, _ := startMCP(t, "test-client")
	for _, cmd := range []string{
		"dbus-send --session --dest=org.freedesktop.Notifications / x",
		"busctl --user call a b c d", "gdbus call --session -d x -o / -m y", "dbus-monitor",
		"hark send approve it", "hark quit", "nc -U $XDG_RUNTIME_DIR/hark/control.sock",
		"socat - UNIX-CONNECT:/tmp/x", "curl --unix-socket /tmp/x http://a", "xdotool click 1",
	} {
		if r := mustCall(t, cs, map[string]any{"command": cmd}); r.res.Executed || r.res.Tier == shell.Safe {
			t.Errorf("%s: %s", cmd, r.text)
		}
	}
}

// TestMcpDeniedIsNotAskedAgain: a command the user denied is refused when
// the same client asks for it again, without a second approval; another
// command still asks.
func TestMcpDeniedIsNotAskedAgain(t *testing.T) {
	a := startApp(t, mcpHome(t))
	cs, _ := startMCP(t, "Cursor")
	dir := t.TempDir()
	args := map[string]any{"command": "touch  " + filepath.Join(dir, "x"), "workingDirectory": dir}
	res := make(chan callResult, 1)
	go func() { res <- mustCall(t, cs, args) }()
	ids, _ := a.pending(t, 1)
	a.click(t, app.PrefixDeny+ids[0])
	if r := <-res; r.res.Executed || !strings.Contains(r.res.Error, "denied") {
		t.Fatalf("the denied call: %s", r.text)
	}
	args["command"] = "touch " + filepath.Join(dir, "x") // the same command, spaced otherwise
	if r := mustCall(t, cs, args); r.res.Executed || !strings.Contains(r.res.Error, "already denied") {
		t.Errorf("asked again: %s", r.text)
	}
	if _, text := a.pending(t, 0); strings.Contains(text, "touch") {
		t.Errorf("the denied command was put to the user again:\n%s", text)
	}
	go func() {
		res <- mustCall(t, cs, map[string]any{"command": "touch " + filepath.Join(dir, "y"), "workingDirectory": dir})
	}()
	ids, _ = a.pending(t, 1)
	a.click(t, app.PrefixApprove+ids[0])
	if r := <-res; !r.res.Executed {
		t.Errorf("another command: %s", r.text)
	}
}

// TestMcpSecretReadsHeldByTheKernel: through the real server, runner and
// sandbox, a client's read-only command that reads a key in ~/.ssh (by
// name, by a pattern from home, through a link from elsewhere, in a
// recursive search) or Hark's settings never gives the client the key,
// and nobody is asked to let it; listing the folder's names still runs.
func TestMcpSecretReadsHeldByTheKernel(t *testing.T) {
	paths := mcpHome(t)
	home := os.Getenv("HOME")
	const key = "-----BEGIN OPENSSH PRIVATE KEY-----FAKE"
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh/id_rsa"), []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(paths.Settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.Settings, []byte(`{"openaiAPIKey":"`+key+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(filepath.Join(home, ".ssh"), link); err != nil {
		t.Fatal(err)
	}
	cs, _ := startMCP(t, "Claude Desktop")
	for _, c := range []map[string]any{
		{"command": "cat ~/.ssh/id_rsa"},
		{"command": "cat .s*/id*", "workingDirectory": home},
		{"command": "base64 -d <<< $(base64 " + link + "/id_rsa)"},
		{"command": "grep -r BEGIN ~"},
		{"command": "cat " + paths.Settings},
	} {
		r := mustCall(t, cs, c)
		if strings.Contains(r.text, "FAKE") || strings.Contains(r.res.Error, "start Hark to approve") {
			t.Errorf("%v: the key was read, or put to the user: %s", c["command"], r.text)
		}
	}
	r := mustCall(t, cs, map[string]any{"command": "ls ~/.ssh"})
	if !r.res.Executed || !strings.Contains(r.res.Output, "id_rsa") {
		t.Errorf("ls ~/.ssh: %s", r.text)
	}
}

// TestMcpCancelledIsNotAnswered: after notifications/cancelled the
// request gets no response at all — not while its command runs, not while
// its approval waits, not once the session ends — its command's process
// is gone, and the requests around it are answered as usual. Numeric and
// string ids alike.
func TestMcpCancelledIsNotAnswered(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	r := startRawMCP(t)
	call := func(id, command string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"execute_terminal_command","arguments":{"command":` + strconv.Quote(command) + `}}}`
	}
	cancelOf := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`
	}
	var seen []map[string]any
	readUntil := func(id any) {
		t.Helper()
		for {
			m := r.read()
			seen = append(seen, m)
			if m["id"] == id {
				return
			}
		}
	}
	// A running command, cancelled.
	r.send(call("10", "sleep 3142"))
	waitStarted(t, "sleep", "3142")
	r.send(cancelOf("10"))
	waitGone(t, "after cancelling", "sleep", "3142")
	r.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	readUntil(11.0)
	// A waiting approval, cancelled, with a string id.
	r.send(call(`"wait-12"`, "touch "+filepath.Join(t.TempDir(), "x")))
	a.pending(t, 1)
	r.send(cancelOf(`"wait-12"`))
	a.pending(t, 0)
	r.send(call("13", "echo after"))
	readUntil(13.0)
	// Once the session ends, everything it had to say has been written.
	r.in.Close()
	for r.out.Scan() {
		var m map[string]any
		if err := json.Unmarshal(r.out.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote no JSON: %q", r.out.Text())
		}
		seen = append(seen, m)
	}
	<-r.done
	var ids []any
	for _, m := range seen {
		if id, ok := m["id"]; ok {
			ids = append(ids, id)
		}
	}
	if fmt.Sprint(ids) != "[11 13]" {
		t.Errorf("responses for ids %v, want only 11 and 13: %v", ids, seen)
	}
	if !strings.Contains(fmt.Sprint(seen[len(seen)-1]), "after") {
		t.Errorf("the call after the cancels: %v", seen[len(seen)-1])
	}
}

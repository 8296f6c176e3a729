package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
)

// startRawMCPNoInit starts `hark mcp` on pipes and sends nothing: a
// client at protocol 2026-07-28 has no initialize, and says who it is in
// the _meta of server/discover and of every request.
func startRawMCPNoInit(t *testing.T) *rawMCP {
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
	return r
}

// meta2026 is the _meta a 2026-07-28 client sends with each request.
func meta2026(client string) string {
	m, _ := json.Marshal(map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": client, "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	})
	return string(m)
}

// TestMcpClientNameIsFixedForTheSession: at protocol 2026-07-28 a client
// names itself in every server/discover and every request. The name the
// session first learned is the one every later approval and audit entry
// shows: a second server/discover, or a call claiming another name, must
// not make the user approve "Claude Desktop"'s command as if another
// program (or Hark) asked.
func TestMcpClientNameIsFixedForTheSession(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	r := startRawMCPNoInit(t)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + meta2026("Cursor") + `}}`)
	if m := r.read(); m["result"] == nil {
		t.Fatalf("server/discover: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":` + meta2026("Claude Desktop") + `}}`)
	if m := r.read(); m["result"] == nil {
		t.Fatalf("the second server/discover: %v", m)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "approved")
	args, _ := json.Marshal(map[string]any{"command": "touch " + marker, "workingDirectory": dir})
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":` + meta2026("Claude Desktop") +
		`,"name":` + strconv.Quote(agent.ToolName) + `,"arguments":` + string(args) + `}}`)
	ids, text := a.pending(t, 1)
	if !strings.Contains(text, "Cursor asks:") || strings.Contains(text, "Claude Desktop") {
		t.Errorf("the approval does not name the client the session began as (Cursor):\n%s", text)
	}
	a.click(t, app.PrefixApprove+ids[0])
	if m := r.read(); m["result"] == nil {
		t.Fatalf("tools/call: %v", m)
	}
	es, _, err := agent.ReadAudit(paths.Audit)
	if err != nil || len(es) != 1 {
		t.Fatalf("audit: %v, %+v", err, es)
	}
	if es[0].Client != "Cursor" {
		t.Errorf("the audit log names the client %q, want Cursor", es[0].Client)
	}
}

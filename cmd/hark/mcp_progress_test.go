package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
)

// fakeTicker is a ticker the test drives, and which says when it stopped.
type fakeTicker struct {
	c       chan time.Time
	mu      sync.Mutex
	stopped bool
	every   time.Duration
}

func (f *fakeTicker) C() <-chan time.Time { return f.c }
func (f *fakeTicker) Stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

func (f *fakeTicker) isStopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

// fakeTickers replaces the progress ticker for one test and hands each
// one made to the test.
func fakeTickers(t *testing.T) <-chan *fakeTicker {
	t.Helper()
	made := make(chan *fakeTicker, 8)
	old := newProgressTicker
	newProgressTicker = func(d time.Duration) progressTicker {
		f := &fakeTicker{c: make(chan time.Time), every: d}
		made <- f
		return f
	}
	t.Cleanup(func() { newProgressTicker = old })
	return made
}

// TestMcpProgressWhileApprovalWaits: a call that asked for progress (a
// progressToken in _meta) gets notifications/progress carrying its token
// while its approval waits — one when the wait starts, one per tick,
// counting up — and none once the user has answered; a call that did not
// ask gets none.
func TestMcpProgressWhileApprovalWaits(t *testing.T) {
	paths := mcpHome(t)
	a := startApp(t, paths)
	made := fakeTickers(t)
	r := startRawMCP(t)
	dir := t.TempDir()
	call := func(id, meta, file string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + meta + `"name":"execute_terminal_command","arguments":{"command":` +
			strconv.Quote("touch "+filepath.Join(dir, file)) + `}}}`
	}
	progress := func(want float64) {
		t.Helper()
		m := r.read()
		p, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/progress" || p["progressToken"] != "tok-7" || p["progress"] != want ||
			!strings.Contains(fmt.Sprint(p["message"]), "approval") {
			t.Fatalf("want progress %v for tok-7, got %v", want, m)
		}
	}

	r.send(call("1", `"_meta":{"progressToken":"tok-7"},`, "a"))
	var tk *fakeTicker
	select {
	case tk = <-made:
	case <-time.After(mcpWait):
		t.Fatal("no progress ticker was started for a call that asked for progress")
	}
	if tk.every <= 0 || tk.every >= 60*time.Second {
		t.Errorf("progress every %v: a client that gives up after 60 s without progress would give up", tk.every)
	}
	progress(1)
	ids, _ := a.pending(t, 1)
	tk.c <- time.Now()
	progress(2)
	tk.c <- time.Now()
	progress(3)
	a.click(t, app.PrefixApprove+ids[0])
	if m := r.read(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("after the answer, want the result, got %v", m)
	}
	if !tk.isStopped() {
		t.Error("the progress ticker still runs after the answer")
	}
	select {
	case tk.c <- time.Now():
		t.Error("progress is still being sent after the answer")
	case <-time.After(100 * time.Millisecond):
	}

	// Without a token: no ticker, no progress, only the result.
	r.send(call("2", "", "b"))
	ids, _ = a.pending(t, 1)
	a.click(t, app.PrefixApprove+ids[0])
	if m := r.read(); m["id"] != 2.0 {
		t.Fatalf("a call without a progress token got %v", m)
	}
	select {
	case <-made:
		t.Error("a ticker was started for a call that did not ask for progress")
	default:
	}
	// A read-only command asks nobody: no progress either.
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"tok-8"},"name":"execute_terminal_command","arguments":{"command":"true"}}}`)
	if m := r.read(); m["id"] != 3.0 {
		t.Fatalf("a safe call got %v", m)
	}
}

// TestMcpPrintConfigTimeouts: every snippet whose client has a setting
// for how long a tool call may take sets it past the longest a call can
// take here — the approval's confirmTimeout plus the preview and the
// command's time limit — derived from the settings, not written in.
func TestMcpPrintConfigTimeouts(t *testing.T) {
	for _, tc := range []struct {
		settings string
		secs     int
	}{
		{``, 190},
		{`{"confirmTimeout": "10m", "commandTimeout": "1m"}`, 700},
		{`{"confirmTimeout": "5s", "commandTimeout": "1s"}`, 40},
	} {
		t.Run(strconv.Itoa(tc.secs), func(t *testing.T) {
			paths := mcpHome(t)
			if tc.settings != "" {
				if err := os.MkdirAll(filepath.Dir(paths.Settings), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(paths.Settings, []byte(tc.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s := strconv.Itoa(tc.secs)
			for client, want := range map[string]string{
				"codex":       "\ntool_timeout_sec = " + s + "\n",
				"goose":       "\n    timeout: " + s + "\n",
				"zed":         `"timeout": ` + s + "\n",
				"claude-code": `"MCP_TOOL_TIMEOUT": "` + s + `000"`,
			} {
				var out, errb strings.Builder
				if code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, []string{"mcp", "--print-config", client}); code != exitOK {
					t.Fatalf("%s: exit %d: %s", client, code, errb.String())
				}
				if !strings.Contains(out.String(), want) {
					t.Errorf("%s: want %q in\n%s", client, want, out.String())
				}
				if client == "zed" {
					var v map[string]map[string]map[string]any
					if err := json.Unmarshal([]byte(out.String()), &v); err != nil || v["context_servers"]["hark"]["timeout"] != float64(tc.secs) {
						t.Errorf("zed: %v, %s", err, out.String())
					}
				}
			}
			for _, client := range []string{"claude", "cursor"} {
				var out, errb strings.Builder
				dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, []string{"mcp", "--print-config", client})
				if !strings.Contains(errb.String(), "no setting") || !strings.Contains(errb.String(), "progress") {
					t.Errorf("%s: stderr does not say that the client has no timeout setting: %s", client, errb.String())
				}
			}
		})
	}
}

// TestAuditTableNamesLookalikesAsOtherPrograms: hark audit shows a client
// that calls itself Hark, in any disguise, as the approval did.
func TestAuditTableNamesLookalikesAsOtherPrograms(t *testing.T) {
	for _, name := range []string{"Hark", "Ｈａｒｋ", "Нark", "H\u200bark.app", " hark (Hark)"} {
		var b strings.Builder
		writeAuditTable(&b, []agent.AuditEntry{{Command: "ls", Client: name, Decision: agent.DecisionAuto}})
		if !strings.Contains(b.String(), "(another program)") {
			t.Errorf("%q: %s", name, b.String())
		}
	}
}

// TestMcpProgressWhenNobodyCanBeAsked: with no app to ask, a call that
// asked for progress gets its note and then its result at once.
func TestMcpProgressWhenNobodyCanBeAsked(t *testing.T) {
	mcpHome(t)
	r := startRawMCP(t)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":5},"name":"execute_terminal_command","arguments":{"command":"touch ` + filepath.Join(t.TempDir(), "x") + `"}}}`)
	got := make(chan map[string]any, 1)
	go func() {
		for {
			if m := r.read(); m["id"] != nil {
				got <- m
				return
			}
		}
	}()
	select {
	case m := <-got:
		if !strings.Contains(fmt.Sprint(m["result"]), "not-asked") {
			t.Errorf("the result: %v", m)
		}
	case <-time.After(mcpWait):
		t.Fatal("the call never got its result")
	}
}

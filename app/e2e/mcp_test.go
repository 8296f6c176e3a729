//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

// mcpClient is a real MCP client (the SDK's) that starts `hark mcp` as a
// subprocess, as Claude Desktop or Cursor does, beside the running app.
type mcpClient struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

func startMCPClient(t *testing.T, h *hark, name string) *mcpClient {
	t.Helper()
	cmd := exec.Command(harkBin, "mcp")
	cmd.Env = h.env
	cmd.Stderr = h.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to hark mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{cs: cs, cmd: cmd}
}

type mcpResult struct {
	res     shell.Result
	isError bool
	err     error
}

// call runs one tools/call of the terminal tool in the background.
func (c *mcpClient) call(ctx context.Context, args map[string]any) <-chan mcpResult {
	out := make(chan mcpResult, 1)
	go func() {
		r, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: args})
		if err != nil {
			out <- mcpResult{err: err}
			return
		}
		var res mcpResult
		res.isError = r.IsError
		if len(r.Content) == 1 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				res.err = json.Unmarshal([]byte(tc.Text), &res.res)
			}
		}
		out <- res
	}()
	return out
}

func wait(t *testing.T, ch <-chan mcpResult) mcpResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("tools/call: %v", r.err)
		}
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("tools/call got no answer")
	}
	return mcpResult{}
}

// TestMCP: another agent drives `hark mcp` over stdio while the app runs
// under the private session bus with the fake notification server: a safe
// call runs at once, a deletion waits in the tray menu and the
// notification under the client's name and runs after Approve, a denial
// from the notification comes back as a denial, and a client that goes
// away takes its approval out of the menu and the notifications.
func TestMCP(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()
	c := startMCPClient(t, h, "Claude Desktop")
	ctx := context.Background()

	t.Run("safe call runs at once", func(t *testing.T) {
		h.t = t
		r := wait(t, c.call(ctx, map[string]any{"command": "ls", "workingDirectory": d.work}))
		if r.isError || !r.res.Executed || r.res.Tier != shell.Safe || !strings.Contains(r.res.Output, "existing-file") {
			t.Errorf("safe call: isError %v, %+v", r.isError, r.res)
		}
		if root, err := h.menu.Layout(); err == nil {
			if _, ok := root.Find("Pending approval"); ok {
				t.Error("a safe call was put to the user")
			}
		}
	})

	t.Run("deletion approved from the tray menu", func(t *testing.T) {
		h.t = t
		victim := filepath.Join(d.work, "mcp-victim")
		if err := os.WriteFile(victim, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		res := c.call(ctx, map[string]any{"command": "rm " + victim, "workingDirectory": d.work})
		n := approvalFor(t, d.notes, "rm "+victim)
		if n.Summary != "Claude Desktop wants to run a command" {
			t.Errorf("notification title %q, want the client's name", n.Summary)
		}
		h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
		h.menu.WaitFor(t, 5*time.Second, "Claude Desktop asks:")
		if !exists(victim) {
			t.Fatal("the deletion ran before it was approved")
		}
		h.menu.ClickUntil(t, 30*time.Second, "Approve", func() error {
			if exists(victim) {
				return errors.New("not deleted yet")
			}
			return nil
		})
		r := wait(t, res)
		if r.isError || !r.res.Executed || r.res.ExitCode != 0 {
			t.Errorf("approved call: isError %v, %+v", r.isError, r.res)
		}
		if e := h.waitAudit(victim, "approved"); e.DecidedBy != "menu" || !e.Executed {
			t.Errorf("audit = %+v, want approved from the menu and executed", e)
		}
		closed(t, d.notes, n.ID)
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
	})

	t.Run("a plain deletion under home goes to the Trash from the menu", func(t *testing.T) {
		h.t = t
		report := filepath.Join(h.home, "mcp-report.txt")
		if err := os.WriteFile(report, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		res := c.call(ctx, map[string]any{"command": "rm ~/mcp-report.txt"})
		n := approvalWith(t, d.notes, "rm ~/mcp-report.txt", "Move to Trash (safe choice)")
		h.menu.ClickUntil(t, 30*time.Second, "Move to Trash (safe choice)", func() error {
			if exists(report) {
				return errors.New("not moved yet")
			}
			return nil
		})
		r := wait(t, res)
		trashed := filepath.Join(h.home, ".local", "share", "Trash", "files", "mcp-report.txt")
		if r.isError || !exists(trashed) {
			t.Errorf("after Move to Trash: isError %v, in the Trash %v, %+v", r.isError, exists(trashed), r.res)
		}
		if e := h.waitAudit("mcp-report.txt", "trashed"); e.DecidedBy != "menu" || len(e.Trashed) != 1 {
			t.Errorf("audit = %+v, want trashed from the menu", e)
		}
		closed(t, d.notes, n.ID)
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
	})

	t.Run("a command naming home by its path is shown as it runs", func(t *testing.T) {
		h.t = t
		abs := filepath.Join(h.home, "Videos", "big_video_backup.mp4")
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		res := c.call(ctx, map[string]any{"command": "rm " + abs})
		n := approvalWith(t, d.notes, "rm "+abs, "Deny")
		legend := "~ is your home folder, " + h.home
		if !strings.HasPrefix(n.Body, "rm "+abs+"\n") || !strings.Contains(n.Body, "\nin ~\n"+legend) {
			t.Errorf("the approval does not keep the command and say what ~ is:\n%s", n.Body)
		}
		h.menu.WaitFor(t, 20*time.Second, legend)
		if err := d.notes.Invoke(n.ID, n.ActionKey("Deny")); err != nil {
			t.Fatal(err)
		}
		if r := wait(t, res); !r.isError || r.res.Executed || !exists(abs) {
			t.Errorf("denied call: %+v", r.res)
		}
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
	})

	t.Run("denied from the notification", func(t *testing.T) {
		h.t = t
		marker := filepath.Join(d.work, "mcp-denied")
		res := c.call(ctx, map[string]any{"command": "touch " + marker, "workingDirectory": d.work})
		n := approvalWith(t, d.notes, "touch "+marker, "Deny (safe choice)")
		if err := d.notes.Invoke(n.ID, n.ActionKey("Deny (safe choice)")); err != nil {
			t.Fatal(err)
		}
		r := wait(t, res)
		if !r.isError || r.res.Executed || !strings.Contains(r.res.Error, "denied") {
			t.Errorf("denied call: isError %v, %+v", r.isError, r.res)
		}
		if exists(marker) {
			t.Error("the denied command ran")
		}
		if e := h.waitAudit(marker, "denied"); e.DecidedBy != "notification" {
			t.Errorf("audit = %+v, want denied from the notification", e)
		}
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
	})

	t.Run("a client that goes away withdraws its approval", func(t *testing.T) {
		h.t = t
		gone := startMCPClient(t, h, "Short Lived")
		marker := filepath.Join(d.work, "mcp-orphan")
		gone.call(ctx, map[string]any{"command": "touch " + marker, "workingDirectory": d.work})
		n := approvalFor(t, d.notes, "touch "+marker)
		h.menu.WaitFor(t, 20*time.Second, "Short Lived asks:")
		// The client dies without a word: its hark mcp goes with it.
		if err := gone.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
		closed(t, d.notes, n.ID)
		if exists(marker) {
			t.Error("the withdrawn command ran")
		}
	})
}

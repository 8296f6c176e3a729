package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hark-sh/hark/agent"
)

// BenchmarkMcpSafeCall times the round trip of a safe call, `true`, sent
// by the SDK's client to a running `hark mcp` process (started once, as a
// client keeps it), against a whole `hark exec -- true` process of the
// same command, one after the other in the same loop, and reports
// exec/mcp: how much a client saves by keeping Hark running over starting
// hark exec for each command. Both run the command in the read-only
// sandbox and write the audit log.
func BenchmarkMcpSafeCall(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	home, work := b.TempDir(), b.TempDir()
	env := append(os.Environ(), benchCLIEnv+"=1", "HARK_HOME="+home, "HOME="+home)
	cmd := exec.Command(self, "mcp")
	cmd.Env = env
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"command": "true", "workingDirectory": work}
	var viaMCP, viaExec time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolName, Arguments: args})
		if err != nil || r.IsError {
			b.Fatalf("tools/call: %v %+v", err, r)
		}
		viaMCP += time.Since(start)

		e := exec.Command(self, "exec", "--dir", work, "--", "true")
		e.Env = env
		start = time.Now()
		if out, err := e.CombinedOutput(); err != nil {
			b.Fatalf("hark exec: %v\n%s", err, out)
		}
		viaExec += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(viaMCP.Microseconds())/n/1000, "mcp-ms")
	b.ReportMetric(float64(viaExec.Microseconds())/n/1000, "exec-ms")
	b.ReportMetric(float64(viaExec)/float64(viaMCP), "x-exec/mcp")
}

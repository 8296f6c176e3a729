//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// tsSDK is the node_modules folder that holds the pinned TypeScript
// package pkg at version (.ci/run installs both SDK generations there
// from testdata/mcpclient's lock file), or "" with why not.
func tsSDK(pkg, version string) (string, string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not installed"
	}
	dir := os.Getenv("HARK_E2E_NODE_MODULES")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "hark-e2e", "mcpclient", "node_modules")
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return "", pkg + " is not installed in " + dir + " (run .ci/run's npm step, or set HARK_E2E_NODE_MODULES)"
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil || p.Version != version {
		return "", pkg + " in " + dir + " is " + p.Version + ", not the pinned " + version + " (run npm ci from app/e2e/testdata/mcpclient)"
	}
	return dir, ""
}

// runningArgs reports whether a live process has exactly these arguments.
func runningArgs(args ...string) bool {
	want := strings.Join(args, "\x00") + "\x00"
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || string(b) != want {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		return true
	}
	return false
}

type tsStep struct {
	Step       string            `json:"step"`
	Tools      []json.RawMessage `json:"tools"`
	IsError    bool              `json:"isError"`
	Structured map[string]any    `json:"structured"`
	Text       string            `json:"text"`
	Thrown     string            `json:"thrown"`
	Count      int               `json:"count"`
	Errors     []string          `json:"errors"`
	Era        string            `json:"era"`
	Version    string            `json:"version"`
}

// TestMCPTypeScriptClient: the official TypeScript SDK, a client Hark did
// not write, drives `hark mcp` beside the running app: it lists the tool,
// a safe call runs, a forbidden one is refused, bad arguments are an
// error result, a call that needs approval waits (with progress) until
// Approve in the tray menu, and a cancelled call stops its command and
// gets no late answer, which the SDK would report as an error. The SDK
// checks each structuredContent against the tool's outputSchema itself.
func TestMCPTypeScriptClient(t *testing.T) {
	testTSClient(t, "@modelcontextprotocol/sdk", "1.32.2", "mcpclient.mjs", "TypeScript Client", "")
}

// TestMCPTypeScriptClientV2: the same session from the SDK's second
// generation, @modelcontextprotocol/client, pinned to protocol
// 2026-07-28: no initialize, a server/discover probe, the client's name
// in every request's _meta, no ping. The tray must still name the client
// and the cancel must still stop the command.
func TestMCPTypeScriptClientV2(t *testing.T) {
	testTSClient(t, "@modelcontextprotocol/client", "2.4.0", "mcpclient2.mjs", "TypeScript Client v2", "2026-07-28")
}

// testTSClient runs one of testdata's client scripts against hark mcp
// beside the running app and checks each step it reports; protocol, when
// set, is the version the client must have settled on.
func testTSClient(t *testing.T, pkg, version, scriptName, client, protocol string) {
	sdk, why := tsSDK(pkg, version)
	if sdk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()
	script, err := filepath.Abs(filepath.Join("testdata", scriptName))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script)
	cmd.Env = append(append([]string{}, h.env...), "HARK_BIN="+harkBin, "HARK_WORK="+d.work, "HARK_MCP_SDK="+sdk)
	cmd.Stderr = h.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd.WaitDelay = 10 * time.Second // hark mcp, its child, may hold stderr a moment longer
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	steps := make(chan tsStep)
	go func() {
		defer close(steps)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var s tsStep
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Errorf("the client wrote %q", sc.Text())
				continue
			}
			steps <- s
		}
	}()
	next := func(want string) tsStep {
		t.Helper()
		select {
		case s, ok := <-steps:
			if !ok {
				t.Fatalf("the client ended before %q (stderr: %s)", want, h.stderr.String())
			}
			if s.Step != want {
				t.Fatalf("step %q, want %q: %+v", s.Step, want, s)
			}
			if s.Thrown != "" && want != "cancelled" {
				t.Fatalf("%s: the client threw %s", want, s.Thrown)
			}
			return s
		case <-time.After(90 * time.Second):
			t.Fatalf("the client never reached %q (stderr: %s)", want, h.stderr.String())
		}
		return tsStep{}
	}
	decision := func(s tsStep) string { d, _ := s.Structured["decision"].(string); return d }

	if c := next("connected"); protocol != "" && c.Version != protocol {
		t.Errorf("the client settled on protocol %q (era %q), want %s", c.Version, c.Era, protocol)
	}
	if l := next("list"); len(l.Tools) != 1 || !strings.Contains(string(l.Tools[0]), `"destructiveHint":true`) || !strings.Contains(string(l.Tools[0]), `"outputSchema"`) {
		t.Errorf("tools/list: %s", l.Tools)
	}
	if s := next("safe"); s.IsError || decision(s) != "auto" || !strings.Contains(s.Text, "existing-file") {
		t.Errorf("safe: %+v", s)
	}
	if s := next("forbidden"); !s.IsError || decision(s) != "refused" {
		t.Errorf("forbidden: %+v", s)
	}
	for _, step := range []string{"bad arguments", "bad folder"} {
		if s := next(step); !s.IsError || decision(s) != "invalid" {
			t.Errorf("%s: %+v", step, s)
		}
	}

	next("approval asked")
	marker := filepath.Join(d.work, "ts-approved")
	// The body may wrap a long command anywhere: compare without the
	// breaks.
	flat := func(s string) string { return strings.Join(strings.Fields(s), "") }
	harness.Eventually(t, 30*time.Second, "the approval notification", func() error {
		for _, n := range d.notes.All() {
			if strings.Contains(flat(n.Body), flat("touch "+marker)) && n.ActionKey("Approve") != "" {
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	h.menu.WaitFor(t, 20*time.Second, client+" asks:")
	h.menu.ClickUntil(t, 30*time.Second, "Approve", func() error {
		if !exists(marker) {
			return errors.New("not run yet")
		}
		return nil
	})
	if s := next("approval"); s.IsError || decision(s) != "approved" {
		t.Errorf("approved: %+v", s)
	}
	if p := next("progress"); p.Count < 1 {
		t.Errorf("the client saw %d progress notes while the approval waited", p.Count)
	}
	h.menu.WaitGone(t, 20*time.Second, "Pending approval")

	next("cancel ready")
	deadline := time.Now().Add(60 * time.Second)
	for !runningArgs("sleep", "2719") {
		if time.Now().After(deadline) {
			t.Fatal("the command to cancel never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := io.WriteString(stdin, "cancel\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close() // nothing more to say: the client may end once done
	if s := next("cancelled"); s.Thrown == "" {
		t.Errorf("the cancelled call returned a result: %+v", s)
	}
	for runningArgs("sleep", "2719") {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled command still runs")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := next("after"); s.IsError || !strings.Contains(s.Text, "still here") {
		t.Errorf("after the cancel: %+v", s)
	}
	if s := next("done"); len(s.Errors) != 0 {
		t.Errorf("the client reported errors: %q", s.Errors)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the client exited: %v", err)
	}
	t.Logf("%s's session took %v", client, time.Since(start).Round(time.Millisecond))
}

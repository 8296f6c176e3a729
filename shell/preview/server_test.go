package preview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
)

// TestServerServesEveryFolder: one preview server answers previews in
// different folders, each seen from its own folder, whatever came before.
func TestServerServesEveryFolder(t *testing.T) {
	if !sandboxed(t) {
		t.Skip("no sandbox on this system, so no preview server starts; TestPreviewerRunsInTheSandbox covers the refusal")
	}
	a, b := tree(t, "x:3", "sub/y:1"), tree(t, "x:5")
	p := New(Options{Timeout: generous})
	defer p.Close()
	for _, c := range []struct{ dir, want string }{
		{a, "Deletes 1 file, 3 B"}, {b, "Deletes 1 file, 5 B"}, {a, "Deletes 1 file, 3 B"},
		{filepath.Join(a, "sub"), ""}, // no x there
	} {
		got := p.Preview(context.Background(), "rm x", c.dir)
		if c.want == "" {
			check(t, "rm x in "+c.dir, got, want{status: Nothing, lines: []string{"x: no such file or folder"}})
			continue
		}
		check(t, "rm x in "+c.dir, got, want{status: Shown, summary: c.want})
	}
	p.servers.mu.Lock()
	started, idle := p.servers.started, append([]*server(nil), p.servers.idle...)
	p.servers.mu.Unlock()
	if started != 1 || len(idle) != 1 {
		t.Fatalf("%d servers started, %d idle; want one server for every preview", started, len(idle))
	}
	p.Close()
	select {
	case <-idle[0].svc.Done():
	case <-time.After(generous):
		t.Fatal("the preview server outlived Close")
	}
}

// protocolScript is a stand-in preview server: it says it is ready and
// answers every request with whether it could write beside the test's
// files, running the shell code before ahead of each answer and after
// behind it.
func protocolScript(t *testing.T, before, after string) (script, canary string) {
	dir := t.TempDir()
	canary = filepath.Join(dir, "written")
	script = filepath.Join(dir, "server")
	body := "#!/bin/sh\n" +
		"[ \"$1 $2\" = '" + HelperCommand + " " + ServerArg + "' ] || exit 3\n" +
		"printf '%s\\n' '" + serverReady + "'\n" +
		"while read -r line <&1; do\n" +
		"  if touch '" + canary + "' 2>/dev/null; then s=wrote; else s=confined; fi\n" +
		"  " + before + "\n" +
		`  printf '{"preview":{"status":"shown","summary":"server %s"}}\n' "$s"` + "\n" +
		"  " + after + "\n" +
		"done\n"
	exectest.WriteProgram(t, script, []byte(body), 0o755)
	return script, canary
}

// TestServerIsConfined: what answers is the server (the one-shot form of
// the script would fail), and it runs in the read-only sandbox.
func TestServerIsConfined(t *testing.T) {
	if !sandboxed(t) {
		t.Skip("no sandbox on this system, so no preview server starts")
	}
	script, canary := protocolScript(t, ":", ":")
	p := New(Options{Timeout: generous, Executable: script})
	defer p.Close()
	check(t, "confined server", p.Preview(context.Background(), "rm -rf x", t.TempDir()), want{status: Shown, summary: "server confined"})
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("the preview server wrote a file: it ran outside the sandbox")
	}
}

// TestServerRestarts: a server that ended since its last answer is
// replaced, and the preview does not notice.
func TestServerRestarts(t *testing.T) {
	if !sandboxed(t) {
		t.Skip("no sandbox on this system, so no preview server starts")
	}
	script, _ := protocolScript(t, ":", "exit 0") // one answer each
	p := New(Options{Timeout: generous, Executable: script})
	defer p.Close()
	for i := 0; i < 3; i++ {
		check(t, "preview after the server ended", p.Preview(context.Background(), "rm -rf x", t.TempDir()), want{status: Shown, summary: "server confined"})
	}
}

// TestServerThatHangsIsEnded: a server that does not answer in time makes
// the preview unavailable, and is ended rather than asked again.
func TestServerThatHangsIsEnded(t *testing.T) {
	if !sandboxed(t) {
		t.Skip("no sandbox on this system, so no preview server starts")
	}
	script, _ := protocolScript(t, "sleep 60", ":")
	p := New(Options{Timeout: 200 * time.Millisecond, Executable: script})
	defer p.Close()
	p.Warm()
	var s *server
	for start := time.Now(); s == nil; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > generous {
			t.Fatal("Warm started no server")
		}
		p.servers.mu.Lock()
		if len(p.servers.idle) > 0 {
			s = p.servers.idle[0]
		}
		p.servers.mu.Unlock()
	}
	got := p.Preview(context.Background(), "rm -rf x", t.TempDir())
	check(t, "hung server", got, want{status: Unavailable})
	if !strings.Contains(got.Summary, "longer than") {
		t.Errorf("summary %q does not say the time ran out", got.Summary)
	}
	select {
	case <-s.svc.Done():
	case <-time.After(generous):
		t.Fatal("the server that did not answer is still running")
	}
}

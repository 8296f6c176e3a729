package shell

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServiceIsConfined: a service runs in the read-only sandbox like a
// safe command, and, once started, cannot even write its own temporary
// folder, which is gone; it talks over its stdout, which is a socket it
// can also read; Close ends it.
func TestServiceIsConfined(t *testing.T) {
	requireLandlock(t)
	dir := t.TempDir()
	canary := filepath.Join(dir, "written")
	r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: dir})
	script := `read -r word <&1
for f in '` + canary + `' "$TMPDIR/x"; do
  if touch "$f" 2>/dev/null; then echo "$word wrote $f"; else echo "$word confined"; fi
done
grep -E '^(NoNewPrivs|Seccomp|CapEff):' /proc/self/status | tr -s '\t ' ' '
sleep 60`
	s, err := r.StartService([]string{"/bin/sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Conn().SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := s.Conn().Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	in := bufio.NewReader(s.Conn())
	var got []string
	for len(got) < 5 {
		line, err := in.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, strings.TrimSpace(line))
	}
	want := []string{"hello confined", "hello confined", "CapEff: 0000000000000000", "NoNewPrivs: 1", "Seccomp: 2"} // in /proc's order
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the service said\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the service wrote outside the sandbox")
	}
	s.Close()
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the service and its sleep outlived Close")
	}
}

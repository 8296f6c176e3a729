package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// The agent sits below the app: it must not import app packages (the
// atomic writer is injected), and test kits stay out of its build.
func TestDependencies(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies:", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/hark-sh/hark/agent").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/hark-sh/hark/app") || strings.HasSuffix(dep, "/ollamatest") {
			t.Errorf("agent depends on %s", dep)
		}
	}
}

package policy

import (
	"os/exec"
	"strings"
	"testing"
)

// The policy must stay reviewable on its own: it may import the shell
// parser (and what the parser itself needs) and the standard library,
// nothing that runs commands or reaches the network on its behalf.
func TestDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	allowed := map[string]bool{
		"github.com/hark-sh/hark/shell/policy": true,
		"mvdan.cc/sh/v3/syntax":                true,
		"mvdan.cc/sh/v3/fileutil":              true, // imported by syntax
	}
	for _, dep := range strings.Fields(string(out)) {
		if !allowed[dep] {
			t.Errorf("package policy depends on %s", dep)
		}
	}
	std, err := exec.Command("go", "list", "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(std)) {
		if dep == "os/exec" || dep == "net" || dep == "net/http" {
			t.Errorf("package policy depends on %s", dep)
		}
	}
}

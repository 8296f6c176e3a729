package policy

import (
	"os/exec"
	"strings"
	"testing"
)

// The policy must stay reviewable on its own: it may import the shell
// parser and Hark's model of bash's expansion (shell/plan, and what the
// two need), and the standard library, nothing that runs commands or
// reaches the network on its behalf. mvdan.cc/sh/v3/internal links
// os/exec for the interpreter's sake, though nothing on the policy's path
// calls it, so the rule on os/exec and net is checked on the packages of
// this module: none of them imports either.
func TestDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{join .Imports \" \"}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	allowed := map[string]bool{
		"github.com/hark-sh/hark/shell/policy": true,
		"github.com/hark-sh/hark/shell/plan":   true, // one model of expansion and folders
		"mvdan.cc/sh/v3/syntax":                true,
		"mvdan.cc/sh/v3/fileutil":              true, // imported by syntax
		"mvdan.cc/sh/v3/expand":                true, // imported by plan
		"mvdan.cc/sh/v3/pattern":               true, // imported by plan and expand
		"mvdan.cc/sh/v3/internal":              true, // imported by expand
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		dep := fields[0]
		seen++
		if !allowed[dep] {
			t.Errorf("package policy depends on %s", dep)
		}
		if !strings.HasPrefix(dep, "github.com/hark-sh/hark/") {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "os/exec" || imp == "net" || imp == "net/http" {
				t.Errorf("%s, which policy depends on, imports %s", dep, imp)
			}
		}
	}
	if seen < 2 {
		t.Fatalf("go list named %d packages, want policy and its parser at least", seen)
	}
	std, err := exec.Command("go", "list", "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(std)) {
		if dep == "net" || dep == "net/http" {
			t.Errorf("package policy depends on %s", dep)
		}
	}
}

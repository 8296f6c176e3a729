package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirections guards the direction of imports, the way
// tailscale's tstest/deptest does: `go list -deps` of each package is
// checked against what it must never pull in. Only cmd/hark (and tests
// behind build tags) may link the cgo adapters; agent, shell and speech sit
// below app; test kits are imported by tests alone.
func TestDependencyDirections(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module; skipped in -short mode")
	}
	const mod = "github.com/hark-sh/hark/"
	cgoAdapters := []string{mod + "app/hotkey", mod + "app/tray", mod + "speech/portaudio", mod + "speech/whisper", "golang.design/x/hotkey", "fyne.io/systray"}
	testKits := []string{mod + "app/e2e/harness", mod + "agent/ollamatest", mod + "shell/internal/abitest", mod + "speech/speechtest"}
	pure := []string{"app", "app/control", "app/settings", "app/desktop", "app/doctor", "app/logs", "app/bundle", "agent", "shell", "shell/policy", "shell/preview", "shell/rules", "shell/trash", "shell/atomicfile", "shell/visible", "shell/internal/sandbox", "speech", "speech/models", "assets"}
	cases := []struct {
		pkgs   []string
		banned []string
		why    string
		// allowed are imports that break the rule today and are being
		// removed elsewhere; each must still be present, so a fixed one is
		// noticed and taken off the list.
		allowed map[string]string
	}{
		{pkgs: pure, banned: append(append([]string(nil), cgoAdapters...), testKits...),
			why: "pure packages build with CGO_ENABLED=0 and never link test kits"},
		// The speech adapters count too: their doctor probes return errors
		// that carry the fix by method, not app/doctor's types.
		{pkgs: []string{"agent", "shell", "shell/policy", "shell/preview", "shell/rules", "shell/trash", "shell/atomicfile", "shell/visible", "shell/internal/sandbox", "speech", "speech/models", "speech/portaudio", "speech/whisper"}, banned: []string{mod + "app"},
			why: "agent, shell and speech sit below app",
		},
	}
	for _, goos := range []string{"linux", "darwin"} {
		for _, c := range cases {
			for _, p := range c.pkgs {
				cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+p)
				cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=arm64", "CGO_ENABLED=0")
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go list -deps %s (GOOS=%s): %v", p, goos, err)
				}
				deps := strings.Fields(string(out))
				for _, dep := range deps {
					for _, b := range c.banned {
						if dep != b && !strings.HasPrefix(dep, b+"/") {
							continue
						}
						if c.allowed[p] == dep {
							continue
						}
						t.Errorf("GOOS=%s: %s imports %s, but %s", goos, p, dep, c.why)
					}
				}
				if a, ok := c.allowed[p]; ok && !contains(deps, a) {
					t.Errorf("%s no longer imports %s: take it off the allowed list", p, a)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

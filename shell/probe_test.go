package shell

import (
	"errors"
	"strings"
	"testing"
)

func TestProbeSandbox(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		ok         bool
		detail     string
		goos       string
		wantDetail string
		wantFix    string
	}{
		{"landlock", true, "Landlock ABI 4", "linux", "Landlock ABI 4", ""},
		{"none on linux", false, "Landlock is not enabled in this kernel", "linux", "not enabled", "Landlock"},
		{"none on macOS", false, "sandbox-exec not found", "darwin", "sandbox-exec", "/usr/bin/sandbox-exec"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			detail, err := probeSandbox(func() (bool, string) { return c.ok, c.detail }, c.goos)
			if c.ok {
				if err != nil || detail != c.wantDetail {
					t.Errorf("got %q, %v", detail, err)
				}
				return
			}
			var pe *ProbeError
			if !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.wantDetail) || !strings.Contains(pe.Fix(), c.wantFix) {
				t.Fatalf("got %q, %v", detail, err)
			}
			if !pe.Limited() {
				t.Error("no sandbox must be a warning: Hark runs without one")
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

func TestNoSandboxWhy(t *testing.T) {
	t.Parallel()
	none := func() (bool, string) {
		return false, "Landlock is not available in this kernel (it needs Linux 5.13 or later); commands that could run code from their configuration ask first"
	}
	landlock := func() (bool, string) { return true, "Landlock ABI 7" }
	for _, tc := range []struct {
		name   string
		mode   shell.SandboxMode
		status func() (bool, string)
		want   string
	}{
		{"off", shell.SandboxOff, landlock, sandboxOff},
		{"auto with a sandbox", shell.SandboxAuto, landlock, ""},
		{"auto without one", shell.SandboxAuto, none, "Landlock is not available in this kernel (it needs Linux 5.13 or later)"},
		{"read-only without one refuses rather than runs", shell.SandboxReadOnly, none, ""},
	} {
		if got := noSandboxWith(tc.mode, tc.status); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHoldConfirmWithoutSandbox: a settings file with confirmation off is
// not applied where there is no sandbox, and the user is told.
func TestHoldConfirmWithoutSandbox(t *testing.T) {
	t.Parallel()
	s := settings.Defaults()
	s.Sandbox, s.ConfirmBeforeExecute, s.MCPConfirmOff = "off", false, true
	if w := holdConfirm(&s); !s.ConfirmBeforeExecute || !strings.Contains(w, "not applied: this machine has no sandbox") {
		t.Errorf("held %v, warning %q", s.ConfirmBeforeExecute, w)
	}
	s = settings.Defaults()
	s.ConfirmBeforeExecute = false
	if ok, _ := shell.SandboxStatus(); ok {
		if w := holdConfirm(&s); s.ConfirmBeforeExecute || w != "" {
			t.Errorf("with a sandbox, confirmation off was held (%q)", w)
		}
	}
}

// TestExecWithoutSandbox: with the sandbox off, hark exec refuses --yes,
// asks about even a read-only command (and says at its prompt that it
// runs without limits), and without a terminal does not run it.
func TestExecWithoutSandbox(t *testing.T) {
	home := execHome(t)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"sandbox": "off"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runExecCLI(t, "", false, "--yes", "--", "echo hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--yes is refused: this machine has no sandbox") || r.stdout != "" {
		t.Errorf("--yes: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runExecCLI(t, "", false, "--", "echo hi")
	if r.code != exitOK || r.result.Executed || !strings.Contains(r.result.Error, "no sandbox") || !strings.Contains(r.result.Error, "run it from a terminal") {
		t.Errorf("no terminal: %+v", r.result)
	}
	r = runExecCLI(t, "y\n", true, "--", "echo hi")
	if r.code != exitOK || !r.result.Executed || r.result.Output != "hi\n" {
		t.Errorf("approved at the terminal: %+v (stderr %q)", r.result, r.stderr)
	}
	if !strings.Contains(r.stderr, "Runs without limits: this machine has no sandbox") || strings.Contains(r.stderr, "May change") {
		t.Errorf("the prompt does not say it runs without limits:\n%s", r.stderr)
	}
}

// TestMcpWithoutSandboxAsksEveryCall: with the sandbox off, mcpConfirmOff
// and confirmation off in the settings are not applied: a read-only call
// waits for the user's yes like any other, and the approval in the menu
// says the command runs without limits.
func TestMcpWithoutSandboxAsksEveryCall(t *testing.T) {
	paths := mcpHome(t)
	if err := os.WriteFile(paths.Settings, []byte(`{"sandbox": "off", "confirmBeforeExecute": false, "mcpConfirmOff": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cs, _ := startMCP(t, "Cursor")
	for _, c := range []string{"ls", "touch " + filepath.Join(dir, "a")} {
		if r := mustCall(t, cs, map[string]any{"command": c, "workingDirectory": dir}); r.res.Executed || !strings.Contains(r.res.Error, "start Hark") {
			t.Errorf("%s with no app to ask: %s", c, r.text)
		}
	}

	a := startApp(t, paths)
	res := make(chan callResult, 1)
	go func() { res <- mustCall(t, cs, map[string]any{"command": "ls", "workingDirectory": dir}) }()
	ids, text := a.pending(t, 1)
	if !strings.Contains(text, "Runs without limits: this machine has no sandbox") || strings.Contains(text, "May change") {
		t.Errorf("the approval does not say it runs without limits:\n%s", text)
	}
	a.click(t, app.PrefixApprove+ids[0])
	if r := <-res; !r.res.Executed {
		t.Errorf("the approved call did not run: %s", r.text)
	}
}

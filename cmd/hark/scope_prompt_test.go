package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell/scope"
)

// The terminal prompt of hark ask and hark exec says what the run may
// change and reach, as the kernel will hold it.
func TestTerminalPromptShowsScope(t *testing.T) {
	home, _ := os.UserHomeDir()
	p := agent.Pending{Command: "git push", Scope: &scope.Scope{Write: []string{filepath.Join(home, "proj")}, Network: true, Agent: true}}
	want := "  May change: ~/proj\n  Uses the network and your ssh key (through the ssh agent)\n"
	if home == "" || home == "/" {
		want = "  May change: /proj\n  Uses the network and your ssh key (through the ssh agent)\n"
	}
	if got := scopeText(p, "  "); got != want {
		t.Errorf("scopeText:\n%q\nwant\n%q", got, want)
	}
	if got := scopeText(agent.Pending{Command: "ls"}, "  "); got != "" {
		t.Errorf("no scope, no lines: %q", got)
	}
}

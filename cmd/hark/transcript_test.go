package main

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
)

// The audit table says a cancelled or timed-out run in words, not as the
// stop signal's exit status.
func TestAuditTableStops(t *testing.T) {
	t.Parallel()
	code := 143
	var b strings.Builder
	writeAuditTable(&b, []agent.AuditEntry{
		{Command: "sleep 100", Decision: agent.DecisionAuto, Executed: true, ExitCode: &code, Cancelled: true},
		{Command: "find /", Decision: agent.DecisionAuto, Executed: true, ExitCode: &code, TimedOut: true},
		{Command: "false", Decision: agent.DecisionAuto, Executed: true, ExitCode: new(int)},
	})
	out := b.String()
	for _, want := range []string{"cancelled", "timed out"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "143") {
		t.Errorf("table shows the stop signal's status:\n%s", out)
	}
}

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

// TestAuditTableShowsHeardAnswer: a spoken answer's words end its row,
// with whatever whisper gave rendered visible, never raw.
func TestAuditTableShowsHeardAnswer(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	writeAuditTable(&b, []agent.AuditEntry{
		{Command: "rm -r ~/x", Decision: agent.DecisionDenied, DecidedBy: agent.ByVoice, HeardAnswer: "No, because it is\nthe wrong folder."},
		{Command: "mkdir a", Decision: agent.DecisionApproved, DecidedBy: agent.ByVoice, HeardAnswer: "yes\x1b[2K\r$ ls\u202e"},
		{Command: "touch b", Decision: agent.DecisionApproved, DecidedBy: agent.ByMenu},
	})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and three rows:\n%s", b.String())
	}
	if !strings.HasSuffix(lines[1], "— heard “No, because it is the wrong folder.”") {
		t.Errorf("the spoken denial's row: %q", lines[1])
	}
	if strings.ContainsAny(lines[2], "\x1b\r\u202e") || !strings.Contains(lines[2], "heard “yes") {
		t.Errorf("the spoken yes's row is not escaped: %q", lines[2])
	}
	t.Logf("\n%s", b.String())
	if strings.Contains(lines[3], "heard") {
		t.Errorf("a click's row claims words: %q", lines[3])
	}
}

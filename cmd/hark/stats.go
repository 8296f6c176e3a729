package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
)

func init() {
	register(&command{
		name:    "stats",
		summary: "Summarise past requests: outcomes, turns, commands, confirmations, time spent.",
		about: `Counts what the history and the audit log hold: requests and how they ended, model turns,
commands run, confirmations asked and how they were answered, and the time spent.`,
		run: runStats,
	})
}

func runStats(_ context.Context, e *env, args []string) int {
	if len(args) > 0 {
		writeUsage(e.stderr, "stats", nil)
		if isHelpFlag(args[0]) {
			return exitOK
		}
		return exitUsage
	}
	paths, _, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark stats:", err)
		return exitError
	}
	store := newStore(paths.History)
	store.Warn = func(msg string) { showln(e.stderr, "hark: warning:", msg) }
	convs, err := store.All()
	if err != nil {
		showln(e.stderr, "hark stats:", err)
		return exitError
	}
	s := agent.Summarize(convs)
	w := e.stdout
	if s.Requests == 0 {
		fmt.Fprintln(w, `No requests yet. Try: hark ask "what is using the most space in Downloads?"`)
		return exitOK
	}
	per := func(d time.Duration) time.Duration { return (d / time.Duration(s.Requests)).Round(time.Millisecond) }
	fmt.Fprintf(w, "Requests:       %d in %s, %s to %s\n", s.Requests, pluralWord(s.Conversations, "conversation", "conversations"),
		s.First.Local().Format("2006-01-02"), s.Last.Local().Format("2006-01-02"))
	fmt.Fprintf(w, "Outcomes:       %d completed (%.0f%%), %s, %d cancelled, %d hit the turn limit\n",
		s.Completed, 100*s.SuccessRate(), pluralWord(s.Errors, "error", "errors"), s.Cancelled, s.TurnLimits)
	fmt.Fprintf(w, "Model turns:    %d (%.1f per request)\n", s.Turns, float64(s.Turns)/float64(s.Requests))
	fmt.Fprintf(w, "Tool calls:     %d; commands run: %d; refused: %d\n", s.ToolCalls, s.Commands, s.Refused)
	fmt.Fprintf(w, "Confirmations:  %d asked, %d approved, %d denied or unanswered\n", s.ConfirmationsAsked, s.Approved, s.Denied)
	fmt.Fprintf(w, "Model time:     %s total, %s per request\n", s.ModelTime.Round(time.Millisecond), per(s.ModelTime))
	fmt.Fprintf(w, "Command time:   %s total, %s per request\n", s.CommandTime.Round(time.Millisecond), per(s.CommandTime))

	if entries, _, err := agent.ReadAudit(paths.Audit); err == nil && len(entries) > 0 {
		fmt.Fprintf(w, "Audit log:      %s: %s\n", pluralWord(len(entries), "decision", "decisions"), auditSummary(entries))
	}
	return exitOK
}

// auditDecisionWords names each audit decision the way the rest of stats
// speaks. Move to Trash is an approval (the user said yes, Hark moved the
// targets instead of running the command), so it is counted inside
// "approved" rather than beside it: one approval is counted once, and the
// total agrees with the Confirmations line.
var auditDecisionWords = map[string]string{
	agent.DecisionAuto:           "ran at once (read-only)",
	agent.DecisionApproved:       "approved",
	agent.DecisionAllowed:        "allowed by your rules",
	agent.DecisionDenied:         "denied",
	agent.DecisionNotAsked:       "not asked (nobody could approve them)",
	agent.DecisionRefused:        "refused (never allowed)",
	agent.DecisionUnconfirmedRun: "ran with confirmation off",
	agent.DecisionTimeout:        "timed out",
	agent.DecisionCancelled:      "cancelled",
}

// auditSummary counts the audit log's decisions, largest first, each
// decision once.
func auditSummary(entries []agent.AuditEntry) string {
	counts := map[string]int{}
	trashed := 0
	for _, en := range entries {
		d := en.Decision
		if d == agent.DecisionTrashed {
			trashed++
			d = agent.DecisionApproved
		}
		counts[d]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		words, ok := auditDecisionWords[k]
		if !ok {
			words = k
		}
		part := fmt.Sprintf("%d %s", counts[k], words)
		if k == agent.DecisionApproved && trashed > 0 {
			part += fmt.Sprintf(" (%d of them moved to the Trash instead)", trashed)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

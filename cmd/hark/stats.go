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
	entries, _, auditErr := agent.ReadAudit(paths.Audit)
	if auditErr != nil || len(entries) == 0 {
		entries = nil
	}
	fmt.Fprintf(w, "Confirmations:  %s\n", confirmationsLine(s, entries))
	fmt.Fprintf(w, "Model time:     %s total, %s per request\n", s.ModelTime.Round(time.Millisecond), per(s.ModelTime))
	fmt.Fprintf(w, "Command time:   %s total, %s per request\n", s.CommandTime.Round(time.Millisecond), per(s.CommandTime))

	if len(entries) > 0 {
		fmt.Fprintf(w, "Audit log:      %s: %s\n", pluralWord(len(entries), "decision", "decisions"), auditSummary(entries))
	}
	return exitOK
}

// auditDecisionWords names each audit decision the way the rest of stats
// speaks. The decisions a person was asked for are not among them: the
// audit line counts them as one "asked" and the Confirmations line says
// how they were answered, so each approval is counted once, on one line,
// and both lines add up.
var auditDecisionWords = map[string]string{
	agent.DecisionAuto:           "ran at once (read-only)",
	agent.DecisionAllowed:        "allowed by your rules",
	agent.DecisionNotAsked:       "not asked (nobody could approve them)",
	agent.DecisionRefused:        "refused (never allowed)",
	agent.DecisionUnconfirmedRun: "ran with confirmation off",
}

// answerWords sort the decisions a person was asked for by their answer.
// Move to Trash is an approval (the user said yes, Hark moved the targets
// instead of running the command), and so is letting a stopped run go on.
var answerWords = map[string]string{
	agent.DecisionApproved:  "approved",
	agent.DecisionTrashed:   "approved",
	agent.DecisionWidened:   "approved",
	agent.DecisionUnlimited: "approved",
	agent.DecisionDenied:    "denied",
	agent.DecisionTimeout:   "timed out",
	agent.DecisionCancelled: "cancelled while waiting",
}

// answerOrder is the order the answers are listed in.
var answerOrder = []string{"approved", "denied", "timed out", "cancelled while waiting"}

// confirmationsLine says how many approvals were asked for and how each
// was answered, the parts adding up to the whole. The audit log is the
// record of every approval (the app, hark ask, hark exec, MCP clients),
// so when it has entries the line is counted from it, as the Audit log
// line is; without one, from the history.
func confirmationsLine(s agent.Stats, entries []agent.AuditEntry) string {
	counts := map[string]int{}
	asked, trashed := 0, 0
	if entries != nil {
		for _, en := range entries {
			if w, ok := answerWords[en.Decision]; ok {
				asked++
				counts[w]++
			}
			if en.Decision == agent.DecisionTrashed {
				trashed++
			}
		}
	} else {
		// ConfirmationsAsked counts the approvals nobody could be asked
		// for too; they are no answer.
		asked = max(s.ConfirmationsAsked-s.NotAsked, 0)
		counts["approved"] = s.Approved
		counts["denied"] = max(s.Denied-s.TimedOut, 0)
		counts["timed out"] = s.TimedOut
		counts["cancelled while waiting"] = max(asked-s.Approved-s.Denied, 0)
		trashed = s.Trashed
	}
	if asked == 0 {
		return "none asked"
	}
	parts := []string{}
	for _, w := range answerOrder {
		n := counts[w]
		if n == 0 && w != "approved" && w != "denied" {
			continue
		}
		part := fmt.Sprintf("%d %s", n, w)
		if w == "approved" && trashed > 0 {
			part += fmt.Sprintf(" (%d of them moved to the Trash instead)", trashed)
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d asked: %s", asked, strings.Join(parts, ", "))
}

// auditSummary counts the audit log's decisions, largest first, each
// decision once; those a person was asked for are one count, "asked",
// which the Confirmations line breaks down.
func auditSummary(entries []agent.AuditEntry) string {
	counts := map[string]int{}
	for _, en := range entries {
		d := en.Decision
		if _, ok := answerWords[d]; ok {
			d = "asked"
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
		switch {
		case k == "asked":
			words = "asked you (see Confirmations)"
		case !ok:
			words = k
		}
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], words))
	}
	return strings.Join(parts, ", ")
}

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
		run:     runStats,
	})
}

func runStats(_ context.Context, e *env, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "Usage: hark stats")
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
	fmt.Fprintf(w, "Requests:       %d in %d conversations, %s to %s\n", s.Requests, s.Conversations,
		s.First.Local().Format("2006-01-02"), s.Last.Local().Format("2006-01-02"))
	fmt.Fprintf(w, "Outcomes:       %d completed (%.0f%%), %d errors, %d cancelled, %d hit the turn limit\n",
		s.Completed, 100*s.SuccessRate(), s.Errors, s.Cancelled, s.TurnLimits)
	fmt.Fprintf(w, "Model turns:    %d (%.1f per request)\n", s.Turns, float64(s.Turns)/float64(s.Requests))
	fmt.Fprintf(w, "Tool calls:     %d; commands run: %d; refused: %d\n", s.ToolCalls, s.Commands, s.Refused)
	fmt.Fprintf(w, "Confirmations:  %d asked, %d approved, %d denied or unanswered\n", s.ConfirmationsAsked, s.Approved, s.Denied)
	fmt.Fprintf(w, "Model time:     %s total, %s per request\n", s.ModelTime.Round(time.Millisecond), per(s.ModelTime))
	fmt.Fprintf(w, "Command time:   %s total, %s per request\n", s.CommandTime.Round(time.Millisecond), per(s.CommandTime))

	if entries, _, err := agent.ReadAudit(paths.Audit); err == nil && len(entries) > 0 {
		counts := map[string]int{}
		for _, en := range entries {
			counts[en.Decision]++
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
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
		fmt.Fprintf(w, "Audit log:      %d decisions: %s\n", len(entries), strings.Join(parts, ", "))
	}
	return exitOK
}

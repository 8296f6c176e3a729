package agent

import "time"

// Stats summarise the run metrics of many conversations (`hark stats`).
type Stats struct {
	Conversations      int
	Requests           int
	Completed          int
	Cancelled          int
	Errors             int
	TurnLimits         int
	Turns              int
	ToolCalls          int
	Commands           int
	ConfirmationsAsked int
	Approved           int
	Denied             int // includes TimedOut
	TimedOut           int
	NotAsked           int // among ConfirmationsAsked, yet nobody could be asked
	Trashed            int // of Approved, answered with Move to Trash
	Refused            int
	ModelTime          time.Duration
	CommandTime        time.Duration
	TotalTime          time.Duration
	First, Last        time.Time // when the oldest and newest request started
}

// Summarize adds up every request of convs.
func Summarize(convs []*Conversation) Stats {
	var s Stats
	for _, c := range convs {
		s.Conversations++
		for _, r := range c.Runs {
			s.Requests++
			switch r.Outcome {
			case OutcomeCompleted:
				s.Completed++
			case OutcomeCancelled:
				s.Cancelled++
			case OutcomeTurnLimit:
				s.TurnLimits++
			default:
				s.Errors++
			}
			s.Turns += r.Turns
			s.ToolCalls += r.ToolCalls
			s.Commands += r.Commands
			s.ConfirmationsAsked += r.ConfirmationsAsked
			s.Approved += r.Approved
			s.Denied += r.Denied
			s.TimedOut += r.TimedOut
			s.NotAsked += r.NotAsked
			s.Trashed += r.Trashed + r.TrashFailed
			s.Refused += r.Refused
			s.ModelTime += time.Duration(r.ModelTimeMs) * time.Millisecond
			s.CommandTime += time.Duration(r.CommandTimeMs) * time.Millisecond
			s.TotalTime += time.Duration(r.TotalTimeMs) * time.Millisecond
			if s.First.IsZero() || r.Started.Before(s.First) {
				s.First = r.Started
			}
			if r.Started.After(s.Last) {
				s.Last = r.Started
			}
		}
	}
	return s
}

// SuccessRate is the share of requests that completed, from 0 to 1.
func (s Stats) SuccessRate() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Completed) / float64(s.Requests)
}

package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Transcript renders a conversation as readable text: requests, the model's
// words, each command with its purpose, and a line per result. `hark history
// show` and the app's "Recent conversations" both use it.
func Transcript(c *Conversation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\n", c.ID, c.Title)
	fmt.Fprintf(&b, "model %s · created %s · updated %s\n", c.Model, c.Created.Local().Format(time.DateTime), c.Updated.Local().Format(time.DateTime))
	run := 0
	ended := func() {
		// Close the previous request with how it ended, when not completed.
		if run > 0 && run <= len(c.Runs) {
			if r := c.Runs[run-1]; r.Outcome != OutcomeCompleted && r.Outcome != "" {
				fmt.Fprintf(&b, "  (request ended: %s — %s)\n", r.Outcome, r.Error)
			}
		}
	}
	for _, m := range c.Messages {
		switch m.Role {
		case "user":
			if IsCorrection(m) {
				fmt.Fprintf(&b, "  ! to the model: %s\n", strings.TrimPrefix(m.Content, CorrectionPrefix))
				continue
			}
			ended()
			run++
			fmt.Fprintf(&b, "\nyou: %s\n", m.Content)
		case "assistant":
			if t := strings.TrimSpace(m.Content); t != "" {
				fmt.Fprintf(&b, "hark: %s\n", t)
			}
			for _, tc := range m.ToolCalls {
				if tc.Function.Name != ToolName {
					fmt.Fprintf(&b, "  ? %s %s\n", tc.Function.Name, tc.Function.Arguments.String())
					continue
				}
				cmd, _ := tc.Function.Arguments.Get("command")
				purpose, _ := tc.Function.Arguments.Get("purpose")
				fmt.Fprintf(&b, "  $ %v   [%v]\n", cmd, purpose)
			}
		case "tool":
			var r struct {
				Executed bool   `json:"executed"`
				ExitCode int    `json:"exitCode"`
				Output   string `json:"output"`
				Error    string `json:"error"`
			}
			switch {
			case json.Unmarshal([]byte(m.Content), &r) != nil:
				fmt.Fprintf(&b, "  → %s\n", firstLine(m.Content))
			case !r.Executed:
				fmt.Fprintf(&b, "  → not run: %s\n", firstLine(r.Error))
			case firstLine(r.Output+r.Error) != "":
				fmt.Fprintf(&b, "  → exit %d: %s\n", r.ExitCode, firstLine(r.Output+r.Error))
			default:
				fmt.Fprintf(&b, "  → exit %d\n", r.ExitCode)
			}
		}
	}
	ended()
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// Transcript renders the stored conversation id.
func (s *Store) Transcript(id string) (string, error) {
	c, err := s.Load(id)
	if err != nil {
		return "", err
	}
	return Transcript(c), nil
}

// Recent lists at most n conversations, newest first.
func (s *Store) Recent(n int) ([]Summary, error) {
	list, err := s.List()
	if err != nil || len(list) <= n {
		return list, err
	}
	return list[:n], nil
}

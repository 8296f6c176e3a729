package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Transcript renders a conversation as a person reads it: each request, the
// model's words as plain text under "Model:", every command with its purpose and a line
// saying what came of it, and Hark's own ending. The last answer of a
// request leads with Hark's facts about its commands (Tally, as the final
// notification said), so a model that claims "Deleted it." after a denial
// cannot mislead the reader. `hark history show` and the app's "Recent
// conversations" both print it.
func Transcript(c *Conversation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s · %s · %s\n", c.Name(), c.Created.Local().Format("2006-01-02 15:04"), c.Model, c.ID)
	request := -1
	// ended closes request i with how it ended, when it did not complete.
	ended := func(i int) {
		if i < 0 || i >= len(c.Runs) {
			return
		}
		r := c.Runs[i]
		if r.Outcome == OutcomeCompleted || r.Outcome == "" {
			return
		}
		line := "the request ended: " + r.Outcome
		// "cancelled — cancelled by the user" says it twice: the error
		// replaces the outcome word when it already starts with it.
		if e := firstLine(r.Error); e != "" && strings.HasPrefix(e, r.Outcome) {
			line = "the request ended: " + e
		} else if e != "" {
			line += " — " + e
		}
		if f := r.Tally().Facts(); f != "" {
			line = f + "; " + line
		}
		fmt.Fprintf(&b, "\nHark: %s\n", line)
	}
	for i, m := range c.Messages {
		switch m.Role {
		case "user":
			if IsCorrection(m) {
				fmt.Fprintf(&b, "  ! to the model: %s\n", strings.TrimPrefix(m.Content, CorrectionPrefix))
				continue
			}
			ended(request)
			request++
			fmt.Fprintf(&b, "\nYou: %s\n", strings.TrimSpace(m.Content))
		case "assistant":
			// The model's words are the model's; "Hark:" is only ever
			// Hark's own account of what happened.
			text := strings.TrimSpace(m.Content)
			if text != "" || len(m.ToolCalls) == 0 {
				hark, model := "", PlainText(text)
				if len(m.ToolCalls) == 0 && finalAnswer(c.Messages, i) && request >= 0 && request < len(c.Runs) &&
					c.Runs[request].Outcome == OutcomeCompleted {
					hark, model, _ = EndingParts(c.Runs[request].Tally(), text)
				}
				if hark != "" {
					fmt.Fprintf(&b, "\nHark: %s\n", hark)
				}
				if model != "" {
					fmt.Fprintf(&b, "\nModel: %s\n", model)
				}
			}
			for _, tc := range m.ToolCalls {
				if tc.Function.Name != ToolName {
					fmt.Fprintf(&b, "  ? %s %s\n", tc.Function.Name, tc.Function.Arguments.String())
					continue
				}
				cmd, _ := tc.Function.Arguments.Get("command")
				line := fmt.Sprintf("  $ %v", cmd)
				if purpose, ok := tc.Function.Arguments.Get("purpose"); ok && fmt.Sprint(purpose) != "" {
					line += fmt.Sprintf("   (%v)", purpose)
				}
				b.WriteString(line + "\n")
			}
		case "tool":
			fmt.Fprintf(&b, "    %s\n", resultLine(m.Content))
		}
	}
	ended(request)
	return b.String()
}

// finalAnswer reports whether message i is the last assistant message of
// its request (Hark's corrections to the model do not end a request).
func finalAnswer(ms []api.Message, i int) bool {
	for _, m := range ms[i+1:] {
		switch {
		case m.Role == "user" && !IsCorrection(m):
			return true
		case m.Role == "assistant":
			return false
		}
	}
	return true
}

// resultLine says in words what came of one command, from its result JSON.
func resultLine(content string) (line string) {
	var r struct {
		Executed bool   `json:"executed"`
		Success  bool   `json:"success"`
		ExitCode int    `json:"exitCode"`
		Output   string `json:"output"`
		Error    string `json:"error"`
		Rule     string `json:"rule"`
	}
	if json.Unmarshal([]byte(content), &r) != nil {
		return "→ " + firstLine(content)
	}
	out := firstLine(r.Output + "\n" + r.Error)
	if strings.TrimSpace(r.Output) != "" {
		out = firstLine(r.Output)
	}
	if r.Executed && r.Rule != "" {
		// Nobody was asked: say which rule let it run.
		defer func() { line += " — run without asking: " + r.Rule }()
	}
	// Move to Trash answers in the command's place: not executed, with
	// what moved in its output.
	if moved, ok := trashedNames(r.Output); !r.Executed && ok {
		line := "↩ moved to the Trash (undo: Undo last trash in the menu, or `hark undo`): " + moved
		if !r.Success {
			line += "; not all of it: " + firstSentence(r.Error)
		}
		return line
	}
	switch {
	case !r.Executed && r.Success && strings.HasPrefix(r.Output, "Nothing to move"):
		return "✓ not run: the deletion would have removed nothing"
	case r.Executed && r.ExitCode == 0 && out == "":
		return "✓ ran"
	case r.Executed && r.ExitCode == 0:
		return "✓ ran: " + out
	case r.Executed && out == "":
		return fmt.Sprintf("✗ exit status %d", r.ExitCode)
	case r.Executed:
		return fmt.Sprintf("✗ exit status %d: %s", r.ExitCode, out)
	case strings.Contains(r.Error, "did not answer"):
		return "✗ not run: the approval timed out"
	case strings.HasPrefix(r.Error, "Refused"):
		return "✗ not run: refused (Hark never runs this)"
	}
	return "✗ not run: " + firstSentence(r.Error)
}

// trashedNames is the list of what a Move to Trash moved, from the
// result's output (agent/trash.go writes it).
func trashedNames(output string) (string, bool) {
	rest, ok := strings.CutPrefix(output, "Moved ")
	if !ok {
		return "", false
	}
	_, names, ok := strings.Cut(rest, " to the Trash instead of deleting: ")
	if !ok {
		return "", false
	}
	names, _, _ = strings.Cut(names, ". The command itself did not run.")
	return names, true
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

func firstSentence(s string) string {
	s = firstLine(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// dateOnly is how the Recent conversations label a day other than today.
const dateOnly = "Jan 2 15:04"

// Label names a conversation by what it did: the first request that
// changed something (else the first request), how many followed, when,
// and what all its commands came to ("remove the build folder (+9 more)
// · 19:31 · 2 moved to the Trash, 1 ran, 3 denied"). A conversation of
// questions alone says how its last request ended.
func (s Summary) Label(now time.Time) string {
	updated := s.Updated.Local()
	when := updated.Format("15:04")
	if y, m, d := updated.Date(); y != now.Local().Year() || m != now.Local().Month() || d != now.Local().Day() {
		when = updated.Format(dateOnly)
	}
	title := s.Name()
	if s.Requests > 1 {
		title += fmt.Sprintf(" (+%d more)", s.Requests-1)
	}
	label := title + " · " + when
	if did := s.Total.Did(); did != "" {
		return label + " · " + did
	}
	r := s.Last
	switch {
	case r == nil:
		return label
	case r.Outcome == OutcomeCancelled:
		return label + " · cancelled"
	case r.Outcome == OutcomeError:
		return label + " · failed"
	}
	return label
}

package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/visible"
)

// Context budget defaults. Ollama's own default context is 4096 tokens on
// most machines (server/routes.go, under 23 GiB of GPU memory) and the
// runner silently keeps only num_keep = 4 tokens of a prompt that overflows
// it, losing the system prompt and the tools first (ollama#10980); Hark
// therefore always says how big a context it wants and keeps under it.
const (
	DefaultContextLength   = 8192
	DefaultNumPredict      = 1024    // tokens per reply; a stuck model stops here
	DefaultToolOutputLimit = 4 << 10 // bytes of stdout and of stderr sent to the model per result
	compactExcerpt         = 200     // bytes of output kept of an older result
	bytesPerTokenEstimate  = 3       // conservative: real tokenizers average 3–4 on text and JSON
	messageOverheadTokens  = 8       // role headers and separators a template adds per message
	minPromptBudget        = 512     // below this the fixed part alone does not fit
	truncMarker            = "\n…[%d bytes cut]…\n"
)

// estimateTokens is a deliberately high guess of a text's token count; the
// budget only needs never to undershoot.
func estimateTokens(s string) int {
	return (len(s) + bytesPerTokenEstimate - 1) / bytesPerTokenEstimate
}

func messageTokens(m api.Message) int {
	n := messageOverheadTokens + estimateTokens(m.Content)
	for _, tc := range m.ToolCalls {
		n += estimateTokens(tc.Function.Name) + messageOverheadTokens
		if b, err := json.Marshal(tc.Function.Arguments); err == nil {
			n += estimateTokens(string(b))
		}
	}
	return n
}

// capText keeps the head and the tail of s within limit bytes, with a
// marker saying how much was cut; it reports whether it cut.
func capText(s string, limit int) (string, bool) {
	if limit <= 0 || len(s) <= limit {
		return s, false
	}
	head := limit / 2
	tail := limit - head
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + fmt.Sprintf(truncMarker, start-head) + s[start:], true
}

// forModel is the result as the model gets it: stdout and stderr capped to
// limit each, then shown as ShownResult shows them. The UI and the audit
// log keep the full result.
func forModel(res shell.Result, limit int) shell.Result {
	var cutOut, cutErr bool
	res.Output, cutOut = capText(res.Output, limit)
	res.Error, cutErr = capText(res.Error, limit)
	res.Truncated = res.Truncated || cutOut || cutErr
	return ShownResult(res)
}

// ShownResult is res with its output and error text safe to show: every
// control character, escape sequence, carriage return, backspace,
// bidirectional and zero-width character becomes ⟨U+XXXX⟩, and newlines
// and tabs stay. The runner's capture already drops terminal escapes from
// what a command prints, but Hark writes some results itself (Move to
// Trash names every file it moved) and a file name may hold anything; the
// tool result goes to the model and, from hark exec, to a terminal, and
// neither should receive text that looks like something else.
func ShownResult(res shell.Result) shell.Result {
	res.Output = visible.Text(res.Output)
	res.Error = visible.Text(res.Error)
	return res
}

// compactResult shrinks a tool result of an earlier request to what the
// model needs to remember it: the command, whether and how it ran, and a
// short excerpt.
func compactResult(content string) string {
	var r shell.Result
	if err := json.Unmarshal([]byte(content), &r); err != nil {
		s, _ := capText(content, compactExcerpt)
		return s
	}
	out, cut1 := capText(strings.TrimSpace(r.Output), compactExcerpt)
	errText, cut2 := capText(strings.TrimSpace(r.Error), compactExcerpt)
	c := struct {
		Command   string `json:"command"`
		Executed  bool   `json:"executed"`
		ExitCode  int    `json:"exitCode"`
		Output    string `json:"output,omitempty"`
		Error     string `json:"error,omitempty"`
		Truncated bool   `json:"truncated,omitempty"`
		Note      string `json:"note"`
	}{r.Command, r.Executed, r.ExitCode, out, errText, r.Truncated || cut1 || cut2, "from an earlier request; output shortened"}
	b, _ := json.Marshal(c)
	return string(b)
}

// contextOverflowError says that even the smallest request does not fit.
// server is set when the size is the one the server fixed itself (rt
// says which server and how to enlarge it): raising contextLength would
// change nothing there, so the advice is the server's own setting.
func contextOverflowError(model string, need, have int, server Runtime) *Error {
	if server != nil {
		return &Error{Kind: ErrContextOverflow, Model: model, msg: fmt.Sprintf(
			"the request needs about %d tokens but the context is %d, which %s set when it loaded the model (the contextLength setting does not change it); %s, lower toolOutputLimit, or start a new conversation",
			need, have, server.RuntimeName(), server.ContextHint())}
	}
	return &Error{Kind: ErrContextOverflow, Model: model, msg: fmt.Sprintf(
		"the request needs about %d tokens but the context is %d (setting contextLength); raise contextLength, lower toolOutputLimit, or start a new conversation", need, have)}
}

// requestMessages builds what one model turn sends: the system prompt, then
// the conversation shaped to fit the context budget.
//
//   - An assistant message with tool calls goes out with empty content:
//     qwen-style templates render "text and calls" as the text only
//     (ollama#10698), and the model would see its own calls vanish. The
//     conversation keeps the text for the UI.
//   - Tool results of earlier requests are compacted.
//   - If the estimate is still over budget, whole older exchanges are
//     dropped, oldest first, then the current request's older results are
//     compacted. The system prompt, the tools and the latest request are
//     never dropped; if they alone overflow, that is an error, not a
//     silent truncation.
func (r *run) requestMessages() ([]api.Message, error) {
	a := r.a
	msgs := r.c.Messages
	latest := r.latestUser
	view := make([]api.Message, 0, len(msgs)+1)
	view = append(view, api.Message{Role: "system", Content: r.system})
	for i, m := range msgs {
		switch {
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			m.Content, m.Thinking = "", ""
		case m.Role == "assistant":
			m.Thinking = ""
		case m.Role == "tool" && i < latest:
			m.Content = compactResult(m.Content)
		}
		view = append(view, m)
	}

	budget := r.contextLength - a.o.NumPredict
	fixed := a.toolTokens + estimateTokens(r.system) + messageOverheadTokens
	total := fixed
	for _, m := range view[1:] {
		total += messageTokens(m)
	}
	if total <= budget {
		return view, nil
	}
	r.m.Compacted = true
	// Drop older exchanges: everything before the latest request, in
	// whole user-to-user units so no tool result loses its call.
	hist := view[1 : 1+latest]
	cur := view[1+latest:]
	for len(hist) > 0 && total > budget {
		end := 1
		for end < len(hist) && (hist[end].Role != "user" || IsCorrection(hist[end])) {
			end++
		}
		for _, m := range hist[:end] {
			total -= messageTokens(m)
		}
		hist = hist[end:]
	}
	// Then compact this request's results, oldest first, keeping the
	// newest one whole: the model is acting on it.
	lastTool := -1
	for i := range cur {
		if cur[i].Role == "tool" {
			lastTool = i
		}
	}
	for i := range cur {
		if total <= budget {
			break
		}
		if cur[i].Role != "tool" || i == lastTool {
			continue
		}
		before := messageTokens(cur[i])
		cur[i].Content = compactResult(cur[i].Content)
		total += messageTokens(cur[i]) - before
	}
	if total > budget {
		var server Runtime
		if r.contextFromServer {
			server = a.runtimeOf()
		}
		return nil, contextOverflowError(a.o.Model, total+a.o.NumPredict, r.contextLength, server)
	}
	out := make([]api.Message, 0, 1+len(hist)+len(cur))
	out = append(out, view[0])
	out = append(out, hist...)
	return append(out, cur...), nil
}

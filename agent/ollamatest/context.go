package ollamatest

import (
	"errors"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/template"
)

// BytesPerToken is the test tokenizer's rate: every 4 bytes of prompt are
// one token. Real tokenizers average 3–4 bytes per token on English text
// and JSON; a fixed rate keeps limits exact in tests.
const BytesPerToken = 4

// Tokens is the length of s in test tokens.
func Tokens(s string) int { return (len(s) + BytesPerToken - 1) / BytesPerToken }

// ErrInputTooLong is the runner's refusal when truncate is false.
var ErrInputTooLong = errors.New("the input length exceeds the context length")

// overflowError is a prompt refused for not fitting, with the sizes
// llama-server's refusal names.
type overflowError struct{ prompt, numCtx int }

func (e *overflowError) Error() string { return ErrInputTooLong.Error() }
func (e *overflowError) Unwrap() error { return ErrInputTooLong }

// fitPrompt renders the prompt as server/prompt.go chatPrompt does — drop
// whole messages from the front, keeping system messages and the last one,
// until it fits num_ctx — then cuts what still overflows the way the
// runner does: keep the first num_keep tokens, drop the ones after them.
// With truncate false nothing is dropped and an overflow is refused. A
// num_ctx above the model's trained length is clamped to it, as the
// server does when it starts the runner.
func (s *Server) fitPrompt(tmpl *template.Template, req *api.ChatRequest, tools api.Tools, trained int) (string, error) {
	numCtx, numKeep := DefaultNumCtx, DefaultNumKeep
	if v, ok := intOption(req.Options, "num_ctx"); ok && v > 0 {
		numCtx = v
	}
	if trained > 0 {
		numCtx = min(numCtx, trained)
	}
	if v, ok := intOption(req.Options, "num_keep"); ok && v >= 0 {
		numKeep = v
	}
	truncate := req.Truncate == nil || *req.Truncate
	values := template.Values{Tools: tools}
	if req.Think != nil {
		values.Think, values.IsThinkSet = req.Think.Bool(), true
	}
	render := func(msgs []api.Message) (string, error) {
		var b strings.Builder
		v := values
		v.Messages = msgs
		err := tmpl.Execute(&b, v)
		return b.String(), err
	}
	msgs := req.Messages
	var prompt string
	for i := range msgs {
		var keep []api.Message
		for _, m := range msgs[:i] {
			if m.Role == "system" {
				keep = append(keep, m)
			}
		}
		p, err := render(append(keep, msgs[i:]...))
		if err != nil {
			return "", err
		}
		prompt = p
		if !truncate || Tokens(p) <= numCtx {
			break
		}
	}
	if Tokens(prompt) <= numCtx {
		return prompt, nil
	}
	if !truncate {
		return "", &overflowError{prompt: Tokens(prompt), numCtx: numCtx}
	}
	keepBytes := min(numKeep, numCtx-1) * BytesPerToken
	tail := (numCtx - min(numKeep, numCtx-1)) * BytesPerToken
	return prompt[:keepBytes] + prompt[len(prompt)-tail:], nil
}

func intOption(opts map[string]any, key string) (int, bool) {
	switch v := opts[key].(type) {
	case float64:
		return int(v), true
	case int:
		return v, true
	}
	return 0, false
}

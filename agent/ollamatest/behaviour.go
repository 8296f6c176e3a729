package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Behaviour is which generation of Ollama's backend the server imitates.
// The two differ in what a client can observe: error texts, where tool
// calls arrive, and whether a repetition loop is stopped.
type Behaviour int

const (
	// Runner is Ollama up to v0.29 (the reference is v0.17.4): its own
	// runner, Ollama's parsers on every model, the repeat abort, and
	// "the input length exceeds the context length" on an overflow.
	Runner Behaviour = iota
	// LlamaServer is Ollama v0.30 and later (the reference is v0.33),
	// which runs models in llama.cpp's llama-server. Models with a
	// built-in parser keep Ollama's rendered path (same parsers, same
	// repeat abort); template-only models take the native path, where
	// tool calls arrive only on the final line, nothing stops a
	// repetition but num_predict, and the runner's failures read
	// "llama-server chat error". An overflow is refused with
	// llama-server's own exceed_context_size_error body.
	LlamaServer
)

// Behaviours lists every behaviour, for tables that run a scenario
// against each.
var Behaviours = []Behaviour{Runner, LlamaServer}

func (b Behaviour) String() string {
	if b == LlamaServer {
		return "llama-server"
	}
	return "runner"
}

// version is what /api/version reports for b unless SetVersion says
// otherwise.
func (b Behaviour) version() string {
	if b == LlamaServer {
		return LlamaServerVersion
	}
	return Version
}

// LlamaServerVersion is what a LlamaServer answers on /api/version.
const LlamaServerVersion = "0.33.0"

// RepeatLimit is how many repeats of one token in a row the runner lets
// through before it ends the stream (llm/server.go in v0.17.4,
// llm/llama_server.go in v0.33): it compares each token, trimmed of
// spaces, with the previous one, before any parser sees it.
const RepeatLimit = 30

// native says whether m takes llama-server's native chat path: a model
// with no built-in parser, whose GGUF chat template wins over its Go
// template (server/routes.go chatModeForModel in v0.33).
func (b Behaviour) native(m Model) bool { return b == LlamaServer && m.Parser == "" }

// overflow is the refusal of a prompt that does not fit num_ctx with
// truncate false, as the client's StatusError carries it.
func (b Behaviour) overflow(prompt, numCtx int) (int, string) {
	if b == Runner {
		return http.StatusBadRequest, ErrInputTooLong.Error()
	}
	// Ollama forwards llama-server's JSON error body as the message
	// (llm/llama_server.go statusErrorMessage); only embeddings get it
	// rewritten to the runner's text.
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code":            400,
		"message":         fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", prompt, numCtx),
		"type":            "exceed_context_size_error",
		"n_prompt_tokens": prompt,
		"n_ctx":           numCtx,
	}})
	return http.StatusBadRequest, string(body)
}

// repeats counts tokens equal, after trimming, to the one before, the way
// the runner does; lastToken starts empty, so leading empty or blank
// tokens count too.
type repeats struct {
	last string
	n    int
}

// add takes the next token and says whether the runner stops here.
func (r *repeats) add(tok string) bool {
	t := strings.TrimSpace(tok)
	if t == r.last {
		r.n++
	} else {
		r.last, r.n = t, 0
	}
	return r.n > RepeatLimit
}

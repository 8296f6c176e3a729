// Package openaitest is a stand-in for the OpenAI-compatible servers Hark
// can talk to (llama-server, LM Studio, mlx_lm.server, Jan), for tests: it
// streams a scripted reply as each server writes its SSE chunks — where
// the reasoning goes, how a tool call is cut into fragments and what its
// id looks like, the usage chunk, data: [DONE] — and refuses the way each
// refuses (an overflow, a missing model, a template without tools, a
// missing key). Like httptest, it is imported only by tests.
//
// Where each behaviour comes from:
//   - llama-server: tools/server/server-common.cpp (format_error_response:
//     {"error":{"code","message","type"}}, exceed_context_size_error is a
//     400, unavailable_error a 503; tool-call ids are 32 letters and
//     digits), common/chat.cpp (common_chat_msg_diff_to_json_oaicompat: a
//     call's first delta has index, id, type and name, the rest index and
//     argument pieces), tools/server/server-task.cpp (finish_reason
//     "length" unless stopped by a word or EOS, then "tool_calls" or
//     "stop"; usage in a last chunk with no choices), server-context.cpp
//     (an error after the headers is data: {"error": …} and the stream
//     ends, no [DONE]; a reply the chat parser cannot read is such an
//     error: "The model produced output that does not match the expected
//     peg-native format" in build 11669, "Failed to parse input at pos N"
//     before). The refusals and errors of a real llama-server are
//     recorded in testdata/llama-server and spoken from there.
//   - mlx-lm: mlx_lm/server.py (every delta repeats role; reasoning in
//     "reasoning"; a call is sent whole with an index and a uuid4 id, in
//     the chunk that carries finish_reason when it ends the reply; a call
//     its parser cannot read is dropped and the reply still ends with
//     tool_calls; a model it cannot load is a 404 {"error": "text"};
//     unknown paths answer 404 "Not Found"; no context check at all;
//     ": keepalive" comments while the prompt is processed).
//   - Jan: src-tauri/src/core/server/proxy.rs (a bearer key or X-Api-Key,
//     401 "Invalid or missing authorization token" as plain text;
//     /v1/models lists only models that are running; a model not running
//     is a 404 "No running session found for model '…'", none running a
//     503 "No models are available"); behind it, llama-server.
//   - LM Studio (closed source: its docs and bug tracker): /api/v0/models
//     and, since 0.4, /api/v1/models with loaded_instances[].config
//     .context_length; numeric tool-call ids; since 0.4 a streamed
//     request that overflows gets a 200 and the error inside the stream
//     (lmstudio-bug-tracker #2322), "The number of tokens to keep from the
//     initial prompt is greater than the context length"; its exact
//     in-stream bytes are not published.
package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Flavour is which server the stand-in behaves as.
type Flavour int

const (
	LlamaServer Flavour = iota // llama.cpp's llama-server with --jinja
	LMStudio                   // LM Studio's local server
	MLX                        // mlx_lm.server
	Jan                        // Jan's Local API Server (llama.cpp underneath, a bearer key in front)
)

// Flavours are every server, for tests tabled over them.
var Flavours = []Flavour{LlamaServer, LMStudio, MLX, Jan}

func (f Flavour) String() string {
	return [...]string{"llama-server", "lmstudio", "mlx-lm", "jan"}[f]
}

// Key is the bearer key the Jan stand-in wants.
const Key = "jan-test-key"

// Call is a tool call as the model wrote it: Arguments is raw text, so a
// test can send JSON the model got wrong.
type Call struct {
	Name      string
	Arguments string
}

// Cmd is a well-formed call of Hark's tool.
func Cmd(command, purpose string) Call {
	b, _ := json.Marshal(map[string]string{"command": command, "purpose": purpose})
	return Call{Name: "execute_terminal_command", Arguments: string(b)}
}

// Reply is one scripted model turn.
type Reply struct {
	Reasoning string // streamed before the text, in the flavour's field
	Text      string
	Calls     []Call
	// Finish is the finish_reason; "": tool_calls when there are calls,
	// else stop. "length" is a reply cut by max_tokens.
	Finish string
	// StreamError, when set, is an error event sent after the text.
	StreamError string
	// OldErrorLine writes StreamError as llama-server builds before
	// server-context.cpp did ("error: {…}" instead of a data: event).
	OldErrorLine bool
	// Cut closes the connection after the text, with no finish reason
	// and no [DONE] (a server that crashed).
	Cut bool
	// Status refuses the request before any byte with this HTTP status
	// and Error as the message.
	Status int
	Error  string
}

// Request is a chat request as the server received it.
type Request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Stream    bool `json:"stream"`
	MaxTokens int  `json:"max_tokens"`
	Tools     []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
	raw                int
}

// Server is a running stand-in.
type Server struct {
	URL     string // the base URL, ending in /v1
	Flavour Flavour
	Model   string
	// ContextSize is the context the model was loaded with; a prompt
	// longer than it (estimated at 3 bytes a token) is refused as the
	// flavour refuses (mlx-lm does not check). 0: 32768.
	ContextSize int
	// NoJinja is llama-server started without --jinja (builds before it
	// was the default): /props still shows the model's template, but a
	// request with tools fails with a 500.
	NoJinja bool
	// NoTools is a model that answers the tool probe in words.
	NoTools bool
	// PlainTemplate is llama-server with a model whose chat template has
	// no tools: /props says so (chat_template_caps.supports_tools false).
	PlainTemplate bool
	// Loading is llama-server still loading its model: every request is
	// refused with 503 unavailable_error.
	Loading bool
	// NoneRunning is Jan with no model started.
	NoneRunning bool
	// OldMLX is an mlx-lm build that sent calls without an index.
	OldMLX bool
	// Next, when set, replaces the script: it gets the 1-based number of
	// the chat and the request.
	Next func(n int, r Request) Reply

	mu       sync.Mutex
	script   []Reply
	requests []Request
	loaded   bool
	ids      int
}

// New starts a stand-in serving model as f, closed at the test's end.
func New(t testing.TB, f Flavour, model string) *Server {
	s := &Server{Flavour: f, Model: model, ContextSize: 32768}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/v1"
	return s
}

// Script queues replies, one per chat.
func (s *Server) Script(r ...Reply) *Server {
	s.mu.Lock()
	s.script = append(s.script, r...)
	s.mu.Unlock()
	return s
}

// Requests are the chats received so far (the tool probe not included).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = fmt.Fprint(w, text)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Flavour == Jan && r.Header.Get("Authorization") != "Bearer "+Key && r.Header.Get("X-Api-Key") != Key {
		writeText(w, http.StatusUnauthorized, "Invalid or missing authorization token")
		return
	}
	if s.Flavour == LlamaServer && s.Loading {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]any{"code": 503, "message": "Loading model", "type": "unavailable_error"}})
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, s.models())
	case r.Method == http.MethodGet && r.URL.Path == "/props" && s.Flavour == LlamaServer:
		// The template and its caps describe the model's template, with or
		// without --jinja: only a request with tools shows the flag is off.
		tmpl, tools := "{%- if tools %}{{ tools }}{% endif %}{{ messages }}", true
		if s.PlainTemplate {
			tmpl, tools = "{{ messages }}", false
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": s.ContextSize},
			"chat_template":               tmpl,
			"chat_template_caps":          map[string]any{"supports_tools": tools, "supports_tool_calls": tools, "supports_system_role": true},
			"modalities":                  map[string]any{"vision": false, "audio": false},
			"total_slots":                 1,
		})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/models" && s.Flavour == LMStudio:
		s.mu.Lock()
		m := map[string]any{"type": "llm", "key": s.Model, "display_name": s.Model, "max_context_length": 131072, "loaded_instances": []any{}}
		if s.loaded {
			m["loaded_instances"] = []any{map[string]any{"id": s.Model, "config": map[string]any{"context_length": s.ContextSize}}}
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{m}})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v0/models" && s.Flavour == LMStudio:
		s.mu.Lock()
		m := map[string]any{"id": s.Model, "object": "model", "type": "llm", "state": "not-loaded", "max_context_length": 131072}
		if s.loaded {
			m["state"], m["loaded_context_length"] = "loaded", s.ContextSize
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{m}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	case s.Flavour == MLX || s.Flavour == Jan:
		writeText(w, http.StatusNotFound, "Not Found")
	case s.Flavour == LlamaServer:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "File Not Found", "type": "not_found_error"}})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "Unexpected endpoint or method. (" + r.Method + " " + r.URL.Path + ")"})
	}
}

// models is GET /v1/models as the flavour shapes it.
func (s *Server) models() map[string]any {
	m := map[string]any{"id": s.Model, "object": "model"}
	switch s.Flavour {
	case LlamaServer:
		m["created"], m["owned_by"] = 1767225600, "llamacpp"
		m["meta"] = map[string]any{"n_ctx_train": 131072}
	case MLX:
		// Models in the Hugging Face cache, no owner.
		m["created"] = 1767225600
	case Jan:
		if s.NoneRunning {
			return map[string]any{"object": "list", "data": []any{}}
		}
		m["created"], m["owned_by"] = 1, "user"
	default:
		m["owned_by"] = "organization_owner"
	}
	return map[string]any{"object": "list", "data": []any{m}}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req Request
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &req) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "invalid JSON", "type": "invalid_request_error"}})
		return
	}
	req.raw = len(raw)
	if s.NoJinja && len(req.Tools) > 0 {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}})
		return
	}
	if llama := s.Flavour == LlamaServer || s.Flavour == Jan; llama {
		for _, t := range req.Tools {
			if msg := schemaRefusal(t.Function.Parameters); msg != "" {
				// llama-server builds a grammar and a parser from every
				// tool's schema before the model runs, and refuses a
				// schema it cannot read (recorded: testdata/llama-server).
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": msg, "type": "invalid_request_error"}})
				return
			}
		}
	}
	if s.Flavour == Jan && s.NoneRunning {
		writeText(w, http.StatusServiceUnavailable, "No models are available")
		return
	}
	if req.Model != s.Model && s.Flavour != LlamaServer {
		s.refuseModel(w, req.Model)
		return
	}
	if len(req.Tools) == 1 && req.Tools[0].Function.Name == "ping" {
		rep := Reply{Calls: []Call{{Name: "ping", Arguments: "{}"}}}
		if s.NoTools {
			rep = Reply{Text: "pong"}
		}
		s.stream(w, rep)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	var rep Reply
	switch {
	case s.Next != nil:
		next := s.Next
		s.mu.Unlock()
		rep = next(n, req)
		s.mu.Lock()
	case len(s.script) > 0:
		rep, s.script = s.script[0], s.script[1:]
	default:
		rep = Reply{Text: "(no scripted reply)"}
	}
	s.loaded = true
	s.mu.Unlock()
	if rep.Status != 0 {
		writeJSON(w, rep.Status, map[string]any{"error": map[string]any{"code": rep.Status, "message": rep.Error, "type": "server_error"}})
		return
	}
	if tokens := req.raw / 3; tokens > s.ContextSize && s.refuseOverflow(w, tokens) {
		return
	}
	s.stream(w, rep)
}

// schemaRefusal is llama-server's refusal of a tool's parameters schema,
// "" when it accepts it, in the recorded words (properties-null.json), so
// a drift in either shows in TestStandInAgreesWithRecordings.
func schemaRefusal(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return ""
	}
	if p, ok := obj["properties"]; ok {
		var props map[string]json.RawMessage
		if json.Unmarshal(p, &props) != nil || props == nil {
			return recordedMessage("properties-null")
		}
	}
	return ""
}

func (s *Server) refuseModel(w http.ResponseWriter, model string) {
	switch s.Flavour {
	case LMStudio:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("Model '%s' not found. Please check the model name.", model), "type": "invalid_request_error", "code": "model_not_found"}})
	case MLX:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("Repository Not Found for url: https://huggingface.co/api/models/%s", model)})
	default:
		writeText(w, http.StatusNotFound, fmt.Sprintf("No running session found for model '%s'", model))
	}
}

// refuseOverflow answers a prompt longer than the context as the flavour
// does; mlx-lm does not check, and the reply goes on.
func (s *Server) refuseOverflow(w http.ResponseWriter, tokens int) bool {
	switch s.Flavour {
	case LlamaServer:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", tokens, s.ContextSize),
			"type":    "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": s.ContextSize}})
	case LMStudio:
		// 0.4: a 200, then the error inside the stream.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		b, _ := json.Marshal(map[string]any{"error": fmt.Sprintf(
			"The number of tokens to keep from the initial prompt is greater than the context length (n_keep: %d>= n_ctx: %d). Try to load the model with a larger context length, or provide a shorter input.",
			tokens, s.ContextSize)})
		fmt.Fprintf(w, "data: %s\n\n", b)
	case Jan:
		// Jan's proxy passes llama-server's refusal through.
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", tokens, s.ContextSize),
			"type":    "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": s.ContextSize}})
	default:
		return false
	}
	return true
}

// pieces cuts s the way a server streams tokens: a few bytes at a time.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func (s *Server) callID() string {
	s.mu.Lock()
	s.ids++
	n := s.ids
	s.mu.Unlock()
	switch s.Flavour {
	case LMStudio:
		return fmt.Sprintf("%d", 365174480+n) // LM Studio's ids are decimal numbers
	case MLX:
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) // str(uuid.uuid4())
	}
	return fmt.Sprintf("Xy%030d", n) // llama-server: random_string(), 32 letters and digits
}

// stream writes rep as the flavour's SSE events.
func (s *Server) stream(w http.ResponseWriter, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flush()
	}
	llama := s.Flavour == LlamaServer || s.Flavour == Jan
	base := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": s.Model}
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := map[string]any{}
		for k, v := range base {
			c[k] = v
		}
		if s.Flavour == MLX {
			delta["role"] = "assistant" // every mlx-lm delta repeats it
		}
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		return c
	}
	switch s.Flavour {
	case LlamaServer, Jan:
		// llama-server opens with the role and a null content.
		send(chunk(map[string]any{"role": "assistant", "content": nil}, nil))
	case MLX:
		fmt.Fprint(w, ": keepalive 64/120\n\n")
		flush()
	}
	reasoningKey := "reasoning_content"
	if s.Flavour == LMStudio || s.Flavour == MLX {
		reasoningKey = "reasoning"
	}
	for _, p := range pieces(rep.Reasoning, 5) {
		send(chunk(map[string]any{reasoningKey: p}, nil))
	}
	for _, p := range pieces(rep.Text, 4) {
		send(chunk(map[string]any{"content": p}, nil))
	}
	streamError := func(msg string) {
		body := map[string]any{"error": map[string]any{"code": 500, "message": msg, "type": "server_error"}}
		b, _ := json.Marshal(body)
		if rep.OldErrorLine {
			fmt.Fprintf(w, "error: %s\n\n", b)
		} else {
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		flush()
	}
	if rep.StreamError != "" {
		streamError(rep.StreamError)
		return
	}
	var mlxCalls []any
	for i, c := range rep.Calls {
		id := s.callID()
		if s.Flavour == MLX {
			if !json.Valid([]byte(c.Arguments)) {
				continue // dropped by mlx-lm's ToolCallFormatter
			}
			tc := map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
			if !s.OldMLX {
				tc["index"] = len(mlxCalls)
			}
			mlxCalls = append(mlxCalls, tc)
			continue
		}
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range pieces(c.Arguments, 5) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
		if llama && !json.Valid([]byte(c.Arguments)) {
			// The final parse of the whole reply fails: an error event,
			// and the stream ends (recorded: parse-failure.json).
			streamError(recordedMessage("parse-failure"))
			return
		}
	}
	if rep.Cut {
		return
	}
	finish := rep.Finish
	if finish == "" {
		finish = "stop"
		if len(rep.Calls) > 0 {
			finish = "tool_calls"
		}
	}
	last := map[string]any{}
	if len(mlxCalls) > 0 {
		last["tool_calls"] = mlxCalls
	}
	send(chunk(last, finish))
	usage := map[string]any{"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
	final := map[string]any{}
	for k, v := range base {
		final[k] = v
	}
	final["choices"], final["usage"] = []any{}, usage
	switch s.Flavour {
	case LlamaServer, Jan:
		final["timings"] = map[string]any{"prompt_n": 120, "predicted_n": 12}
	case MLX:
		final["object"] = "chat.completion"
	}
	send(final)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// ToolCallIDs are the ids the tool results of r answer, in order, so a
// test can check they pair with the calls.
func (r Request) ToolCallIDs() (calls, results []string) {
	for _, m := range r.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.ID)
		}
		if m.Role == "tool" {
			results = append(results, m.ToolCallID)
		}
	}
	return calls, results
}

// System is the system message's text.
func (r Request) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// Last is the last message's text.
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return strings.TrimSpace(r.Messages[len(r.Messages)-1].Content)
}

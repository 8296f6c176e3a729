// Package openaitest is a stand-in for the OpenAI-compatible servers Hark
// can talk to (llama-server, LM Studio, mlx_lm.server, Jan), for tests: it
// streams a scripted reply as each server writes its SSE chunks — where
// the reasoning goes, how a tool call is cut into fragments and what its
// id looks like, the usage chunk, data: [DONE] — and refuses the way each
// refuses (an overflow, a missing model, a template without tools, a
// missing key). Like httptest, it is imported only by tests.
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
			Name string `json:"name"`
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
	// NoJinja is llama-server started without --jinja: its template
	// cannot take tools, and a request with tools fails.
	NoJinja bool
	// NoTools is a model that answers the tool probe in words.
	NoTools bool
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Flavour == Jan && r.Header.Get("Authorization") != "Bearer "+Key {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": "Unauthorized", "type": "invalid_request_error"}})
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": s.Model, "object": "model", "owned_by": "organization_owner"}}})
	case r.Method == http.MethodGet && r.URL.Path == "/props" && s.Flavour == LlamaServer:
		tmpl := "{%- if tools %}{{ tools }}{% endif %}{{ messages }}"
		if s.NoJinja {
			tmpl = "{{ messages }}"
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": s.ContextSize},
			"chat_template":               tmpl,
			"total_slots":                 1,
		})
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
	default:
		// mlx_lm.server and LM Studio answer an unknown path like this.
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "Unexpected endpoint or method. (" + r.Method + " " + r.URL.Path + ")"})
	}
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

func (s *Server) refuseModel(w http.ResponseWriter, model string) {
	switch s.Flavour {
	case LMStudio:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("Model '%s' not found. Please check the model name.", model), "type": "invalid_request_error", "code": "model_not_found"}})
	case MLX:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("Repository Not Found for url: https://huggingface.co/api/models/%s", model)})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "model not found", "type": "not_found_error", "code": 404}})
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
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": fmt.Sprintf(
			"Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
			tokens, s.ContextSize)})
	case Jan:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", s.ContextSize, tokens),
			"type":    "invalid_request_error", "code": "context_length_exceeded"}})
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
		return fmt.Sprintf("call_%08x-0000-4000-8000-%012x", n, n)
	}
	return fmt.Sprintf("%032x", 0xabcdef00+n) // llama-server: 32 random letters and digits
}

// stream writes rep as the flavour's SSE events.
func (s *Server) stream(w http.ResponseWriter, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	base := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": s.Model}
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := map[string]any{}
		for k, v := range base {
			c[k] = v
		}
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		return c
	}
	if s.Flavour == LlamaServer || s.Flavour == Jan {
		// llama-server opens with the role and a null content.
		send(chunk(map[string]any{"role": "assistant", "content": nil}, nil))
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
	if rep.StreamError != "" {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 500, "message": rep.StreamError, "type": "server_error"}})
		if s.Flavour == LlamaServer || s.Flavour == Jan {
			fmt.Fprintf(w, "error: %s\n\n", b)
		} else {
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		return
	}
	for i, c := range rep.Calls {
		id := s.callID()
		if s.Flavour == MLX {
			// mlx-lm sends each call whole, in one delta, with no index.
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}}}, nil))
			continue
		}
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range pieces(c.Arguments, 5) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
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
	send(chunk(map[string]any{}, finish))
	usage := map[string]any{"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
	final := map[string]any{}
	for k, v := range base {
		final[k] = v
	}
	final["choices"], final["usage"] = []any{}, usage
	if s.Flavour == LlamaServer || s.Flavour == Jan {
		final["timings"] = map[string]any{"prompt_n": 120, "predicted_n": 12}
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

// Package fakeollama is an in-process HTTP server that speaks the parts of
// Ollama's API Hark uses (/api/chat as an NDJSON stream, /api/show,
// /api/tags, /api/version), scripted reply by reply, so the real api.Client
// can be tested without a model. It exists for tests only (Hark's own and those of packages that drive the agent).
package fakeollama

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Reply is one scripted answer to /api/chat.
type Reply struct {
	Text      string         // streamed word by word
	ToolCalls []api.ToolCall // sent in one chunk after the text
	Status    int            // when set, answer with this HTTP status and Error
	Error     string         //
	Cut       bool           // drop the connection after the text, before "done"
	Hang      bool           // after the text, wait until the client goes away
	Delay     time.Duration  // wait this long (or until the client goes away) before answering
}

// Server is the fake. Models maps installed model names to capabilities.
type Server struct {
	URL    string
	Models map[string][]string
	// Next scripts replies beyond the list given to New; nil ends the
	// script with a 500 error.
	Next func(n int) Reply

	srv      *httptest.Server
	mu       sync.Mutex
	replies  []Reply
	requests []api.ChatRequest
}

// New starts a server with qwen3:4b (tool-capable) and gemma:2b (not)
// installed, replaying replies in order. It stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	s := &Server{
		Models:  map[string][]string{"qwen3:4b": {"completion", "tools", "thinking"}, "gemma:2b": {"completion"}},
		replies: replies,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]string{"version": "0.17.4"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "Ollama is running") })
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server early (to test an Ollama that went away).
func (s *Server) Close() { s.srv.Close() }

// Requests returns the chat requests received so far.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) installed(name string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	caps, ok := s.Models[name]
	if !ok && !strings.Contains(name, ":") {
		caps, ok = s.Models[name+":latest"]
	}
	return caps, ok
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	caps, ok := s.installed(name)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	writeJSON(w, 200, map[string]any{"capabilities": caps, "details": map[string]string{"family": "fake"}, "model_info": map[string]any{}})
}

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var models []map[string]any
	for name := range s.Models {
		models = append(models, map[string]any{"name": name, "model": name, "size": 1})
	}
	s.mu.Unlock()
	slices.SortFunc(models, func(a, b map[string]any) int { return strings.Compare(a["name"].(string), b["name"].(string)) })
	writeJSON(w, 200, map[string]any{"models": models})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}
	caps, ok := s.installed(req.Model)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	if len(req.Tools) > 0 && !slices.Contains(caps, "tools") {
		writeJSON(w, 400, map[string]string{"error": fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model)})
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	var rep Reply
	switch {
	case n < len(s.replies):
		rep = s.replies[n]
	case s.Next != nil:
		rep = s.Next(n)
	default:
		rep = Reply{Status: 500, Error: "fake Ollama: script ran out of replies"}
	}
	s.mu.Unlock()

	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Status != 0 {
		writeJSON(w, rep.Status, map[string]string{"error": rep.Error})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(200)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(resp api.ChatResponse) {
		resp.Model, resp.CreatedAt = req.Model, time.Now().UTC()
		_ = enc.Encode(resp)
		if flusher != nil {
			flusher.Flush()
		}
	}
	for _, word := range splitKeep(rep.Text) {
		send(api.ChatResponse{Message: api.Message{Role: "assistant", Content: word}})
	}
	if rep.Cut {
		// Abort the response mid-stream, as a crashed server would.
		panic(http.ErrAbortHandler)
	}
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	}
	if len(rep.ToolCalls) > 0 {
		send(api.ChatResponse{Message: api.Message{Role: "assistant", ToolCalls: rep.ToolCalls}})
	}
	send(api.ChatResponse{Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
		Metrics: api.Metrics{TotalDuration: time.Millisecond, EvalCount: 3}})
}

// splitKeep splits text into words that keep their trailing spaces, so the
// chunks join back to the text.
func splitKeep(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// Call builds an execute_terminal_command tool call from argument pairs.
func Call(kv ...any) api.ToolCall { return NamedCall("execute_terminal_command", kv...) }

// NamedCall builds a call of any tool name.
func NamedCall(name string, kv ...any) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i].(string), kv[i+1])
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}}
}

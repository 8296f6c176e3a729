package harness

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Rule scripts the fake model: when the newest user request contains When,
// it calls the terminal tool with Command (if any), then answers with
// Answer followed by what the tool reported.
type Rule struct {
	When    string
	Command string
	Purpose string // default "executing"
	Answer  string
}

// Ollama is a fake Ollama server speaking the parts of the HTTP API Hark
// uses: /api/chat (NDJSON stream with tool calls), /api/show, /api/tags and
// /api/version.
type Ollama struct {
	URL   string
	Model string

	mu    sync.Mutex
	rules []Rule
	mux   *http.ServeMux
	srv   *httptest.Server
}

// FakeOllama starts the server; it stops when the test ends.
func FakeOllama(t testing.TB, model string, rules ...Rule) *Ollama {
	t.Helper()
	o := &Ollama{Model: model, rules: rules}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"version": "0.17.4"})
	})
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"models": []map[string]any{{"name": model, "model": model, "size": 1}}})
	})
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"capabilities": []string{"completion", "tools"}, "details": map[string]any{"family": "qwen3"}})
	})
	mux.HandleFunc("/api/chat", o.chat)
	srv := httptest.NewServer(mux)
	o.mux, o.srv = mux, srv
	t.Cleanup(func() { o.Stop() })
	o.URL = srv.URL
	return o
}

// Stop shuts the server down, as when Ollama is not running: connections
// to its address are refused until Start.
func (o *Ollama) Stop() {
	o.mu.Lock()
	srv := o.srv
	o.srv = nil
	o.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Start serves again on the same address, as when Ollama comes up late.
func (o *Ollama) Start(t testing.TB) {
	t.Helper()
	addr := strings.TrimPrefix(o.URL, "http://")
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("fake Ollama cannot listen on %s again: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(o.mux)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	o.mu.Lock()
	o.srv = srv
	o.mu.Unlock()
}

type chatMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []any  `json:"tool_calls,omitempty"`
}

func (o *Ollama) chat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	rules := o.rules
	o.mu.Unlock()

	var request string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			request = req.Messages[i].Content
			break
		}
	}
	var rule *Rule
	for i := range rules {
		if strings.Contains(strings.ToLower(request), strings.ToLower(rules[i].When)) {
			rule = &rules[i]
			break
		}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send := func(msg map[string]any, done bool) {
		line := map[string]any{"model": req.Model, "created_at": time.Now().UTC().Format(time.RFC3339Nano), "message": msg, "done": done}
		if done {
			line["done_reason"] = "stop"
			line["eval_count"] = 5
		}
		enc.Encode(line)
		flush()
	}
	if rule == nil {
		send(map[string]any{"role": "assistant", "content": "I do not know how to do that."}, false)
		send(map[string]any{"role": "assistant", "content": ""}, true)
		return
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "user" && rule.Command != "" {
		purpose := rule.Purpose
		if purpose == "" {
			purpose = "executing"
		}
		send(map[string]any{"role": "assistant", "content": "Let me do that. "}, false)
		send(map[string]any{"role": "assistant", "content": "", "tool_calls": []map[string]any{{
			"function": map[string]any{"name": "execute_terminal_command", "arguments": map[string]any{"command": rule.Command, "purpose": purpose}},
		}}}, false)
		send(map[string]any{"role": "assistant", "content": ""}, true)
		return
	}
	// After the tool result: answer with what it reported.
	var result struct {
		Executed bool   `json:"executed"`
		ExitCode int    `json:"exitCode"`
		Output   string `json:"output"`
		Error    string `json:"error"`
	}
	if last.Role == "tool" {
		json.Unmarshal([]byte(last.Content), &result)
	}
	answer := fmt.Sprintf("%s [executed=%v exit=%d output=%q error=%q]", rule.Answer, result.Executed, result.ExitCode, strings.TrimSpace(result.Output), result.Error)
	for _, word := range strings.SplitAfter(answer, " ") {
		send(map[string]any{"role": "assistant", "content": word}, false)
	}
	send(map[string]any{"role": "assistant", "content": ""}, true)
}

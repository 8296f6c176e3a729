// Package ollamatest is an in-process Ollama server for tests, named like
// httptest. It speaks the parts of the HTTP API Hark uses (/api/chat as an
// NDJSON stream, /api/show, /api/tags, /api/version) and, unlike a fake that
// emits clean structured calls, it streams scripted raw model text piece by
// piece through Ollama's own parsers from the module Hark already requires
// (model/parsers, tools, thinking, template), in the order the server's
// ChatHandler applies them. So a test sees what a real model's slip looks
// like through a real server: a call that vanishes, an error line inside a
// 200 stream, reasoning inside content, a prompt cut to num_keep tokens.
//
// It is imported only by tests.
package ollamatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
	"github.com/ollama/ollama/template"
	"github.com/ollama/ollama/thinking"
	"github.com/ollama/ollama/tools"
	"github.com/ollama/ollama/types/model"
)

// Defaults of the real server (v0.17.4) that the test server copies.
const (
	DefaultNumCtx    = 4096 // routes.go: machines with under 23 GiB of GPU memory
	DefaultNumKeep   = 4    // api.DefaultOptions
	DefaultKeepAlive = 5 * time.Minute
	Version          = "0.17.4"
)

// Reply is one scripted answer to /api/chat.
type Reply struct {
	// Raw is the model's raw output, streamed through the parsers.
	Raw string
	// Text and Calls are a shorthand: Text, then each call written in the
	// model's own syntax (Model.FormatCall), appended to Raw.
	Text  string
	Calls []api.ToolCall
	// DoneReason of the last line: "" is "stop"; "length" says the
	// num_predict or context limit cut the reply.
	DoneReason string
	Status     int    // answer with this HTTP status and Error instead
	Error      string //
	// Cut ends the stream cleanly without a done line or an error line,
	// which is how the runner's repeat abort looks to a client. A Raw
	// that repeats one token more than RepeatLimit times is cut there
	// without it, as the runner would.
	Cut bool
	// ErrorLine, after the text, ends the stream with this error the way
	// the server reports a failure once the stream has begun: one
	// {"error":…} line in the 200 stream (or a 500 when nothing was
	// written yet).
	ErrorLine string
	// Drop closes the connection after the text, without ending the HTTP
	// response: a server that died mid-reply.
	Drop  bool
	Hang  bool          // after the text, wait until the client goes away
	Delay time.Duration // wait this long (or until the client goes away) first
}

// Server is the test server.
type Server struct {
	URL string
	// Next scripts replies beyond those given to Script; nil ends the
	// script with a 500.
	Next func(n int, req api.ChatRequest) Reply
	srv  *httptest.Server
	mux  *http.ServeMux

	loadDelay time.Duration
	loadGate  chan struct{} // when set, loads finish only once it is closed
	version   string
	behaviour Behaviour

	mu           sync.Mutex
	models       map[string]Model
	replies      []Reply
	requests     []api.ChatRequest
	remote       []api.ChatRequest // chats that would have been sent to a remote host
	prompts      []string
	loaded       map[string]time.Time // model → unloaded after
	loading      map[string]*loadJob
	loadsServed  int
	loadsAborted int
}

// loadJob is one model load in progress; ok tells the requests waiting on
// done whether it finished or was thrown away.
type loadJob struct {
	done chan struct{}
	ok   bool
}

// New starts a server with the given models installed (none: a qwen3
// instruct model on the built-in parser named "qwen3:4b-instruct-2507-q4_K_M",
// the thinking-only "qwen3:4b" and "gemma:2b" without tools). It stops when
// the test ends.
func New(t testing.TB, models ...Model) *Server {
	t.Helper()
	if len(models) == 0 {
		models = []Model{Qwen3("qwen3:4b-instruct-2507-q4_K_M"), Qwen3Thinking("qwen3:4b"), NoTools("gemma:2b")}
	}
	s := &Server{models: map[string]Model{}, loaded: map[string]time.Time{}, loading: map[string]*loadJob{}}
	for _, m := range models {
		if _, err := template.Parse(m.Template); err != nil {
			t.Fatalf("ollamatest: template of %s: %v", m.Name, err)
		}
		s.models[m.Name] = m
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		v := s.version
		if v == "" {
			v = s.behaviour.version()
		}
		s.mu.Unlock()
		writeJSON(w, 200, map[string]string{"version": v})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "Ollama is running") })
	s.mux = mux
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(func() { s.Stop() })
	return s
}

// Script appends replies to the script.
func (s *Server) Script(replies ...Reply) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
	return s
}

// SetBehaviour picks the backend the server imitates (default Runner).
func (s *Server) SetBehaviour(b Behaviour) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behaviour = b
	return s
}

// SetVersion sets what /api/version reports (default: Version for Runner,
// LlamaServerVersion for LlamaServer).
func (s *Server) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

// SetLoadDelay simulates loading a model that is not in memory: the first
// request after the keep-alive ran out (or Unload) waits d.
func (s *Server) SetLoadDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadDelay = d
}

// HoldLoads makes every model load wait, however long the load delay,
// until release is called: a test can then do what it likes while a load
// is surely in progress.
func (s *Server) HoldLoads() (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	s.loadGate = gate
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

// Close stops the server early (an Ollama that went away).
func (s *Server) Close() { s.Stop() }

// Stop shuts the server down, as when Ollama is not running: connections
// to its address are refused until Start.
func (s *Server) Stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Start serves again on the same address, as when Ollama comes up after
// Hark (at login, say).
func (s *Server) Start(t testing.TB) {
	t.Helper()
	l, err := net.Listen("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatalf("ollamatest: cannot listen on %s again: %v", s.URL, err)
	}
	srv := httptest.NewUnstartedServer(s.mux)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
}

// Requests returns the chat requests that reached the model (preloads
// excluded).
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Prompts returns, per request, the prompt the model actually saw: after
// the server dropped old messages and the runner cut to num_keep tokens.
func (s *Server) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.prompts)
}

// Loads counts preload requests (chats without messages) answered.
func (s *Server) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadsServed
}

// LoadsAborted counts model loads thrown away because the request that
// started them went away first.
func (s *Server) LoadsAborted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadsAborted
}

// Loaded says whether name is in memory now.
func (s *Server) Loaded(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.loaded[name]
	return ok && time.Now().Before(until)
}

// RemoteRequests returns the chats the server would have forwarded to a
// model's remote host (a cloud model), which a local-only client must
// never send.
func (s *Server) RemoteRequests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.remote)
}

// Unload forgets that any model is in memory, as after the keep-alive.
func (s *Server) Unload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.loaded)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) installed(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.models[name]
	if !ok && !strings.Contains(name, ":") {
		m, ok = s.models[name+":latest"]
	}
	return m, ok
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
	m, ok := s.installed(name)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	info := map[string]any{"general.architecture": m.Family}
	if m.ContextLength > 0 {
		info[m.Family+".context_length"] = m.ContextLength
	}
	writeJSON(w, 200, api.ShowResponse{
		Template: m.Template, Capabilities: m.Capabilities, ModelInfo: info, Modelfile: modelfile(m),
		Details: api.ModelDetails{Family: m.Family, Families: []string{m.Family}},
		Parser:  m.Parser, RemoteHost: m.RemoteHost, RemoteModel: m.RemoteModel,
	})
}

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var list []api.ListModelResponse
	for name := range s.models {
		list = append(list, api.ListModelResponse{Name: name, Model: name, Size: 1, RemoteHost: s.models[name].RemoteHost, RemoteModel: s.models[name].RemoteModel})
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b api.ListModelResponse) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, 200, api.ListResponse{Models: list})
}

// load waits for m to be in memory, sharing one load between concurrent
// requests, and keeps it loaded for keepAlive. As in Ollama's scheduler
// (server/sched.go: the load waits on the triggering request's context),
// the request that starts a load owns it: when that request goes away
// before the model is in memory, the load is thrown away, and a request
// still waiting starts over with a load of its own.
func (s *Server) load(r *http.Request, name string, keepAlive time.Duration) bool {
	for {
		s.mu.Lock()
		if until, ok := s.loaded[name]; ok && time.Now().Before(until) {
			s.loaded[name] = time.Now().Add(keepAlive)
			s.mu.Unlock()
			return true
		}
		job, busy := s.loading[name]
		if !busy {
			job = &loadJob{done: make(chan struct{})}
			s.loading[name] = job
			delay, gate := s.loadDelay, s.loadGate
			owner := r.Context()
			go func() {
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-t.C:
					if gate != nil {
						select {
						case <-gate:
						case <-owner.Done():
						}
					}
					job.ok = owner.Err() == nil
				case <-owner.Done():
				}
				s.mu.Lock()
				if job.ok {
					s.loaded[name] = time.Now().Add(keepAlive)
				} else {
					s.loadsAborted++
				}
				delete(s.loading, name)
				s.mu.Unlock()
				close(job.done)
			}()
		}
		s.mu.Unlock()
		select {
		case <-job.done:
			if job.ok {
				return true
			}
		case <-r.Context().Done():
			return false
		}
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}
	m, ok := s.installed(req.Model)
	if isCloudName(req.Model) || ok && m.RemoteHost != "" {
		// The real server forwards the whole request to the remote host
		// (server/routes.go ChatHandler); the test server only records
		// that it would have.
		s.mu.Lock()
		s.remote = append(s.remote, req)
		s.mu.Unlock()
		writeJSON(w, 200, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), RemoteHost: m.RemoteHost,
			Message: api.Message{Role: "assistant", Content: "(answered remotely)"}, Done: true, DoneReason: "stop"})
		return
	}
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
		return
	}
	if len(req.Tools) > 0 && !slices.Contains(m.Capabilities, model.CapabilityTools) {
		writeJSON(w, 400, map[string]string{"error": fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model)})
		return
	}
	// routes.go: an absent think means thinking on for a thinking model;
	// asking a model that cannot think to think is refused.
	if slices.Contains(m.Capabilities, model.CapabilityThinking) {
		if req.Think == nil {
			req.Think = &api.ThinkValue{Value: true}
		}
	} else if req.Think != nil && req.Think.Bool() {
		writeJSON(w, 400, map[string]string{"error": fmt.Sprintf("%q does not support thinking", req.Model)})
		return
	}
	keepAlive := DefaultKeepAlive
	if req.KeepAlive != nil {
		keepAlive = req.KeepAlive.Duration
	}
	if !s.load(r, m.Name, keepAlive) {
		return
	}
	if len(req.Messages) == 0 {
		s.mu.Lock()
		s.loadsServed++
		s.mu.Unlock()
		writeJSON(w, 200, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load"})
		return
	}

	tmpl, _ := template.Parse(m.Template) // checked in New
	var builtin parsers.Parser
	processed := req.Tools
	if m.Parser != "" {
		builtin = parsers.ParserForName(m.Parser)
		if builtin != nil {
			last := &req.Messages[len(req.Messages)-1]
			processed = builtin.Init(req.Tools, last, req.Think)
		}
	}
	s.mu.Lock()
	b := s.behaviour
	s.mu.Unlock()
	prompt, err := s.fitPrompt(tmpl, &req, processed, m.ContextLength)
	var tooLong *overflowError
	switch {
	case errors.As(err, &tooLong):
		status, text := b.overflow(tooLong.prompt, tooLong.numCtx)
		writeJSON(w, status, map[string]string{"error": text})
		return
	case err != nil:
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}

	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.prompts = append(s.prompts, prompt)
	var rep Reply
	switch {
	case n < len(s.replies):
		rep = s.replies[n]
	case s.Next != nil:
		rep = s.Next(n, req)
	default:
		rep = Reply{Status: 500, Error: "ollamatest: the script ran out of replies"}
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
	s.stream(w, r, b, m, tmpl, builtin, &req, rep)
}

// isCloudName says whether a model name's tag sends it to ollama.com
// without a local stub (v0.33: a tag of "cloud" or ending in "-cloud").
func isCloudName(name string) bool {
	_, tag, ok := strings.Cut(name, ":")
	return ok && (tag == "cloud" || strings.HasSuffix(tag, "-cloud"))
}

// stream runs rep's raw text through the parsers piece by piece, as the
// ChatHandler callback does for each piece the runner produces.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, b Behaviour, m Model, tmpl *template.Template, builtin parsers.Parser, req *api.ChatRequest, rep Reply) {
	raw := rep.Raw + rep.Text
	format := m.FormatCall
	if format == nil {
		format = QwenCall
	}
	for _, c := range rep.Calls {
		raw += format(c)
	}
	native := b.native(m)

	var thinkState *thinking.Parser
	if open, closing := thinking.InferTags(tmpl.Template); builtin == nil && req.Think != nil && req.Think.Bool() && open != "" && closing != "" {
		thinkState = &thinking.Parser{OpeningTag: open, ClosingTag: closing}
	}
	var toolParser *tools.Parser
	if len(req.Tools) > 0 && (builtin == nil || !builtin.HasToolSupport()) {
		toolParser = tools.NewParser(tmpl.Template, req.Tools)
	}

	out := &lines{w: w}
	// fail reports an error the way streamResponse does: an HTTP status
	// when nothing was written yet, one more JSON line after that.
	fail := func(msg string) {
		if !out.started {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": msg})
			return
		}
		out.send(map[string]string{"error": msg})
	}
	reason := rep.DoneReason
	if reason == "" {
		reason = "stop"
	}
	pieces := Pieces(raw)
	cut := rep.Cut || rep.Hang || rep.ErrorLine != "" || rep.Drop
	var rp repeats
	for i, p := range pieces {
		if rp.add(p) {
			if native {
				// Nothing on llama-server's native path stops a loop but
				// num_predict: the reply ends as cut by the length limit.
				pieces, reason, cut = pieces[:i], "length", false
			} else {
				pieces, cut = pieces[:i], true
			}
			break
		}
	}
	if !cut {
		pieces = append(pieces, "") // the runner's final, done piece
	}
	var held []api.ToolCall // native path: calls wait for the final line
	for i, piece := range pieces {
		done := !cut && i == len(pieces)-1
		res := api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant", Content: piece}, Done: done}
		if done {
			res.DoneReason = reason
			res.EvalCount = len(pieces)
		}
		if builtin != nil {
			content, think, calls, err := builtin.Add(piece, done)
			if err != nil {
				fail(err.Error())
				return
			}
			res.Message.Content, res.Message.Thinking = content, think
			for j := range calls {
				calls[j].ID = callID()
			}
			res.Message.ToolCalls = calls
			if content != "" || think != "" || len(calls) > 0 || done {
				out.send(res)
			}
			continue
		}
		if thinkState != nil {
			think, rest := thinkState.AddContent(piece)
			if think == "" && rest == "" && !done {
				continue
			}
			res.Message.Thinking, res.Message.Content = think, rest
		}
		if toolParser != nil {
			calls, content := toolParser.Add(res.Message.Content)
			switch {
			case len(content) > 0:
				res.Message.Content = content
			case len(calls) > 0:
				for j := range calls {
					calls[j].ID = callID()
				}
				res.Message.Content = ""
				if native {
					held = append(held, calls...)
				} else {
					res.Message.ToolCalls = calls
				}
			case res.Message.Thinking != "":
			default:
				if done {
					res.Message.Content = toolParser.Content()
					res.Message.ToolCalls = held
					out.send(res)
				}
				continue
			}
		}
		if done {
			res.Message.ToolCalls = append(res.Message.ToolCalls, held...)
		}
		if res.Message.Content != "" || res.Message.Thinking != "" || len(res.Message.ToolCalls) > 0 || done {
			out.send(res)
		}
	}
	switch {
	case rep.ErrorLine != "":
		fail(rep.ErrorLine)
	case rep.Drop:
		out.start()
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	case rep.Hang:
		out.start()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
}

// lines writes an NDJSON stream whose 200 header goes out with the first
// line, so an error before it can still be a real HTTP status.
type lines struct {
	w       http.ResponseWriter
	enc     *json.Encoder
	started bool
}

func (l *lines) start() {
	if l.started {
		return
	}
	l.started = true
	l.w.Header().Set("Content-Type", "application/x-ndjson")
	l.w.WriteHeader(200)
	l.enc = json.NewEncoder(l.w)
	if f, ok := l.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (l *lines) send(v any) {
	l.start()
	_ = l.enc.Encode(v)
	if f, ok := l.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Pieces splits raw text the way a tokenizer's pieces arrive: a few bytes
// at a time, on rune boundaries, so tags and JSON reach the parsers split
// across pieces.
func Pieces(raw string) []string {
	const size = 5
	var out []string
	for raw != "" {
		n := min(size, len(raw))
		for n < len(raw) && !isRuneStart(raw[n]) {
			n++
		}
		out = append(out, raw[:n])
		raw = raw[n:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

var (
	idMu sync.Mutex
	idN  int
)

// callID gives each call a distinct id in Ollama's "call_xxxxxxxx" form;
// sequential rather than random so failures reproduce.
func callID() string {
	idMu.Lock()
	defer idMu.Unlock()
	idN++
	return fmt.Sprintf("call_%08d", idN)
}

// modelfile is the part of `ollama show --modelfile` that names the parser.
func modelfile(m Model) string {
	s := "FROM " + m.Name + "\n"
	if m.Parser != "" {
		s += "PARSER " + m.Parser + "\n"
	}
	return s
}

// Loading says whether a load of name is in progress.
func (s *Server) Loading(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.loading[name]
	return ok
}

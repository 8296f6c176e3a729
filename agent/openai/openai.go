// Package openai is the agent's ChatClient for local servers that speak
// OpenAI's chat-completions API instead of Ollama's: LM Studio,
// llama-server, mlx-lm and Jan. It turns Ollama's api.ChatRequest into
// /v1/chat/completions and the server's SSE stream back into the
// api.ChatResponse values the loop already reads (text, thinking, tool
// calls on the last value, done_reason "length"), so the loop never asks
// which server it talks to. What these servers lack — a per-request
// context size, a preload, a list of capabilities — is read or probed
// here instead (ContextLength, CheckModel).
//
// The package does not import the agent: errors come back in the shapes
// the agent already classifies (api.StatusError for a refusal, the
// transport's error for a server that is not there, a plain error for a
// call the model wrote badly), and the words of the fixes come from the
// Runtime methods.
package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/internal/loopback"
)

// Kind is which server answers at the base URL; it only changes the words
// of messages and where the context size is read.
type Kind int

const (
	Generic     Kind = iota // an OpenAI-compatible server Hark does not know
	LMStudio                // LM Studio (port 1234)
	LlamaServer             // llama.cpp's llama-server (port 8080)
	MLX                     // mlx_lm.server (port 8080)
	Jan                     // Jan's local API server (port 1337)
)

func (k Kind) String() string {
	switch k {
	case LMStudio:
		return "LM Studio"
	case LlamaServer:
		return "llama-server"
	case MLX:
		return "mlx_lm.server"
	case Jan:
		return "Jan"
	}
	return "the OpenAI-compatible server"
}

// Options configure a Client.
type Options struct {
	BaseURL string // e.g. "http://127.0.0.1:1234/v1"; a URL without a path gets /v1
	APIKey  string // sent as a bearer token when set (Jan requires one)
	// Kind, when set, names the server; else it is guessed from the
	// port and then from what the server answers.
	Kind       Kind
	HTTPClient *http.Client // nil: one without an overall timeout (a slow model may take minutes)
}

// Client talks to one OpenAI-compatible server.
type Client struct {
	base *url.URL // ends in /v1
	root *url.URL // base without /v1: where /props and /api/v0 live
	key  string
	hc   *http.Client

	mu       sync.Mutex
	kind     Kind
	detected bool // kind was learnt from the server, not guessed
	noTools  int  // why the start-up check found no tool calls (llama-server)
}

// New returns a client for o.BaseURL.
func New(o Options) (*Client, error) {
	raw := strings.TrimSpace(o.BaseURL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("openaiBaseURL %q is not an http(s) URL such as http://127.0.0.1:1234/v1", redactURL(o.BaseURL))
	}
	if u.User != nil {
		// A key in the URL would be shown wherever the URL is (the menu,
		// hark doctor, error messages) and sent as Basic auth.
		return nil, fmt.Errorf("openaiBaseURL %q carries a user or key; put the key in openaiAPIKey and leave it out of the URL", redactURL(o.BaseURL))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("openaiBaseURL %q has a query or fragment; give only the server's address and path, e.g. http://127.0.0.1:1234/v1", redactURL(o.BaseURL))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	root := *u
	root.Path = strings.TrimSuffix(u.Path, "/v1")
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
		if loopback.Is(u.Hostname()) {
			hc.Transport = loopback.Transport()
		}
	}
	c := &Client{base: u, root: &root, key: o.APIKey, hc: hc, kind: o.Kind, detected: o.Kind != Generic}
	if o.Kind == Generic {
		c.kind = guessKind(u)
	}
	return c, nil
}

// guessKind names a server by its usual port until it says more.
func guessKind(u *url.URL) Kind {
	switch u.Port() {
	case "1234":
		return LMStudio
	case "8080":
		return LlamaServer
	case "1337":
		return Jan
	}
	return Generic
}

// Kind is the server's kind as far as known.
func (c *Client) Kind() Kind {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kind
}

func (c *Client) learn(k Kind) {
	c.mu.Lock()
	c.kind, c.detected = k, true
	c.mu.Unlock()
}

// BaseURL is the /v1 address, as messages show it.
func (c *Client) BaseURL() string { return c.base.String() }

// Chat sends one streamed chat completion and calls fn with each piece:
// content as Message.Content, reasoning as Message.Thinking (never as the
// answer), and a last value with Done, DoneReason ("stop" or "length")
// and the tool calls, assembled from their fragments. A request without
// messages is Ollama's preload, which these servers have no endpoint for:
// it returns at once.
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if len(req.Messages) == 0 {
		return nil
	}
	body := c.request(req, true)
	resp, err := c.post(ctx, "/chat/completions", body)
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) && isModelOutputText(se.ErrorMessage) {
			// A reply generated whole before the server answered (no
			// stream yet) and then refused by its parser: still the
			// model's output.
			return c.redact(modelOutput(se.ErrorMessage))
		}
		return err
	}
	defer resp.Body.Close()
	return c.redact(readStream(ctx, resp.Body, req.Model, fn))
}

// redact hides the API key in an error the server wrote, in case it
// echoes what it was sent: messages reach the menu, hark doctor and logs.
func (c *Client) redact(err error) error {
	if err == nil || c.key == "" || !strings.Contains(err.Error(), c.key) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		se.ErrorMessage = strings.ReplaceAll(se.ErrorMessage, c.key, "[openaiAPIKey]")
		se.Status = strings.ReplaceAll(se.Status, c.key, "[openaiAPIKey]")
		return se
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.key, "[openaiAPIKey]"))
}

// request translates an Ollama chat request.
func (c *Client) request(req *api.ChatRequest, stream bool) chatRequest {
	out := chatRequest{Model: req.Model, Stream: stream, Tools: strictTools(req.Tools), Messages: messages(req.Messages)}
	if stream {
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if n, ok := intOption(req.Options, "num_predict"); ok && n > 0 {
		out.MaxTokens = n
	}
	if f, ok := floatOption(req.Options, "temperature"); ok {
		out.Temperature = &f
	}
	if f, ok := floatOption(req.Options, "top_p"); ok {
		out.TopP = &f
	}
	if n, ok := intOption(req.Options, "seed"); ok {
		out.Seed = &n
	}
	if req.Think != nil {
		// Templates that can think (qwen3 and its kind) read this; the
		// others ignore it, and so do servers that do not pass it on.
		out.ChatTemplateKwargs = map[string]any{"enable_thinking": req.Think.Bool()}
	}
	return out
}

// strictTools are the tools as a strict server accepts them: each one's
// parameters a JSON Schema object with "properties" an object, even for a
// tool that takes no arguments. Ollama's types write a tool without
// properties as "properties": null, which Ollama reads as none but
// llama-server refuses with a 400 before the model sees anything (its
// schema-to-grammar conversion wants an object there).
func strictTools(in api.Tools) []api.Tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]api.Tool, len(in))
	for i, t := range in {
		if t.Type == "" {
			t.Type = "function"
		}
		p := &t.Function.Parameters
		if p.Type == "" {
			p.Type = "object"
		}
		if p.Type == "object" && p.Properties.Len() == 0 {
			p.Properties = api.NewToolPropertiesMap()
		}
		out[i] = t
	}
	return out
}

// messages translates the conversation. Calls without an id (a
// conversation started on Ollama) get one, and the tool results that
// follow take them in order, since these servers pair them by id.
func messages(in []api.Message) []message {
	out := make([]message, 0, len(in))
	var pending []string
	for i, m := range in {
		om := message{Role: m.Role, Content: m.Content}
		switch m.Role {
		case "assistant":
			pending = pending[:0]
			for j, tc := range m.ToolCalls {
				id := tc.ID
				if id == "" {
					id = fmt.Sprintf("call_%d_%d", i, j)
				}
				pending = append(pending, id)
				args, err := json.Marshal(tc.Function.Arguments)
				if err != nil {
					args = []byte("{}")
				}
				om.ToolCalls = append(om.ToolCalls, toolCall{ID: id, Type: "function", Function: functionCall{Name: tc.Function.Name, Arguments: string(args)}})
			}
		case "tool":
			om.ToolCallID = m.ToolCallID
			if om.ToolCallID == "" && len(pending) > 0 {
				om.ToolCallID = pending[0]
			}
			if len(pending) > 0 {
				pending = pending[1:]
			}
		}
		out = append(out, om)
	}
	return out
}

func intOption(o map[string]any, k string) (int, bool) {
	switch v := o[k].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	}
	return 0, false
}

func floatOption(o map[string]any, k string) (float64, bool) {
	switch v := o[k].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

// post sends body and returns a 200 response; any other status becomes
// an api.StatusError carrying the server's own message, which the agent
// classifies like Ollama's.
func (c *Client) post(ctx context.Context, path string, body any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	return c.do(hr)
}

func (c *Client) do(hr *http.Request) (*http.Response, error) {
	if c.key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.send(hr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return nil, c.redact(statusError(resp.StatusCode, resp.Status, data))
}

// send is one round trip, tried a second time on a fresh connection when
// a kept-alive one turns out to be closed before any answer came. Go
// retries that itself only for requests it may repeat (not a POST), and
// llama-server closes idle connections after a few seconds (cpp-httplib's
// keep-alive), so a request sent just then failed with EOF and read as a
// reply cut off by a crash. Nothing reached the model: the server read no
// request it answered, so sending it again is safe.
func (c *Client) send(hr *http.Request) (*http.Response, error) {
	var reused bool
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	resp, err := c.hc.Do(hr.WithContext(httptrace.WithClientTrace(hr.Context(), trace)))
	if err == nil || !reused || hr.Context().Err() != nil || !closedBeforeAnswer(err) {
		return resp, err
	}
	retry := hr.Clone(hr.Context())
	if hr.GetBody != nil {
		body, gerr := hr.GetBody()
		if gerr != nil {
			return nil, err
		}
		retry.Body = body
	}
	return c.hc.Do(retry)
}

// closedBeforeAnswer is a connection that ended before the server wrote
// anything back.
func closedBeforeAnswer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// statusError reads {"error": {"message", "type"}} (llama-server's
// format_error_response in tools/server/server-common.cpp, LM Studio),
// {"error": "text"} (mlx_lm/server.py, LM Studio) or a plain body (Jan's
// proxy, src-tauri/src/core/server/proxy.rs). The type goes into the
// text: exceed_context_size_error and context_length_exceeded are what
// tell an overflow.
func statusError(code int, status string, data []byte) api.StatusError {
	msg, _ := errorText(data)
	if msg == "" {
		msg = strings.TrimSpace(string(data))
	}
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg += "; the server wants an API key: set openaiAPIKey in settings to the key it shows"
	case code == http.StatusServiceUnavailable && strings.Contains(strings.ToLower(msg), "no models are available"):
		// Jan's proxy when no model is started: the model is not there,
		// which the agent words with the runtime's ModelHint.
		code = http.StatusNotFound
		msg = "model not found: no model is running (" + msg + ")"
	case code == http.StatusServiceUnavailable && strings.Contains(strings.ToLower(msg), "loading model"):
		// llama-server while it loads the model it was started with
		// (unavailable_error): nothing is wrong but the wait.
		msg = "the server is still loading the model (" + msg + "); wait until it is ready"
	}
	return api.StatusError{StatusCode: code, Status: status, ErrorMessage: msg}
}

// errorText is the message of an {"error": …} body, the object's message
// with its type and code, or the string; "" when data is not one. n is
// the object's numeric code, 0 without one.
func errorText(data []byte) (msg string, n int) {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &obj) != nil || len(obj.Error) == 0 || string(obj.Error) == "null" {
		return "", 0
	}
	var eb errorBody
	var s string
	switch {
	case json.Unmarshal(obj.Error, &eb) == nil && eb.Message != "":
		msg = eb.Message
		if eb.Type != "" && !strings.Contains(msg, eb.Type) {
			msg += " (" + eb.Type + ")"
		}
		switch code := eb.Code.(type) {
		case string:
			if code != "" && !strings.Contains(msg, code) {
				msg += " (" + code + ")"
			}
		case float64:
			n = int(code)
		}
		return msg, n
	case json.Unmarshal(obj.Error, &s) == nil:
		return s, 0
	}
	return strings.TrimSpace(string(obj.Error)), 0
}

// accumulated is one tool call assembled from its fragments.
type accumulated struct {
	id, name string
	args     strings.Builder
}

// readStream reads SSE events until [DONE]. Each event's data is one
// chunk; a stream that ends without [DONE] or a finish reason was cut.
func readStream(ctx context.Context, r io.Reader, model string, fn api.ChatResponseFunc) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		calls     []*accumulated
		byIndex   = map[int]*accumulated{}
		finish    string
		finished  bool
		metrics   api.Metrics
		data      bytes.Buffer
		event     string
		lastIndex = -1
	)
	handle := func(payload []byte, isError bool) (done bool, err error) {
		payload = bytes.TrimSpace(payload)
		if len(payload) == 0 {
			return false, nil
		}
		if string(payload) == "[DONE]" {
			return true, nil
		}
		var ch chunk
		if err := json.Unmarshal(payload, &ch); err != nil {
			return false, fmt.Errorf("error unmarshalling server response: %v", err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" || isError {
			// The server failed after the headers (llama-server writes
			// data: {"error": …} and ends the stream: handle_completions_impl
			// in tools/server/server-context.cpp; LM Studio 0.4 reports an
			// overflow this way, behind a 200). It is the server's failure,
			// never the model's output: a status error, so the agent does
			// not spend the model's corrective turn on it.
			msg, code := errorText(payload)
			if msg == "" {
				msg = strings.TrimSpace(string(payload))
			}
			if isModelOutputText(msg) {
				// Except the one failure that is the model's: the
				// server's parser could not read what it wrote.
				return false, modelOutput(msg)
			}
			if isOverflowText(msg) {
				// An overflow found after the headers: the same refusal.
				return false, api.StatusError{StatusCode: http.StatusBadRequest, ErrorMessage: msg}
			}
			if code < 400 {
				code = http.StatusInternalServerError
			}
			return false, api.StatusError{StatusCode: code, ErrorMessage: msg}
		}
		if ch.Usage != nil {
			metrics.PromptEvalCount, metrics.EvalCount = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
		}
		for _, cc := range ch.Choices {
			d := cc.Delta
			if cc.Message != nil {
				d = *cc.Message
			}
			thinking := d.ReasoningContent + d.Reasoning
			if d.Content != "" || thinking != "" {
				if err := fn(api.ChatResponse{Model: model, Message: api.Message{Role: "assistant", Content: d.Content, Thinking: thinking}}); err != nil {
					return false, err
				}
			}
			for _, tc := range d.ToolCalls {
				idx := lastIndex
				switch {
				case tc.Index != nil:
					idx = *tc.Index
				case idx < 0 || (tc.ID != "" && byIndex[idx].id != "" && byIndex[idx].id != tc.ID):
					// No index (mlx-lm): a new id is a new call.
					idx++
				}
				a := byIndex[idx]
				if a == nil {
					a = &accumulated{}
					byIndex[idx] = a
					calls = append(calls, a)
				}
				lastIndex = idx
				if tc.ID != "" {
					a.id = tc.ID
				}
				if tc.Function.Name != "" {
					// Sent once by most servers; a server that repeats
					// it whole must not double it.
					a.name = tc.Function.Name
				}
				a.args.WriteString(tc.Function.Arguments)
			}
			if cc.FinishReason != nil && *cc.FinishReason != "" {
				finish, finished = *cc.FinishReason, true
			}
		}
		return false, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			t := bytes.TrimRight(line, "\r\n")
			switch {
			case len(t) == 0:
				// A blank line ends an event.
				done, herr := handle(data.Bytes(), event == "error")
				data.Reset()
				event = ""
				if herr != nil {
					return herr
				}
				if done {
					return finishStream(model, calls, finish, metrics, fn)
				}
			case t[0] == ':':
				// A comment: keep-alive.
			case bytes.HasPrefix(t, []byte("data:")):
				data.Write(bytes.TrimPrefix(bytes.TrimPrefix(t, []byte("data:")), []byte(" ")))
			case bytes.HasPrefix(t, []byte("event:")):
				event = strings.TrimSpace(string(t[len("event:"):]))
			case bytes.HasPrefix(t, []byte("error:")):
				// llama-server's error event written as its own field.
				data.Write(bytes.TrimSpace(t[len("error:"):]))
				event = "error"
			}
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, io.EOF) {
			return err
		}
		// The last event may lack its blank line.
		done, herr := handle(data.Bytes(), event == "error")
		if herr != nil {
			return herr
		}
		if done || finished {
			return finishStream(model, calls, finish, metrics, fn)
		}
		// The connection closed mid-reply: no repeat abort exists on
		// these servers, so this is a cut, never a loop.
		return io.ErrUnexpectedEOF
	}
}

// finishStream sends the last value: the tool calls, parsed now that
// every fragment has arrived, and why the reply ended. Arguments that are
// not JSON, or a call without a name, fail the turn the way Ollama's own
// parser does (a plain error after a 200), which gives the model its one
// corrective turn.
func finishStream(model string, calls []*accumulated, finish string, m api.Metrics, fn api.ChatResponseFunc) error {
	if finish == "tool_calls" && len(calls) == 0 {
		// mlx-lm drops a call its parser cannot read (ToolCallFormatter
		// in mlx_lm/server.py logs it and goes on) yet still ends with
		// tool_calls: the model wrote a call, and it was malformed.
		return fmt.Errorf("invalid tool call from the server: finish_reason tool_calls without a call it could read")
	}
	var out []api.ToolCall
	for i, a := range calls {
		if a.name == "" {
			return fmt.Errorf("invalid tool call from the server: call %d has no function name", i)
		}
		args := api.NewToolCallFunctionArguments()
		if raw := strings.TrimSpace(a.args.String()); raw != "" {
			if err := json.Unmarshal([]byte(raw), &args); err != nil {
				return fmt.Errorf("invalid tool call arguments for %q: %v", a.name, err)
			}
		}
		out = append(out, api.ToolCall{ID: a.id, Function: api.ToolCallFunction{Index: i, Name: a.name, Arguments: args}})
	}
	reason := "stop"
	if finish == "length" {
		reason = "length"
	}
	return fn(api.ChatResponse{Model: model, Message: api.Message{Role: "assistant", ToolCalls: out}, Done: true, DoneReason: reason, Metrics: m})
}

// isModelOutputText spots llama-server's parser refusing what the model
// wrote: "The model produced output that does not match the expected
// peg-native format" (current builds, also when max_tokens cut a reply
// inside a tool call) and "Failed to parse input at pos N" (earlier ones).
// The server reports it as a 500 error event, but nothing in the server
// failed: the model gets its corrective turn.
func isModelOutputText(s string) bool {
	low := strings.ToLower(s)
	return strings.Contains(low, "does not match the expected") || strings.Contains(low, "failed to parse input at pos")
}

// modelOutput is a reply the server could not parse, in the shape the
// agent reads as the model's output (a plain error, like Ollama's own
// parser errors inside a 200 stream).
func modelOutput(msg string) error {
	return fmt.Errorf("the server could not parse the model's reply: %s", msg)
}

// isOverflowText spots an overflow in a server's words, so one reported
// inside the stream is the same refusal as one before it.
func isOverflowText(s string) bool {
	low := strings.ToLower(s)
	for _, k := range []string{
		"exceed_context_size_error", "context_length_exceeded", "exceeds the available context", "context length of only",
		// llama-server when the KV cache fills while it answers
		// (tools/server/server-context.cpp), and LM Studio's MLX engine.
		"context size has been exceeded",
		// LM Studio 0.4: "The number of tokens to keep from the initial
		// prompt is greater than the context length".
		"greater than the context length",
	} {
		if strings.Contains(low, k) {
			return true
		}
	}
	return false
}

// Redacted is raw, an openaiBaseURL as the user wrote it, with what may
// be a secret hidden (a user and password, a query such as ?api_key=):
// the form to show of a URL New refused.
func Redacted(raw string) string { return redactURL(raw) }

// redactURL hides what may be a secret in a URL the user wrote (a user
// and password, a query such as ?api_key=), for messages about it.
func redactURL(raw string) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i] + "?…"
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		if i := strings.Index(s, "://"); i >= 0 && i < at {
			return s[:i+3] + "…@" + s[at+1:]
		}
		return "…@" + s[at+1:]
	}
	return s
}

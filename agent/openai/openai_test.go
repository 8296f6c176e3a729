package openai_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/openai"
	"github.com/hark-sh/hark/agent/openai/openaitest"
)

// The client is every seam the agent reads.
var (
	_ agent.ChatClient     = (*openai.Client)(nil)
	_ agent.RuntimeChecker = (*openai.Client)(nil)
	_ agent.ContextSizer   = (*openai.Client)(nil)
)

const model = "qwen3-4b-instruct-2507"

func client(t *testing.T, s *openaitest.Server) *openai.Client {
	t.Helper()
	o := openai.Options{BaseURL: s.URL}
	if s.Flavour == openaitest.Jan {
		o.APIKey = openaitest.Key
	}
	c, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chatReq() *api.ChatRequest {
	return &api.ChatRequest{Model: model, Think: &api.ThinkValue{Value: false}, Options: map[string]any{"num_predict": 1024},
		Messages: []api.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "list tmp"}}}
}

// collect runs one chat and gathers what the loop would see.
type seen struct {
	content, thinking string
	calls             []api.ToolCall
	dones             int
	reason            string
	metrics           api.Metrics
}

func run(t *testing.T, c *openai.Client, req *api.ChatRequest) (seen, error) {
	t.Helper()
	var s seen
	err := c.Chat(context.Background(), req, func(r api.ChatResponse) error {
		if s.dones > 0 {
			t.Errorf("a value after done: %+v", r)
		}
		s.content += r.Message.Content
		s.thinking += r.Message.Thinking
		s.calls = append(s.calls, r.Message.ToolCalls...)
		if r.Done {
			s.dones++
			s.reason, s.metrics = r.DoneReason, r.Metrics
		}
		return nil
	})
	return s, err
}

// Each server's stream becomes the loop's values: reasoning only as
// thinking, text as content, the calls whole on the done value with the
// server's ids, and the usage chunk as metrics.
func TestChatEachFlavour(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{
				Reasoning: "The user wants a listing of tmp.",
				Text:      "Let me look.",
				Calls:     []openaitest.Call{openaitest.Cmd("ls -la /tmp", "checking"), openaitest.Cmd("du -sh /tmp", "checking")},
			})
			got, err := run(t, client(t, s), chatReq())
			if err != nil {
				t.Fatal(err)
			}
			if got.content != "Let me look." || got.thinking != "The user wants a listing of tmp." {
				t.Errorf("content %q thinking %q", got.content, got.thinking)
			}
			if got.dones != 1 || got.reason != "stop" || got.metrics.PromptEvalCount != 120 || got.metrics.EvalCount != 12 {
				t.Errorf("done %d reason %q metrics %+v", got.dones, got.reason, got.metrics)
			}
			if len(got.calls) != 2 {
				t.Fatalf("calls %+v", got.calls)
			}
			for i, want := range []string{"ls -la /tmp", "du -sh /tmp"} {
				c := got.calls[i]
				cmd, _ := c.Function.Arguments.Get("command")
				if c.Function.Name != agent.ToolName || cmd != want || c.ID == "" || c.Function.Index != i {
					t.Errorf("call %d: %+v (command %v)", i, c, cmd)
				}
			}
			if got.calls[0].ID == got.calls[1].ID {
				t.Errorf("both calls have id %q", got.calls[0].ID)
			}
			if f == openaitest.LMStudio {
				if _, err := strconv.Atoi(got.calls[0].ID); err != nil {
					t.Errorf("LM Studio's id %q is not its decimal form", got.calls[0].ID)
				}
			}
			req := s.Requests()[0]
			if req.MaxTokens != 1024 || req.ChatTemplateKwargs["enable_thinking"] != false || !req.Stream {
				t.Errorf("request %+v", req)
			}
		})
	}
}

// Tool results go back paired with their calls by id, and a conversation
// from Ollama (calls without ids) gets ids that pair too.
func TestToolResultsPairByID(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.LMStudio, model).Script(openaitest.Reply{Text: "ok"})
	args := api.NewToolCallFunctionArguments()
	args.Set("command", "ls")
	req := chatReq()
	req.Messages = append(req.Messages,
		api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: agent.ToolName, Arguments: args}}, {ID: "7", Function: api.ToolCallFunction{Name: agent.ToolName, Arguments: args}}}},
		api.Message{Role: "tool", Content: "{}"}, api.Message{Role: "tool", Content: "{}", ToolCallID: "7"})
	if _, err := run(t, client(t, s), req); err != nil {
		t.Fatal(err)
	}
	calls, results := s.Requests()[0].ToolCallIDs()
	if len(calls) != 2 || len(results) != 2 || calls[0] == "" || calls[0] != results[0] || calls[1] != "7" || results[1] != "7" {
		t.Errorf("calls %q results %q", calls, results)
	}
	if !strings.Contains(s.Requests()[0].Messages[2].ToolCalls[0].Function.Arguments, `"command":"ls"`) {
		t.Errorf("arguments not sent as a JSON string: %+v", s.Requests()[0].Messages[2])
	}
}

// The ends of a reply: a length cut is done_reason length; JSON the model
// got wrong and a call without a name are plain errors (what Ollama's
// parser gives, and the loop corrects); a connection closed mid-reply is
// a cut, never a clean end; an error event is the server's words.
func TestStreamEnds(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/length", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Text: "I will now explain at length", Finish: "length"})
			got, err := run(t, client(t, s), chatReq())
			if err != nil || got.reason != "length" {
				t.Fatalf("err %v reason %q", err, got.reason)
			}
		})
		t.Run(f.String()+"/bad arguments", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Calls: []openaitest.Call{{Name: agent.ToolName, Arguments: `{"command": "ls /tmp`}}})
			_, err := run(t, client(t, s), chatReq())
			var se api.StatusError
			switch f {
			case openaitest.LlamaServer, openaitest.Jan:
				// The server's own parser fails on the model's text
				// (common/chat.cpp), after the 200: an error event the
				// server calls a 500, but what failed is the model's
				// output, so it comes back as the model's, never as a
				// status error the agent would blame the server for.
				if err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), "does not match the expected peg-native format") {
					t.Fatalf("err %v", err)
				}
			case openaitest.MLX:
				// mlx-lm drops the call and still ends with tool_calls.
				if err == nil || !strings.Contains(err.Error(), "invalid tool call") || errors.As(err, &se) {
					t.Fatalf("err %v", err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), "invalid tool call arguments") || errors.As(err, &se) {
					t.Fatalf("err %v", err)
				}
			}
		})
		t.Run(f.String()+"/no name", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Calls: []openaitest.Call{{Arguments: `{"command": "ls"}`}}})
			if _, err := run(t, client(t, s), chatReq()); err == nil || !strings.Contains(err.Error(), "tool call") {
				t.Fatalf("err %v", err)
			}
		})
		t.Run(f.String()+"/cut", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Text: "Let me", Cut: true})
			if _, err := run(t, client(t, s), chatReq()); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("err %v", err)
			}
		})
		for _, old := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/error event old=%v", f, old), func(t *testing.T) {
				t.Parallel()
				// An error after the headers is the server's, a status
				// error with its code, never text of the model's.
				s := openaitest.New(t, f, model).Script(openaitest.Reply{Text: "Let me", StreamError: "slot crashed", OldErrorLine: old})
				_, err := run(t, client(t, s), chatReq())
				var se api.StatusError
				if !errors.As(err, &se) || se.StatusCode != 500 || !strings.Contains(se.ErrorMessage, "slot crashed") {
					t.Fatalf("err %v", err)
				}
			})
		}
		t.Run(f.String()+"/kv cache full while answering", func(t *testing.T) {
			t.Parallel()
			// llama-server's words when the context fills mid-reply
			// (tools/server/server-context.cpp): the overflow refusal.
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Text: "Let me", StreamError: "Context size has been exceeded."})
			_, err := run(t, client(t, s), chatReq())
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 400 {
				t.Fatalf("err %v", err)
			}
		})
	}
	t.Run("mlx-lm without an index", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.MLX, model).Script(openaitest.Reply{Calls: []openaitest.Call{openaitest.Cmd("ls", "list"), openaitest.Cmd("pwd", "where")}})
		s.OldMLX = true
		got, err := run(t, client(t, s), chatReq())
		if err != nil || len(got.calls) != 2 || got.calls[1].Function.Arguments.String() != `{"command":"pwd","purpose":"where"}` {
			t.Fatalf("err %v calls %+v", err, got.calls)
		}
	})
}

// A refusal before any byte is an api.StatusError with the server's
// message and type, so the agent's classification reads it.
func TestRefusals(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/overflow", func(t *testing.T) {
			t.Parallel()
			if f == openaitest.MLX {
				t.Skip("mlx_lm.server does not check the prompt against a context size")
			}
			s := openaitest.New(t, f, model)
			s.ContextSize = 100
			req := chatReq()
			req.Messages[1].Content = strings.Repeat("many words ", 100)
			_, err := run(t, client(t, s), req)
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 400 {
				t.Fatalf("err %v", err)
			}
			// LM Studio 0.4 answers 200 and puts the refusal in the
			// stream; the adapter makes it the same 400.
			want := map[openaitest.Flavour]string{openaitest.LlamaServer: "exceed_context_size_error", openaitest.LMStudio: "greater than the context length", openaitest.Jan: "exceed_context_size_error"}[f]
			if !strings.Contains(se.ErrorMessage, want) {
				t.Errorf("message %q lacks %q", se.ErrorMessage, want)
			}
		})
		t.Run(f.String()+"/server error", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model).Script(openaitest.Reply{Status: 503, Error: "Loading model"})
			_, err := run(t, client(t, s), chatReq())
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 503 || !strings.Contains(se.ErrorMessage, "Loading model") {
				t.Fatalf("err %v", err)
			}
		})
	}
	t.Run("llama-server loading its model", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.LlamaServer, model)
		s.Loading = true
		_, err := run(t, client(t, s), chatReq())
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 || !strings.Contains(se.ErrorMessage, "still loading") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("jan with no model running", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.Jan, model)
		s.NoneRunning = true
		_, err := run(t, client(t, s), chatReq())
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 || !strings.Contains(se.ErrorMessage, "No models are available") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("jan with another model running", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.Jan, "gemma-3")
		_, err := run(t, client(t, s), chatReq())
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 || !strings.Contains(se.ErrorMessage, "No running session found") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("jan without its key", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.Jan, model)
		c, _ := openai.New(openai.Options{BaseURL: s.URL})
		_, err := run(t, c, chatReq())
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 401 || !strings.Contains(se.ErrorMessage, "openaiAPIKey") {
			t.Fatalf("err %v", err)
		}
	})
}

// The context size comes from the server where it says: llama-server's
// n_ctx at once, LM Studio's loaded length once the model is loaded;
// mlx-lm and Jan say nothing, so the setting stands. The kind is learnt
// on the way (port 8080 without /props is mlx-lm).
func TestContextLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f             openaitest.Flavour
		before, after int
		kind          openai.Kind // learnt from the server (the stand-in's port says nothing)
	}{
		{openaitest.LlamaServer, 4096, 4096, openai.LlamaServer},
		{openaitest.LMStudio, 0, 4096, openai.LMStudio},
		{openaitest.MLX, 0, 0, openai.Generic},
		{openaitest.Jan, 0, 0, openai.Generic},
	} {
		t.Run(tc.f.String(), func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, tc.f, model).Script(openaitest.Reply{Text: "hi"})
			s.ContextSize = 4096
			c, err := openai.New(openai.Options{BaseURL: s.URL, APIKey: openaitest.Key})
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.ContextLength(context.Background(), model)
			if err != nil || n != tc.before {
				t.Fatalf("before a chat: %d, %v; want %d", n, err, tc.before)
			}
			if _, err := run(t, c, chatReq()); err != nil {
				t.Fatal(err)
			}
			if n, err := c.ContextLength(context.Background(), model); err != nil || n != tc.after {
				t.Errorf("after a chat: %d, %v; want %d", n, err, tc.after)
			}
			if c.Kind() != tc.kind {
				t.Errorf("kind %v, want %v", c.Kind(), tc.kind)
			}
		})
	}
}

// The start-up check names a model that cannot call tools, found from
// llama-server's template or by the one-call probe, and a model the
// server does not have.
func TestCheckModel(t *testing.T) {
	t.Parallel()
	check := func(s *openaitest.Server, m string) error {
		_, err := agent.CheckRuntime(context.Background(), client(t, s), s.URL, m, false)
		return err
	}
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/fine", func(t *testing.T) {
			t.Parallel()
			if err := check(openaitest.New(t, f, model), model); err != nil {
				t.Fatal(err)
			}
		})
		t.Run(f.String()+"/no tools", func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, f, model)
			s.NoTools = true
			// A template that takes tools proves nothing about the model:
			// the probe still runs.
			err := check(s, model)
			if !errors.Is(err, agent.ErrToolsUnsupported) || !strings.Contains(err.Error(), model) {
				t.Fatalf("err %v", err)
			}
		})
	}
	t.Run("llama-server with a template without tools", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.LlamaServer, model)
		s.PlainTemplate = true
		c, _ := openai.New(openai.Options{BaseURL: s.URL, Kind: openai.LlamaServer})
		_, err := agent.CheckRuntime(context.Background(), c, s.URL, model, false)
		// --jinja is on by default: restarting with it would change
		// nothing; the template is what lacks tools.
		if !errors.Is(err, agent.ErrToolsUnsupported) || strings.Contains(err.Error(), "--jinja") || !strings.Contains(err.Error(), "chat template") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("llama-server with a model that answers in words", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.LlamaServer, model)
		s.NoTools = true
		c, _ := openai.New(openai.Options{BaseURL: s.URL, Kind: openai.LlamaServer})
		_, err := agent.CheckRuntime(context.Background(), c, s.URL, model, false)
		if !errors.Is(err, agent.ErrToolsUnsupported) || strings.Contains(err.Error(), "--jinja") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("llama-server without --jinja", func(t *testing.T) {
		t.Parallel()
		s := openaitest.New(t, openaitest.LlamaServer, model)
		s.NoJinja = true
		c, _ := openai.New(openai.Options{BaseURL: s.URL, Kind: openai.LlamaServer})
		_, err := agent.CheckRuntime(context.Background(), c, s.URL, model, false)
		if !errors.Is(err, agent.ErrToolsUnsupported) || !strings.Contains(err.Error(), "--jinja") {
			t.Fatalf("err %v", err)
		}
	})
	for _, f := range []openaitest.Flavour{openaitest.LMStudio, openaitest.Jan} {
		t.Run(f.String()+"/missing model", func(t *testing.T) {
			t.Parallel()
			err := check(openaitest.New(t, f, model), "llama-3.2-1b")
			if !errors.Is(err, agent.ErrModelNotFound) || !strings.Contains(err.Error(), model) {
				t.Fatalf("err %v", err)
			}
		})
	}
	t.Run("not running", func(t *testing.T) {
		t.Parallel()
		url := closedURL(t)
		c, _ := openai.New(openai.Options{BaseURL: url, Kind: openai.LMStudio})
		_, err := agent.CheckRuntime(context.Background(), c, url, model, false)
		if !errors.Is(err, agent.ErrOllamaUnreachable) || !strings.Contains(err.Error(), "LM Studio is not running at "+url) || !strings.Contains(err.Error(), "lms server start") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("another machine", func(t *testing.T) {
		t.Parallel()
		c, _ := openai.New(openai.Options{BaseURL: "http://192.0.2.7:1234/v1"})
		_, err := agent.CheckRuntime(context.Background(), c, c.BaseURL(), model, false)
		if !errors.Is(err, agent.ErrCloudModel) || !strings.Contains(err.Error(), "192.0.2.7") {
			t.Fatalf("err %v", err)
		}
	})
}

// closedURL is a loopback address nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// Discover finds what answers /v1/models on the ports it is given, names
// it, and gives the settings lines; a closed port or a server that is not
// OpenAI-compatible is not reported.
func TestDiscover(t *testing.T) {
	t.Parallel()
	lm := openaitest.New(t, openaitest.LMStudio, model)
	mlx := openaitest.New(t, openaitest.MLX, "mlx-community/Qwen3-4B-Instruct-2507-4bit")
	jan := openaitest.New(t, openaitest.Jan, model)
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	port := func(u string) int {
		_, p, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/v1"))
		n, _ := strconv.Atoi(p)
		return n
	}
	ports := []openai.Port{{port(lm.URL), openai.LMStudio}, {port(mlx.URL), openai.LlamaServer}, {port(jan.URL), openai.Jan},
		{port(other.URL + "/v1"), openai.LlamaServer}, {port(closedURL(t)), openai.LMStudio}}
	found := openai.Discover(context.Background(), nil, ports, 2*time.Second)
	if len(found) != 3 {
		t.Fatalf("found %+v", found)
	}
	if found[0].Kind != openai.LMStudio || !strings.Contains(found[0].SettingsLines(), `"llmModel": "`+model+`"`) ||
		!strings.Contains(found[0].SettingsLines(), `"openaiBaseURL": "`+lm.URL+`"`) {
		t.Errorf("LM Studio: %+v %s", found[0], found[0].SettingsLines())
	}
	if found[1].Kind != openai.MLX {
		t.Errorf("port 8080 without /props is mlx-lm: %+v", found[1])
	}
	if !found[2].NeedsKey || !strings.Contains(found[2].SettingsLines(), "openaiAPIKey") {
		t.Errorf("Jan: %+v %s", found[2], found[2].SettingsLines())
	}
}

// The key never shows: a base URL that carries one is refused (it would
// be shown wherever the URL is), and a server that echoes the key in an
// error does not get it into Hark's messages.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"http://user:sk-secret@127.0.0.1:1234/v1", "http://sk-secret@127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1?api_key=sk-secret"} {
		_, err := openai.New(openai.Options{BaseURL: raw})
		if err == nil || strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%s: err %v", raw, err)
		}
	}
	const key = "sk-live-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"key %s is revoked","type":"invalid_request_error"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"error\":{\"message\":\"bad auth %s\"}}\n\n", r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CheckModel(context.Background(), model)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[openaiAPIKey]") {
		t.Errorf("check: %v", err)
	}
	err = c.Chat(context.Background(), chatReq(), func(api.ChatResponse) error { return nil })
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("chat: %v", err)
	}
}

// A key sent to another machine over plain http is a warning at start.
func TestKeyOverPlainHTTP(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.LMStudio, model)
	// The stand-in listens on loopback; a client that believes it is
	// elsewhere is made by dialling it for any name.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, strings.TrimPrefix(strings.TrimSuffix(s.URL, "/v1"), "http://"))
	}}}
	c, err := openai.New(openai.Options{BaseURL: "http://lmstudio.lan:1234/v1", APIKey: "k", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.CheckModel(context.Background(), model)
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "plain http") || strings.Contains(w[0], `"k"`) {
		t.Fatalf("warnings %q err %v", w, err)
	}
}

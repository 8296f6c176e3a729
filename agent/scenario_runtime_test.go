package agent

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent/openai"
	"github.com/hark-sh/hark/agent/openai/openaitest"
)

// These scenarios are the runtime-agnostic ones of scenario_test.go and
// scenario_server_test.go, run against each OpenAI-compatible server as
// openaitest streams it: the same loop must give the same outcomes, and
// the same messages in that server's words.

const runtimeModel = "qwen3-4b-instruct-2507"

type runtimeScenario struct {
	*harness
	srv *openaitest.Server
}

func newRuntimeScenario(t *testing.T, f openaitest.Flavour, setup func(*openaitest.Server), mod func(*Options), replies ...openaitest.Reply) *runtimeScenario {
	t.Helper()
	srv := openaitest.New(t, f, runtimeModel).Script(replies...)
	if setup != nil {
		setup(srv)
	}
	c, err := openai.New(openai.Options{BaseURL: srv.URL, APIKey: openaitest.Key})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, func(o *Options) {
		o.Model, o.Client, o.Host = runtimeModel, c, srv.URL
		if mod != nil {
			mod(o)
		}
	})
	return &runtimeScenario{harness: h, srv: srv}
}

var (
	goodRuntimeCall = openaitest.Cmd("ls /tmp", "checking")
	runtimeName     = map[openaitest.Flavour]string{openaitest.LlamaServer: "llama-server", openaitest.LMStudio: "LM Studio",
		openaitest.MLX: "the OpenAI-compatible server", openaitest.Jan: "the OpenAI-compatible server"}
)

// A call runs and its result goes back paired by id; the reasoning is
// never the answer; no preload is sent and the first turn says "loading
// model…" until its first word.
func TestRuntimeScenarioCallAndAnswer(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil,
				openaitest.Reply{Reasoning: "I should list it.", Text: "Let me look. ", Calls: []openaitest.Call{goodRuntimeCall}},
				openaitest.Reply{Reasoning: "Two files.", Text: "Two files are in tmp."})
			if err := s.agent.Preload(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := len(s.srv.Requests()); n != 0 {
				t.Fatalf("the preload sent %d chats", n)
			}
			out, err := s.agent.Run(context.Background(), NewConversation(), "what is in tmp?")
			if err != nil || out.Answer != "Two files are in tmp." {
				t.Fatalf("err %v answer %q", err, out.Answer)
			}
			if got := s.exec.commands(); !slices.Equal(got, []string{"ls /tmp"}) {
				t.Errorf("ran %q", got)
			}
			reqs := s.srv.Requests()
			calls, results := reqs[1].ToolCallIDs()
			if len(calls) != 1 || len(results) != 1 || calls[0] == "" || calls[0] != results[0] {
				t.Errorf("calls %q results %q", calls, results)
			}
			kinds := s.events.kinds()
			if len(kinds) == 0 || kinds[0] != EventLoading || slices.Index(kinds, EventThinking) < 0 {
				t.Errorf("events %v", kinds)
			}
			s.events.mu.Lock()
			for _, e := range s.events.events {
				if e.Kind == EventText && strings.Contains(e.Text, "list it") {
					t.Errorf("reasoning shown as text: %q", e.Text)
				}
			}
			s.events.mu.Unlock()
		})
	}
}

// The model's slips get one corrective turn, as on Ollama: JSON it got
// wrong, a call written as text, a reply cut by the length limit, an
// error event the server sent mid-reply; a second slip ends the request
// naming the model's output.
func TestRuntimeScenarioSlipsGetOneCorrection(t *testing.T) {
	t.Parallel()
	slips := []struct {
		name string
		bad  openaitest.Reply
	}{
		{"bad arguments", openaitest.Reply{Calls: []openaitest.Call{{Name: ToolName, Arguments: `{"command": "ls /tmp`}}}},
		{"call as text", openaitest.Reply{Text: `{"name": "execute_terminal_command", "arguments": {"command": "ls /tmp"}}`}},
		{"length", openaitest.Reply{Text: "I will explain everything about tmp first", Finish: "length"}},
		{"error event", openaitest.Reply{Text: "Let me ", StreamError: "Failed to parse input at pos 31"}},
		{"empty", openaitest.Reply{Reasoning: "hmm"}},
	}
	for _, f := range openaitest.Flavours {
		for _, sl := range slips {
			t.Run(f.String()+"/"+sl.name, func(t *testing.T) {
				t.Parallel()
				s := newRuntimeScenario(t, f, nil, nil, sl.bad, openaitest.Reply{Calls: []openaitest.Call{goodRuntimeCall}}, openaitest.Reply{Text: "Listed."})
				out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if err != nil || out.Answer != "Listed." || out.Metrics.Corrections != 1 {
					t.Fatalf("err %v answer %q metrics %+v", err, out.Answer, out.Metrics)
				}
			})
			t.Run(f.String()+"/"+sl.name+" twice", func(t *testing.T) {
				t.Parallel()
				s := newRuntimeScenario(t, f, nil, nil, sl.bad, sl.bad)
				_, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if !errors.Is(err, ErrModelOutput) {
					t.Fatalf("err %v", err)
				}
				if n := len(s.exec.commands()); n != 0 {
					t.Errorf("%d commands ran", n)
				}
			})
		}
	}
}

// An overflow is "raise the context / start a new conversation" in the
// server's words; mlx-lm does not check, and where the server says its
// context size the agent's own budget refuses first, with that size.
func TestRuntimeScenarioOverflow(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("many words ", 800) // about 2900 tokens by the agent's estimate
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/server refuses", func(t *testing.T) {
			t.Parallel()
			if f == openaitest.MLX {
				t.Skip("mlx_lm.server does not check a prompt against a context size; the budget case below covers it")
			}
			// The server loaded a small context but does not say so
			// where the agent can read it: its own refusal is the guard.
			s := newRuntimeScenario(t, f, func(s *openaitest.Server) { s.ContextSize = 1000 }, func(o *Options) {
				o.Client = noSizer{o.Client.(*openai.Client)}
			})
			_, err := s.agent.Run(context.Background(), NewConversation(), long)
			if !errors.Is(err, ErrContextOverflow) || !strings.Contains(err.Error(), "refused it rather than cut the instructions") ||
				!strings.Contains(err.Error(), "start a new conversation") {
				t.Fatalf("err %v", err)
			}
		})
		t.Run(f.String()+"/budget", func(t *testing.T) {
			t.Parallel()
			// Where the server says nothing (mlx-lm, Jan), the setting is
			// the budget; where it says, its size wins over the setting.
			setting := 2048
			if f == openaitest.LlamaServer || f == openaitest.LMStudio {
				setting = 8192
			}
			s := newRuntimeScenario(t, f, func(s *openaitest.Server) { s.ContextSize = 2048 }, func(o *Options) { o.ContextLength, o.NumPredict = setting, 512 })
			if f == openaitest.LMStudio {
				// LM Studio says its size once the model is loaded.
				s.srv.Script(openaitest.Reply{Text: "hi"})
				if _, err := s.agent.Run(context.Background(), NewConversation(), "hi"); err != nil {
					t.Fatal(err)
				}
			}
			before := len(s.srv.Requests())
			_, err := s.agent.Run(context.Background(), NewConversation(), long)
			if !errors.Is(err, ErrContextOverflow) {
				t.Fatalf("err %v", err)
			}
			if !strings.Contains(err.Error(), "the context is 2048") || len(s.srv.Requests()) != before {
				t.Errorf("err %v; %d requests sent", err, len(s.srv.Requests())-before)
			}
		})
	}
}

// noSizer hides the client's ContextLength, as a server that does not
// say its size.
type noSizer struct{ *openai.Client }

func (noSizer) ContextLength(context.Context, string) (int, error) { return 0, nil }

// Server failures are the same kinds as Ollama's, with this server's
// name and fix.
func TestRuntimeScenarioServerErrors(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/5xx", func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil, openaitest.Reply{Status: 500, Error: "CUDA error: out of memory"})
			_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
			if !errors.Is(err, ErrOllamaServer) || !strings.Contains(err.Error(), runtimeName[f]+" at "+s.srv.URL+" failed with 500") {
				t.Fatalf("err %v", err)
			}
		})
		t.Run(f.String()+"/cut", func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil, openaitest.Reply{Text: "Let me", Cut: true})
			_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
			if !errors.Is(err, ErrStreamCut) || !strings.Contains(err.Error(), runtimeName[f]) {
				t.Fatalf("err %v", err)
			}
		})
		if f != openaitest.LlamaServer { // llama-server serves whatever name it is given
			t.Run(f.String()+"/model not found", func(t *testing.T) {
				t.Parallel()
				s := newRuntimeScenario(t, f, nil, func(o *Options) { o.Model = "no-such-model" })
				_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
				if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), `"no-such-model"`) {
					t.Fatalf("err %v", err)
				}
			})
		}
	}
	t.Run("not running", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String() + "/v1"
		l.Close()
		c, _ := openai.New(openai.Options{BaseURL: url, Kind: openai.LMStudio})
		h := newHarness(t, nil, func(o *Options) { o.Client, o.Host, o.Model = c, url, runtimeModel })
		_, err = h.agent.Run(context.Background(), NewConversation(), "hi")
		if !errors.Is(err, ErrOllamaUnreachable) || !strings.Contains(err.Error(), "LM Studio is not running at "+url) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("another machine", func(t *testing.T) {
		t.Parallel()
		for _, allow := range []bool{false, true} {
			c, _ := openai.New(openai.Options{BaseURL: "http://192.0.2.7:1234/v1"})
			h := newHarness(t, nil, func(o *Options) { o.Client, o.Host, o.Model, o.AllowCloudModels = c, c.BaseURL(), runtimeModel, allow })
			ctx, cancel := context.WithCancel(context.Background())
			if allow {
				cancel() // allowed, it would go there: stop before it does
			}
			_, err := h.agent.Run(ctx, NewConversation(), "hi")
			cancel()
			if allow == errors.Is(err, ErrCloudModel) {
				t.Errorf("allow %v: err %v", allow, err)
			}
			if !allow && !strings.Contains(err.Error(), "192.0.2.7") {
				t.Errorf("err %v", err)
			}
		}
	})
}

// Errors by source, on each runtime: an error event the server sends
// after the 200 is the server failing (no corrective turn is spent on
// it, and the message blames the server), unless its words are the
// server's parser failing on the model's text; the context filling while
// the model answers is the overflow refusal.
func TestRuntimeScenarioErrorsBySource(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Flavours {
		t.Run(f.String()+"/server fails mid-reply", func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil, openaitest.Reply{Text: "Let me ", StreamError: "slot 0 crashed"}, openaitest.Reply{Text: "never"})
			out, err := s.agent.Run(context.Background(), NewConversation(), "hi")
			if !errors.Is(err, ErrOllamaServer) || !strings.Contains(err.Error(), "slot 0 crashed") || out.Metrics.Corrections != 0 {
				t.Fatalf("err %v metrics %+v", err, out.Metrics)
			}
			if n := len(s.srv.Requests()); n != 1 {
				t.Errorf("%d chats; a server failure is not the model's to correct", n)
			}
		})
		t.Run(f.String()+"/context fills mid-reply", func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil, openaitest.Reply{Text: "Let me ", StreamError: "Context size has been exceeded."})
			_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
			if !errors.Is(err, ErrContextOverflow) || !strings.Contains(err.Error(), "start a new conversation") {
				t.Fatalf("err %v", err)
			}
		})
	}
	t.Run("llama-server loading", func(t *testing.T) {
		t.Parallel()
		s := newRuntimeScenario(t, openaitest.LlamaServer, func(s *openaitest.Server) { s.Loading = true }, nil)
		_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
		if !errors.Is(err, ErrOllamaServer) || !strings.Contains(err.Error(), "still loading the model") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("jan with no model started", func(t *testing.T) {
		t.Parallel()
		s := newRuntimeScenario(t, openaitest.Jan, func(s *openaitest.Server) { s.NoneRunning = true }, nil)
		_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
		if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), runtimeModel) {
			t.Fatalf("err %v", err)
		}
	})
}

// Denials stick on each runtime as on Ollama: three in a row end the
// request, and the next request asks again.
func TestRuntimeScenarioDenialsStick(t *testing.T) {
	t.Parallel()
	rm := func(c string) openaitest.Reply {
		return openaitest.Reply{Calls: []openaitest.Call{openaitest.Cmd(c, "executing")}}
	}
	for _, f := range openaitest.Flavours {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, f, nil, nil, rm("rm -r /tmp/a"), rm("rm -r /tmp/b"), rm("mv /tmp/c /tmp/d"), rm("rm -r /tmp/a"), openaitest.Reply{Text: "Asked again."})
			_, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp")
			if !errors.Is(err, ErrDenials) || !strings.Contains(err.Error(), "stopped after 3 denials") {
				t.Fatalf("err %v", err)
			}
			if n := len(s.srv.Requests()); n != 3 {
				t.Errorf("%d model turns; the request should stop at the third denial", n)
			}
			out, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp after all")
			if err != nil || out.Answer != "Asked again." {
				t.Fatalf("err %v answer %q", err, out.Answer)
			}
			if len(s.exec.commands()) != 0 {
				t.Errorf("ran %q", s.exec.commands())
			}
		})
	}
}

// The cloud promise covers the preload too: a server on another machine
// is refused before anything is sent, whatever the app asks first; with
// allowCloudModels the preload still sends nothing (no load endpoint).
func TestRuntimeScenarioPreloadRemote(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"http://192.168.1.20:1234/v1", "http://mac-studio.local:8080/v1", "http://localhost.example.com:1337/v1"} {
		for _, allow := range []bool{false, true} {
			c, err := openai.New(openai.Options{BaseURL: raw})
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, nil, func(o *Options) { o.Client, o.Host, o.Model, o.AllowCloudModels = c, c.BaseURL(), runtimeModel, allow })
			err = h.agent.Preload(context.Background())
			if allow != (err == nil) || !allow && !errors.Is(err, ErrCloudModel) {
				t.Errorf("%s allow %v: err %v", raw, allow, err)
			}
		}
	}
}

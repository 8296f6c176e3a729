package agent

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/openai"
	"github.com/hark-sh/hark/shell"
)

// instantClient answers every odd call with one tool call and every even
// call with a final answer, without allocating a script.
type instantClient struct {
	n    int
	call api.ToolCall
}

func (c *instantClient) Chat(_ context.Context, _ *api.ChatRequest, fn api.ChatResponseFunc) error {
	c.n++
	if c.n%2 == 1 {
		if err := fn(api.ChatResponse{Message: api.Message{Role: "assistant", Content: "Checking. ", ToolCalls: []api.ToolCall{c.call}}}); err != nil {
			return err
		}
	} else if err := fn(api.ChatResponse{Message: api.Message{Role: "assistant", Content: "Done."}}); err != nil {
		return err
	}
	return fn(api.ChatResponse{Done: true})
}

type instantExecutor struct{}

func (instantExecutor) Run(_ context.Context, req shell.Request) shell.Result {
	return shell.Result{Success: true, Command: req.Command, WorkingDirectory: req.WorkingDirectory, Tier: req.Verdict.Tier,
		Executed: true, Output: "file1\nfile2\n", Sandbox: "off"}
}

// BenchmarkTurn measures the loop's own cost per model turn: building the
// request, streaming, validating and classifying a call, running it,
// encoding the result and the events. The model, the policy and the command
// are instant fakes, and no records are written, so only the loop remains.
// Each iteration of "loop" is one request of two turns (a tool call, then
// the answer); ns/turn is the figure to watch (goal: well under 1 ms).
//
// "baseline" is the irreducible work of a turn, measured in the same run:
// one call of the instant model, and every other turn one instant command
// and its result encoding. "loop" reports x-baseline, its ratio to that.
// "ollama" and "openai" run the same loop through each real adapter over
// loopback HTTP; "openai" reports x-ollama (see adapterTurns).
func BenchmarkTurn(b *testing.B) {
	var baseNsPerTurn float64
	b.Run("baseline", func(b *testing.B) {
		c := &instantClient{call: cmd("ls -la /tmp", "checking")}
		req := &api.ChatRequest{}
		sink := 0
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = c.Chat(context.Background(), req, func(r api.ChatResponse) error { sink += len(r.Message.Content); return nil })
			if i%2 == 0 {
				res := instantExecutor{}.Run(context.Background(), shell.Request{Command: "ls -la /tmp"})
				sink += len(res.JSON())
			}
		}
		baseNsPerTurn = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		_ = sink
	})
	b.Run("loop", func(b *testing.B) {
		client := &instantClient{call: cmd("ls -la /tmp", "checking")}
		a, err := New(Options{
			Client: client, Model: "qwen3:4b", Classifier: prefixClassifier{}, Executor: instantExecutor{},
			Home: b.TempDir(), SystemPrompt: "system", OnEvent: func(Event) {},
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Run(ctx, NewConversation(), "what is in tmp?"); err != nil {
				b.Fatal(err)
			}
		}
		perTurn := float64(b.Elapsed().Nanoseconds()) / float64(2*b.N)
		b.ReportMetric(perTurn, "ns/turn")
		if baseNsPerTurn > 0 {
			b.ReportMetric(perTurn/baseNsPerTurn, "x-baseline")
		}
	})
	adapterTurns(b)
}

// replayServer answers chats alternately with a tool call and an answer,
// from bodies rendered once, so that the server's share is the same
// fixed write for both adapters.
func replayServer(b *testing.B, contentType string, bodies [2][]byte) string {
	n := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodPost {
			// The openai adapter's context-size questions (/props, LM
			// Studio's lists): not served, as on mlx-lm; they must not
			// take a chat's body.
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		body := bodies[n%2]
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// Both adapters' streams of the same scripted reply: "Checking. " and a
// call of ls -la /tmp, then "Done.".
var (
	ollamaBodies = [2][]byte{
		[]byte(`{"model":"m","message":{"role":"assistant","content":"Checking. "},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"execute_terminal_command","arguments":{"command":"ls -la /tmp","purpose":"checking"}}}]},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"),
		[]byte(`{"model":"m","message":{"role":"assistant","content":"Done."},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"),
	}
	openaiBodies = [2][]byte{
		[]byte(`data: {"choices":[{"index":0,"delta":{"content":"Checking. "},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"abc","type":"function","function":{"name":"execute_terminal_command","arguments":""}}]},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\":\"ls -la /tmp\","}}]},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"purpose\":\"checking\"}"}}]},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}` + "\n\n" +
			"data: [DONE]\n\n"),
		[]byte(`data: {"choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
			"data: [DONE]\n\n"),
	}
)

// adapterTurns are BenchmarkTurn's "ollama" and "openai": the loop over
// HTTP through each adapter on the same scripted reply, in the same run: "ollama" through Ollama's own
// client and NDJSON, "openai" through agent/openai and SSE (its context
// size question included: the replay server answers it with a 404, as
// mlx-lm would). "openai" reports x-ollama, its time per turn as a ratio
// to the Ollama adapter's.
func adapterTurns(b *testing.B) {
	var ollamaNs float64
	bench := func(b *testing.B, client ChatClient) float64 {
		a, err := New(Options{
			Client: client, Model: "m", Classifier: prefixClassifier{}, Executor: instantExecutor{},
			Home: b.TempDir(), SystemPrompt: "system", OnEvent: func(Event) {},
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Run(ctx, NewConversation(), "what is in tmp?"); err != nil {
				b.Fatal(err)
			}
		}
		perTurn := float64(b.Elapsed().Nanoseconds()) / float64(2*b.N)
		b.ReportMetric(perTurn, "ns/turn")
		return perTurn
	}
	b.Run("ollama", func(b *testing.B) {
		u, _ := url.Parse(replayServer(b, "application/x-ndjson", ollamaBodies))
		ollamaNs = bench(b, NewOllamaClient(u))
	})
	b.Run("openai", func(b *testing.B) {
		c, err := openai.New(openai.Options{BaseURL: replayServer(b, "text/event-stream", openaiBodies) + "/v1"})
		if err != nil {
			b.Fatal(err)
		}
		if ns := bench(b, c); ollamaNs > 0 {
			b.ReportMetric(ns/ollamaNs, "x-ollama")
		}
	})
}

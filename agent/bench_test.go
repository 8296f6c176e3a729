package agent

import (
	"context"
	"testing"

	"github.com/ollama/ollama/api"

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
}

package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// One request through the loop, against a scripted Ollama: the model asks
// for one command, the policy finds it read-only so it runs without asking,
// its result goes back as a tool message, and the model's next reply, with
// no tool call, is the answer.
func Example() {
	t := new(exampleTB)
	defer t.cleanup()
	srv := ollamatest.New(t).Script(
		ollamatest.Reply{Text: "Let me look. ", Calls: []api.ToolCall{
			ollamatest.Call("command", "ls ~/notes", "purpose", "checking"),
		}},
		ollamatest.Reply{Text: "You have two notes: groceries.txt and todo.txt."},
	)
	host, _ := url.Parse(srv.URL)
	// Ada's home: a command runs only in a folder that exists.
	home, err := os.MkdirTemp("", "ada-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)

	a, err := agent.New(agent.Options{
		Client:     agent.NewOllamaClient(host),
		Model:      agent.DefaultModel,
		Classifier: shell.NewPolicy(),
		Executor:   notesExecutor{}, // Hark passes shell.NewRunner(...)
		Home:       home,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := a.Run(context.Background(), agent.NewConversation(), "what notes do I have?")
	if err != nil {
		fmt.Println(err)
		return
	}
	// The second request carried the command's result back to the model.
	for _, m := range srv.Requests()[1].Messages {
		if m.Role == "tool" {
			var res shell.Result
			if err := json.Unmarshal([]byte(m.Content), &res); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("tool result: tier %s, executed %v, output %q\n", res.Tier, res.Executed, res.Output)
		}
	}
	fmt.Println("answer:", out.Answer)
	// Output:
	// run ls ~/notes (safe, checking)
	// tool result: tier safe, executed true, output "groceries.txt\ntodo.txt\n"
	// answer: You have two notes: groceries.txt and todo.txt.
}

// notesExecutor stands in for shell.Runner so the output is the same on
// every machine; it shows what the loop hands to the runner.
type notesExecutor struct{}

func (notesExecutor) Run(_ context.Context, req shell.Request) shell.Result {
	fmt.Printf("run %s (%s, %s)\n", req.Command, req.Verdict.Tier, req.Purpose)
	return shell.Result{Success: true, Executed: true, Command: req.Command, Tier: req.Verdict.Tier,
		Output: "groceries.txt\ntodo.txt\n", Sandbox: shell.SandboxApplied}
}

// exampleTB is the part of testing.TB that ollamatest.New uses, for an
// example, which has no *testing.T: a failure panics, cleanups run at the end.
type exampleTB struct {
	testing.TB // nil; ollamatest calls only the methods below
	cleanups   []func()
}

func (*exampleTB) Helper()                        {}
func (*exampleTB) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (t *exampleTB) Cleanup(f func())             { t.cleanups = append(t.cleanups, f) }

func (t *exampleTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

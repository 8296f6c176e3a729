package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/hark-sh/hark/shell"
)

// Runtime is implemented by a ChatClient that talks to a server other than
// Ollama (an OpenAI-compatible one: LM Studio, llama-server, mlx-lm, Jan),
// so that errors name that server and its own fixes instead of Ollama's.
// The loop itself never branches on it: only the words of messages, the
// preload (such servers have no load endpoint) and the cloud refusal read
// it. *openai.Client satisfies it.
type Runtime interface {
	// RuntimeName names the server in messages ("LM Studio").
	RuntimeName() string
	// StartHint says how to start the server.
	StartHint() string
	// ModelHint says how to make model available on it.
	ModelHint(model string) string
	// ContextHint says how to give the model a larger context there.
	ContextHint() string
	// ToolsHint says how to get a model that calls tools there.
	ToolsHint(model string) string
	// RemoteHost is the host of the server when it is not this machine,
	// "" when it is: such a server receives every request.
	RemoteHost() string
}

// ContextSizer is implemented by a ChatClient whose server fixes the
// context size when it loads the model, so no request can ask for one:
// ContextLength is that size, or 0 when the server does not say. The
// agent then fits requests into it instead of the contextLength setting.
type ContextSizer interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// runtimeOf is the client's Runtime, nil for Ollama.
func (a *Agent) runtimeOf() Runtime {
	rt, _ := a.o.Client.(Runtime)
	return rt
}

// classify is the package's classify with this agent's server.
func (a *Agent) classify(ctx context.Context, err error) *Error {
	return classifyOn(ctx, err, a.o.Host, a.o.Model, a.runtimeOf())
}

// contextLength is the budget of one request: the size the server
// reports when it fixes one itself, else Options.ContextLength. A server
// that cannot say (or a failing ask) leaves the setting in force; the
// server's own refusal still stops an overflow.
//
// fromServer says the size is the server's, so the advice for a request
// that does not fit names the server's own setting (llama-server's -c):
// contextLength would change nothing there.
func (a *Agent) contextLength(ctx context.Context) (n int, fromServer bool) {
	cs, ok := a.o.Client.(ContextSizer)
	if !ok {
		return a.o.ContextLength, false
	}
	n, err := cs.ContextLength(ctx, a.o.Model)
	if err != nil || n <= 0 {
		return a.o.ContextLength, false
	}
	return n, true
}

// words are what messages call the server and its fixes.
type words struct {
	name, start, context, logs string
	model                      func(string) string
	tools                      func(string) string
}

func wordsFor(rt Runtime, model string) words {
	if rt == nil {
		return words{
			name:    "Ollama",
			start:   "start it with `ollama serve` or open the Ollama app (or point OLLAMA_HOST / the ollamaHost setting at where it runs)",
			context: "raise contextLength in settings",
			logs:    "check its log (~/.ollama/logs/server.log, or the Ollama app's logs)",
			model: func(m string) string {
				return fmt.Sprintf("run `ollama pull %s`, or pick an installed model with --model or the ollamaModel setting (`ollama list` shows them)", m)
			},
			tools: func(m string) string {
				return fmt.Sprintf("choose a tool-capable model such as %s (for example `ollama pull %s`), then pass --model or set ollamaModel in settings",
					strings.Join(ToolCapableModels, ", "), ToolCapableModels[0])
			},
		}
	}
	return words{
		name:    rt.RuntimeName(),
		start:   rt.StartHint(),
		context: rt.ContextHint(),
		logs:    "check its log",
		model:   rt.ModelHint,
		tools:   rt.ToolsHint,
	}
}

// RuntimeChecker is a Runtime that can check a model before the first
// request (*openai.Client): that the server answers, serves the model and
// that the model calls tools, which no list of its shows.
type RuntimeChecker interface {
	Runtime
	CheckModel(ctx context.Context, model string) (warnings []string, _ error)
}

// CheckRuntime is Check for a server other than Ollama, with the same
// errors Run would return and the same cloud promise: a server on another
// machine is refused unless allowCloud.
func CheckRuntime(ctx context.Context, c RuntimeChecker, host, model string, allowCloud bool) (warnings []string, _ error) {
	if remote := c.RemoteHost(); remote != "" {
		if !allowCloud {
			return nil, serverCloudError(c.RuntimeName(), host, model, remote)
		}
		warnings = append(warnings, fmt.Sprintf("%s runs on %s, not this machine: what you say and every command's output go there (allowCloudModels is on)", c.RuntimeName(), remote))
	}
	w, err := c.CheckModel(ctx, model)
	if err != nil {
		e := classifyOn(ctx, err, host, model, c)
		if _, served, ok := strings.Cut(err.Error(), "; served: "); ok && e.Kind == ErrModelNotFound {
			e.msg += " (served: " + served + ")"
		}
		return nil, e
	}
	return append(warnings, w...), nil
}

// ProbeRuntime is the model server's line in `hark doctor` when it is not
// Ollama: CheckRuntime, with the next step split off the message.
func ProbeRuntime(ctx context.Context, c RuntimeChecker, host, model string, allowCloud bool) (string, error) {
	warnings, err := CheckRuntime(ctx, c, host, model, allowCloud)
	if err != nil {
		problem, next, _ := strings.Cut(err.Error(), "; ")
		return "", &shell.ProbeError{Problem: problem, Next: next}
	}
	detail := fmt.Sprintf("%s at %s serves %s, which calls tools", c.RuntimeName(), host, model)
	if cs, ok := c.(ContextSizer); ok {
		if n, err := cs.ContextLength(ctx, model); err == nil && n > 0 {
			detail += fmt.Sprintf("; context %d tokens", n)
		}
	}
	if len(warnings) > 0 {
		return "", &shell.ProbeError{Problem: detail + "; " + strings.Join(warnings, "; "), Next: "see the warning", Minor: true}
	}
	return detail, nil
}

package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/internal/loopback"
)

// RuntimeName names the server in messages.
func (c *Client) RuntimeName() string { return c.Kind().String() }

// StartHint says how to start the server.
func (c *Client) StartHint() string {
	switch c.Kind() {
	case LMStudio:
		return "open LM Studio and start its local server (Developer tab, or `lms server start`), or point openaiBaseURL at where it runs"
	case LlamaServer:
		return "start it, e.g. `llama-server --jinja -m model.gguf -c 16384 --port 8080`, or point openaiBaseURL at where it runs"
	case MLX:
		return "start it, e.g. `mlx_lm.server --model mlx-community/Qwen3-4B-Instruct-2507-4bit --port 8080`, or point openaiBaseURL at where it runs"
	case Jan:
		return "open Jan and turn on its Local API Server (Settings → Local API Server), and set openaiAPIKey to its key"
	}
	return "start it, or point openaiBaseURL at where it runs"
}

// ModelHint says how to make model available.
func (c *Client) ModelHint(model string) string {
	switch c.Kind() {
	case LMStudio:
		return fmt.Sprintf("download it in LM Studio (`lms get %s`), or set llmModel to one `lms ls` lists", model)
	case LlamaServer:
		return "llama-server serves the one model it was started with (-m); set llmModel to the name /v1/models shows, or restart it with the model you want"
	case MLX:
		return fmt.Sprintf("mlx_lm.server loads a Hugging Face model by name on first use; check that %q is such a name (e.g. mlx-community/Qwen3-4B-Instruct-2507-4bit)", model)
	case Jan:
		return fmt.Sprintf("download and start %s in Jan, or set llmModel to a model id its Local API Server lists", model)
	}
	return "set llmModel to a model the server's /v1/models lists"
}

// ContextHint says how to give the model a larger context.
func (c *Client) ContextHint() string {
	switch c.Kind() {
	case LMStudio:
		return "load the model with a larger context length (LM Studio's load settings, or `lms load MODEL --context-length 16384`)"
	case LlamaServer:
		// The context is fixed when llama-server starts; the contextLength
		// setting sizes nothing there.
		return "restart llama-server with a larger -c (e.g. -c 16384)"
	case MLX:
		return "lower contextLength in settings to what the model handles"
	case Jan:
		return "raise the model's context size in Jan's model settings"
	}
	return "raise the server's context size, or contextLength in settings"
}

// ToolsHint says how to get a model that calls tools.
// On llama-server it follows what the start-up check found: --jinja is on
// by default in current builds, so restarting with it is the fix only
// when the server said it lacks it.
func (c *Client) ToolsHint(model string) string {
	const pick = "a model that calls tools (qwen3, qwen2.5, llama3.1 or mistral-nemo instruct builds)"
	if c.Kind() == LlamaServer {
		c.mu.Lock()
		why := c.noTools
		c.mu.Unlock()
		switch why {
		case noJinja:
			return "restart llama-server with --jinja (its tool calls need the model's own chat template)"
		case plainTemplate:
			return "the model's chat template takes no tools: restart llama-server with " + pick + ", or give it a template that does (--chat-template-file)"
		}
		return "restart llama-server with " + pick
	}
	return "load " + pick + ", then set llmModel in settings"
}

// RemoteHost is the server's host when it is not this machine.
func (c *Client) RemoteHost() string {
	if h := c.base.Hostname(); !loopback.Is(h) {
		return h
	}
	return ""
}

// get reads path under the server's root (or base when v1) into v.
func (c *Client) get(ctx context.Context, path string, v any) error {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	resp, err := c.do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(v)
}

func (c *Client) rootURL(p string) string { return strings.TrimRight(c.root.String(), "/") + p }

// props is what llama-server's GET /props says; LM Studio and mlx-lm
// have no such endpoint.
type props struct {
	DefaultGenerationSettings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	ChatTemplate     string `json:"chat_template"`
	ChatTemplateCaps *struct {
		SupportsTools *bool `json:"supports_tools"`
	} `json:"chat_template_caps"`
}

// lmModelsV1 is LM Studio 0.4's GET /api/v1/models: each model by key,
// with the context each loaded instance was given.
type lmModelsV1 struct {
	Models []struct {
		Key             string `json:"key"`
		LoadedInstances []struct {
			ID     string `json:"id"`
			Config struct {
				ContextLength int `json:"context_length"`
			} `json:"config"`
		} `json:"loaded_instances"`
		MaxContextLength int `json:"max_context_length"`
	} `json:"models"`
}

// lmModels is LM Studio's GET /api/v0/models (0.3.6 and later).
type lmModels struct {
	Data []struct {
		ID                  string `json:"id"`
		State               string `json:"state"`
		LoadedContextLength int    `json:"loaded_context_length"`
		MaxContextLength    int    `json:"max_context_length"`
	} `json:"data"`
}

func (c *Client) props(ctx context.Context) (*props, error) {
	var p props
	if err := c.get(ctx, c.rootURL("/props"), &p); err != nil {
		return nil, err
	}
	if p.DefaultGenerationSettings.NCtx <= 0 && p.ChatTemplate == "" {
		return nil, fmt.Errorf("no llama-server properties")
	}
	return &p, nil
}

// ContextLength is the context the server gives model: llama-server's
// n_ctx from /props (fixed by -c at its start), LM Studio's
// loaded_context_length from /api/v0/models once the model is loaded.
// 0 when the server does not say (mlx-lm, Jan, LM Studio before the
// first load): the contextLength setting then stands, and the server's
// refusal still stops an overflow.
func (c *Client) ContextLength(ctx context.Context, model string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	k := c.Kind()
	c.mu.Lock()
	detected := c.detected
	c.mu.Unlock()
	if !detected || k == LlamaServer {
		if p, err := c.props(ctx); err == nil {
			c.learn(LlamaServer)
			return p.DefaultGenerationSettings.NCtx, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	if !detected || k == LMStudio {
		var v1 lmModelsV1
		if err := c.get(ctx, c.rootURL("/api/v1/models"), &v1); err == nil && v1.Models != nil {
			c.learn(LMStudio)
			for _, m := range v1.Models {
				for _, in := range m.LoadedInstances {
					// The /v1 model id is the key, or an instance's id
					// ("key:2") when the model is loaded twice.
					if (m.Key == model || in.ID == model) && in.Config.ContextLength > 0 {
						return in.Config.ContextLength, nil
					}
				}
			}
			return 0, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		var m lmModels
		if err := c.get(ctx, c.rootURL("/api/v0/models"), &m); err == nil && m.Data != nil {
			c.learn(LMStudio)
			for _, d := range m.Data {
				if d.ID == model && d.State == "loaded" {
					return d.LoadedContextLength, nil
				}
			}
			return 0, nil
		}
	}
	if !detected && k == LlamaServer {
		// Port 8080 without /props: mlx_lm.server.
		c.learn(MLX)
	} else if !detected {
		c.learn(k)
	}
	return 0, nil
}

// Models lists the model ids /v1/models shows.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var l struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.get(ctx, c.base.String()+"/models", &l); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(l.Data))
	for _, d := range l.Data {
		ids = append(ids, d.ID)
	}
	return ids, nil
}

// CheckModel is the start-up check: the server answers, model is one it
// serves, and the model calls tools. Tool support shows nowhere in
// /v1/models: llama-server's /props says whether its template handles
// tools (it does not without --jinja); elsewhere one tiny tool call is
// asked for, and plain text back means the model cannot. The errors are
// the shapes the agent classifies (not running, 404, "does not support
// tools"). Warnings do not stop a request.
func (c *Client) CheckModel(ctx context.Context, model string) (warnings []string, _ error) {
	if c.key != "" && c.base.Scheme == "http" && c.RemoteHost() != "" {
		warnings = append(warnings, fmt.Sprintf("openaiAPIKey goes to %s over plain http, readable on the way; use an https openaiBaseURL", c.RemoteHost()))
	}
	ids, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.ContextLength(ctx, model); err != nil && ctx.Err() != nil {
		return nil, err
	}
	kind := c.Kind()
	// llama-server serves one model whatever the name; mlx-lm loads any
	// Hugging Face name on first use. Elsewhere the list is the truth.
	if kind != LlamaServer && kind != MLX && len(ids) > 0 && !slices.Contains(ids, model) {
		return nil, api.StatusError{StatusCode: http.StatusNotFound,
			ErrorMessage: fmt.Sprintf("model %q not found; served: %s", model, strings.Join(ids, ", "))}
	}
	if kind == LlamaServer {
		if p, err := c.props(ctx); err == nil {
			switch {
			case p.ChatTemplateCaps != nil && p.ChatTemplateCaps.SupportsTools != nil:
				// The caps describe the template, not whether the server
				// renders it (--jinja) nor whether the model calls: a no
				// is final, a yes still needs the probe.
				if !*p.ChatTemplateCaps.SupportsTools {
					c.setNoTools(plainTemplate)
					return nil, noTools(model)
				}
			case p.ChatTemplate != "" && !strings.Contains(p.ChatTemplate, "tools"):
				c.setNoTools(plainTemplate)
				return nil, noTools(model)
			}
		}
	}
	ok, err := c.probeTools(ctx, model)
	if err != nil {
		return nil, err
	}
	if !ok {
		if c.noToolsWhy() == toolsUnknown {
			c.setNoTools(answeredInWords)
		}
		return nil, noTools(model)
	}
	return warnings, nil
}

// Why the start-up check found no tool calls, for ToolsHint.
const (
	toolsUnknown    = iota
	noJinja         // the server refused tools: started without --jinja
	plainTemplate   // the model's chat template has no tools
	answeredInWords // the model answered the probe in words
)

func (c *Client) setNoTools(why int) {
	c.mu.Lock()
	c.noTools = why
	c.mu.Unlock()
}

func (c *Client) noToolsWhy() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.noTools
}

func noTools(model string) api.StatusError {
	return api.StatusError{StatusCode: http.StatusBadRequest, ErrorMessage: fmt.Sprintf("%s does not support tools", model)}
}

// probeTools asks for one call of a tool that does nothing and says
// whether a call came back.
func (c *Client) probeTools(ctx context.Context, model string) (bool, error) {
	tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: "ping", Description: "Answers pong. Call it when asked to ping."}}
	tool.Function.Parameters.Type = "object"
	off := false
	req := &api.ChatRequest{Model: model, Tools: api.Tools{tool}, Think: &api.ThinkValue{Value: off},
		Messages: []api.Message{{Role: "user", Content: "Call the ping tool now."}}, Options: map[string]any{"num_predict": 256}}
	resp, err := c.post(ctx, "/chat/completions", c.request(req, true))
	if err != nil {
		// llama-server without --jinja refuses tools outright.
		if se, ok := err.(api.StatusError); ok && strings.Contains(strings.ToLower(se.ErrorMessage), "jinja") {
			c.setNoTools(noJinja)
			return false, nil
		}
		return false, err
	}
	defer resp.Body.Close()
	called := false
	err = readStream(ctx, resp.Body, model, func(r api.ChatResponse) error {
		called = called || len(r.Message.ToolCalls) > 0
		return nil
	})
	if err != nil && !called {
		if se, ok := err.(api.StatusError); ok {
			return false, se
		}
		// A call the server could not assemble is still a call: the
		// model tried, and the loop corrects such slips.
		return strings.Contains(err.Error(), "tool call"), nil
	}
	return called, nil
}

// Ports are where the runtimes listen by default, in the order `hark
// doctor` looks.
var Ports = []Port{
	{1234, LMStudio},
	{8080, LlamaServer}, // and mlx_lm.server
	{1337, Jan},
}

// Port is where one runtime listens.
type Port struct {
	Port int
	Kind Kind
}

// Found is a server answering on one of Ports.
type Found struct {
	Kind    Kind
	BaseURL string
	Models  []string
	// NeedsKey: it answered 401, so it runs but wants openaiAPIKey.
	NeedsKey bool
}

// Discover looks for servers on this machine's usual ports, each with a
// short timeout, on loopback only (nothing is ever asked of another
// machine). hc nil: a plain client.
func Discover(ctx context.Context, hc *http.Client, ports []Port, timeout time.Duration) []Found {
	type result struct {
		i int
		f *Found
	}
	ch := make(chan result, len(ports))
	for i, p := range ports {
		go func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			c, err := New(Options{BaseURL: fmt.Sprintf("http://127.0.0.1:%d/v1", p.Port), Kind: p.Kind, HTTPClient: hc})
			if err != nil {
				ch <- result{i, nil}
				return
			}
			ids, err := c.Models(ctx)
			var se api.StatusError
			switch {
			case err == nil:
			case asStatus(err, &se) && se.StatusCode == http.StatusUnauthorized:
				ch <- result{i, &Found{Kind: p.Kind, BaseURL: c.BaseURL(), NeedsKey: true}}
				return
			default:
				ch <- result{i, nil}
				return
			}
			if p.Kind == LlamaServer {
				if _, err := c.props(ctx); err != nil {
					c.learn(MLX)
				}
			}
			ch <- result{i, &Found{Kind: c.Kind(), BaseURL: c.BaseURL(), Models: ids}}
		}()
	}
	found := make([]*Found, len(ports))
	for range ports {
		r := <-ch
		found[r.i] = r.f
	}
	var out []Found
	for _, f := range found {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

func asStatus(err error, se *api.StatusError) bool {
	s, ok := err.(api.StatusError)
	if ok {
		*se = s
	}
	return ok
}

// SettingsLines are the settings.json lines that switch Hark to f.
func (f Found) SettingsLines() string {
	model := "MODEL"
	if len(f.Models) > 0 {
		model = f.Models[0]
	}
	s := fmt.Sprintf(`"llmRuntime": "openai", "openaiBaseURL": %q, "llmModel": %q`, f.BaseURL, model)
	if f.NeedsKey || f.Kind == Jan {
		s += `, "openaiAPIKey": "KEY"`
	}
	return s
}

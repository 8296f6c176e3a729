package openai

import (
	"encoding/json"

	"github.com/ollama/ollama/api"
)

// The wire shapes of /v1/chat/completions as the local servers speak it.
// Ollama's own openai package has most of them, but not the fields these
// servers add (reasoning_content, chat_template_kwargs), and it would tie
// the request to Ollama's server-side choices; these are only the fields
// Hark sends and reads.

type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []message      `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Tools         []api.Tool     `json:"tools,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	Seed          *int           `json:"seed,omitempty"`
	// ChatTemplateKwargs reach the model's chat template: llama-server,
	// LM Studio and mlx-lm pass enable_thinking to qwen3-style templates.
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

type toolCall struct {
	// Index orders the fragments of a streamed call; a pointer because
	// older mlx-lm builds leave it out, and 0 is a real index.
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type chunk struct {
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
	// Error is a failure reported inside the stream: an object with a
	// message (llama-server) or a string (LM Studio), read by errorText.
	Error json.RawMessage `json:"error,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Message      *delta  `json:"message,omitempty"` // a non-streamed reply (the tool probe)
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Content string `json:"content"`
	// Reasoning arrives under either name: llama-server and LM Studio's
	// older builds say reasoning_content, LM Studio's newer ones and
	// Ollama's /v1 say reasoning.
	ReasoningContent string     `json:"reasoning_content"`
	Reasoning        string     `json:"reasoning"`
	ToolCalls        []toolCall `json:"tool_calls"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type errorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

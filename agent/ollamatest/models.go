package ollamatest

import (
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Model is one installed model: how the server renders its prompt, which
// parser turns its raw text into content, thinking and tool calls, and what
// /api/show reports about it.
type Model struct {
	Name   string
	Family string // details.family and the model_info key prefix
	// Template is an Ollama chat template (Go text/template with Ollama's
	// functions). It renders the prompt, and when Parser is empty the
	// server derives the tool-call tag and thinking tags from it, exactly
	// as Ollama does for models without a built-in parser.
	Template string
	// Parser names a built-in parser of github.com/ollama/ollama/model/parsers
	// ("qwen3", "qwen3-thinking", …); it replaces the template parsers.
	Parser       string
	Capabilities []model.Capability
	// ContextLength is the model's trained maximum, reported by /api/show
	// as model_info["<family>.context_length"]; 0 leaves it out.
	ContextLength int
	// FormatCall writes a tool call the way this model family emits it, so
	// a script can say Calls and the raw text still goes through the
	// parsers. Nil: the qwen style.
	FormatCall func(api.ToolCall) string
	// RemoteHost and RemoteModel make this a cloud model: /api/show and
	// /api/tags report them, and a chat would be forwarded there.
	RemoteHost, RemoteModel string
}

// QwenTemplate is a ChatML template in the style of Ollama's qwen2.5 and
// qwen3 instruct templates: tools as JSON inside <tools>, calls inside
// <tool_call> tags. Like the templates it imitates, an assistant message
// with both text and tool calls renders as the text only (ollama#10698).
const QwenTemplate = `{{- if or .System .Tools }}<|im_start|>system
{{ if .System }}{{ .System }}{{ end }}
{{- if .Tools }}

# Tools

You may call functions to help with the request. Signatures:
<tools>
{{- range .Tools }}
{{ json .Function }}
{{- end }}
</tools>

To call a function write a JSON object with its name and arguments between tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>
{{- end }}<|im_end|>
{{ end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 -}}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{- else if .ToolCalls }}<tool_call>
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
{{ end }}</tool_call>
{{- end }}{{ if not $last }}<|im_end|>
{{ end }}
{{- else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- if and (ne .Role "assistant") $last }}<|im_start|>assistant
{{ end }}
{{- end }}`

// LlamaTemplate is in the style of Ollama's llama3.1 template: a call is a
// bare JSON object, so the tool tag Ollama derives is "{" and any text
// before the object switches tool parsing off for the rest of the reply.
const LlamaTemplate = `{{- if or .System .Tools }}<|start_header_id|>system<|end_header_id|>
{{- if .System }}

{{ .System }}
{{- end }}
{{- if .Tools }}

To call a function, reply with only a JSON object {"name": function name, "parameters": arguments}. Functions:
{{ range .Tools }}{{ json . }}
{{ end }}
{{- end }}<|eot_id|>
{{- end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 }}
{{- if eq .Role "user" }}<|start_header_id|>user<|end_header_id|>

{{ .Content }}<|eot_id|>
{{- if $last }}<|start_header_id|>assistant<|end_header_id|>

{{ end }}
{{- else if eq .Role "assistant" }}<|start_header_id|>assistant<|end_header_id|>
{{- if .ToolCalls }}
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "parameters": {{ .Function.Arguments }}}{{ end }}
{{- else }}

{{ .Content }}
{{- end }}{{ if not $last }}<|eot_id|>{{ end }}
{{- else if eq .Role "tool" }}<|start_header_id|>ipython<|end_header_id|>

{{ .Content }}<|eot_id|>{{ if $last }}<|start_header_id|>assistant<|end_header_id|>

{{ end }}
{{- end }}
{{- end }}`

// QwenThinkTemplate adds qwen3's <think> block to QwenTemplate, so the
// server infers the thinking tags from the template.
const QwenThinkTemplate = QwenTemplate + `{{- if and $.IsThinkSet (not $.Think) }}<think>

</think>

{{ end }}`

var (
	completion = model.CapabilityCompletion
	capTools   = model.CapabilityTools
	capThink   = model.CapabilityThinking
)

// QwenStyle is a template-parsed qwen-style model (qwen2.5 family).
func QwenStyle(name string) Model {
	return Model{Name: name, Family: "qwen2", Template: QwenTemplate, Capabilities: []model.Capability{completion, capTools}, ContextLength: 32768}
}

// LlamaStyle is a template-parsed llama-style model (llama3.1 family).
func LlamaStyle(name string) Model {
	return Model{Name: name, Family: "llama", Template: LlamaTemplate, Capabilities: []model.Capability{completion, capTools}, ContextLength: 131072, FormatCall: LlamaCall}
}

// Qwen3 is a model on Ollama's built-in qwen3 parser without thinking, like
// qwen3:4b-instruct-2507.
func Qwen3(name string) Model {
	return Model{Name: name, Family: "qwen3", Template: QwenTemplate, Parser: "qwen3", Capabilities: []model.Capability{completion, capTools}, ContextLength: 262144}
}

// Qwen3Thinking is a thinking-only model on the built-in parser, like what
// the qwen3:4b tag points at now (ollama#12022): it thinks even when told
// not to.
func Qwen3Thinking(name string) Model {
	return Model{Name: name, Family: "qwen3", Template: QwenThinkTemplate, Parser: "qwen3-thinking", Capabilities: []model.Capability{completion, capTools, capThink}, ContextLength: 262144}
}

// NoTools is a model that cannot call tools.
func NoTools(name string) Model {
	return Model{Name: name, Family: "gemma", Template: QwenTemplate, Capabilities: []model.Capability{completion}, ContextLength: 8192}
}

// QwenCall writes c in <tool_call> tags, as qwen models do.
func QwenCall(c api.ToolCall) string {
	return fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", quote(c.Function.Name), argsJSON(c))
}

// LlamaCall writes c as a bare JSON object with "parameters", as llama
// models do.
func LlamaCall(c api.ToolCall) string {
	return fmt.Sprintf("{\"name\": %s, \"parameters\": %s}", quote(c.Function.Name), argsJSON(c))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func argsJSON(c api.ToolCall) string {
	b, err := json.Marshal(c.Function.Arguments)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// Call builds an execute_terminal_command call from argument pairs.
func Call(kv ...any) api.ToolCall { return NamedCall("execute_terminal_command", kv...) }

// NamedCall builds a call of any tool name from argument pairs.
func NamedCall(name string, kv ...any) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i].(string), kv[i+1])
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}}
}

// Cloud is a stub of a model served by ollama.com, as `ollama pull
// gpt-oss:120b-cloud` installs: /api/show reports its remote host.
func Cloud(name string) Model {
	m := Qwen3(name)
	m.RemoteHost, m.RemoteModel = "https://ollama.com:443", name
	return m
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/internal/loopback"
)

// Kinds of failure a caller may branch on with errors.Is. Every error Run
// returns wraps exactly one of them inside an *Error whose message says what
// to do next.
var (
	ErrOllamaUnreachable = errors.New("ollama is not reachable")
	ErrModelNotFound     = errors.New("model not installed")
	ErrToolsUnsupported  = errors.New("model cannot call tools")
	ErrOllamaServer      = errors.New("ollama server error")
	ErrOllama            = errors.New("ollama refused the request")
	ErrStreamCut         = errors.New("reply cut off")
	ErrTurnLimit         = errors.New("turn limit reached")
	ErrCancelled         = errors.New("cancelled")
	ErrContextOverflow   = errors.New("request does not fit the context")
	ErrModelOutput       = errors.New("model produced no usable reply")
	ErrCloudModel        = errors.New("model is not served on this machine")
	ErrOllamaTooOld      = errors.New("ollama is older than hark needs")
	ErrDenials           = errors.New("stopped after repeated denials")
)

// ToolCapableModels are suggested when a model cannot call tools.
var ToolCapableModels = []string{DefaultModel, "qwen3:8b", "qwen2.5:7b", "llama3.1:8b", "mistral-nemo"}

// Error is a failure with the next step for the user in its message.
type Error struct {
	Kind   error  // one of the Err* sentinels
	Host   string // Ollama's address, when it matters
	Model  string
	Status int   // HTTP status, when Ollama answered with one
	Err    error // the underlying error, if any
	msg    string
}

func (e *Error) Error() string { return e.msg }

// Unwrap lets errors.Is match both the kind and the cause (for example
// context.Canceled).
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// classify turns whatever the Ollama client returned into an *Error with
// an actionable message.
func classify(ctx context.Context, err error, host, model string) *Error {
	return classifyOn(ctx, err, host, model, nil)
}

// classifyOn is classify for the server rt describes (nil: Ollama): the
// same kinds and the same next steps, in that server's words.
func classifyOn(ctx context.Context, err error, host, model string, rt Runtime) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	mk := func(kind error, status int, format string, args ...any) *Error {
		return &Error{Kind: kind, Host: host, Model: model, Status: status, Err: err, msg: fmt.Sprintf(format, args...)}
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return mk(ErrCancelled, 0, "cancelled; the conversation so far is saved")
	}
	w := wordsFor(rt, model)
	var se api.StatusError
	if errors.As(err, &se) {
		text := se.ErrorMessage
		if text == "" {
			text = se.Status
		}
		low := strings.ToLower(text)
		switch {
		case isOverflow(low):
			return mk(ErrContextOverflow, se.StatusCode,
				"the conversation no longer fits the model's context (%s at %s refused it rather than cut the instructions); %s or start a new conversation", w.name, host, w.context)
		case strings.Contains(low, "does not support tools"):
			return mk(ErrToolsUnsupported, se.StatusCode,
				"model %q cannot call tools, which Hark needs to run commands; %s", model, w.tools(model))
		case se.StatusCode == 404 || strings.Contains(low, "not found"):
			return mk(ErrModelNotFound, se.StatusCode,
				"model %q is not installed in %s at %s; %s", model, w.name, host, w.model(model))
		case se.StatusCode >= 500:
			return mk(ErrOllamaServer, se.StatusCode,
				"%s at %s failed with %d (%s); %s and try again — restarting %s often helps",
				w.name, host, se.StatusCode, strings.TrimSpace(text), w.logs, w.name)
		case rt != nil:
			// Such a server serves the model it loaded whatever the name,
			// and one that refuses what Hark sends is as likely current:
			// the request is what it did not accept.
			return mk(ErrOllama, se.StatusCode, "%s at %s refused Hark's request with %d (%s); this server does not accept something Hark sends, which no setting of yours changes: docs/models.md names the builds Hark is tested with — please report it with this message",
				w.name, host, se.StatusCode, strings.TrimSpace(text))
		default:
			return mk(ErrOllama, se.StatusCode, "%s at %s refused the request with %d (%s); check the model name and that %s is up to date",
				w.name, host, se.StatusCode, strings.TrimSpace(text), w.name)
		}
	}
	if isUnreachable(err) {
		return mk(ErrOllamaUnreachable, 0, "%s is not running at %s; %s%s", w.name, host, w.start, localNetworkHint(runtime.GOOS, host, err))
	}
	if errors.Is(err, ErrStreamCut) || isTransport(err) {
		return mk(ErrStreamCut, 0,
			"the reply from %s at %s stopped before it was complete (%s may have crashed or run out of memory); check its log and try again — the conversation so far is saved", w.name, host, w.name)
	}
	if isServerLine(err) {
		return mk(ErrOllamaServer, 0,
			"%s at %s failed while the model was answering (%v); %s and try again — restarting %s often helps", w.name, host, err, w.logs, w.name)
	}
	return mk(ErrOllama, 0, "%s at %s failed: %v; check that it is running and up to date, then try again", w.name, host, err)
}

// isOverflow spots a prompt refused for not fitting the context, in the
// runner's words (v0.12.6–v0.29: "the input length exceeds the context
// length") and in llama-server's, which v0.30+ forwards as its raw JSON
// body ("exceeds the available context size", exceed_context_size_error),
// and OpenAI-compatible servers' (context_length_exceeded; LM Studio's
// "the model is loaded with context length of only N tokens", and since
// 0.4 "… is greater than the context length").
func isOverflow(low string) bool {
	for _, s := range []string{"exceeds the context length", "exceed_context_size_error", "exceeds the available context", "context size",
		"context_length_exceeded", "the model is loaded with context length", "greater than the context length"} {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// serverLines are the starts of error lines that Ollama writes into a 200
// stream when the runner itself failed, not the model's text: a crash
// (llm/server.go, llm/llama_server.go: "an error was encountered while
// running the model", "model runner has unexpectedly stopped") or a reply
// from the runner that Ollama could not read ("error unmarshalling llm
// prediction response", "error unmarshalling llama-server response").
var serverLines = []string{
	"an error was encountered while running the model",
	"model runner has unexpectedly stopped",
	"error unmarshalling",
	"llama runner process has terminated",
}

func isServerLine(err error) bool {
	low := strings.ToLower(err.Error())
	for _, s := range serverLines {
		if strings.HasPrefix(low, s) || strings.Contains(low, ": "+s) {
			return true
		}
	}
	return false
}

// isTransport says err is the connection failing mid-reply (the server
// died, a proxy dropped it), which the client reports as a plain error
// like an error line's, but is not one.
func isTransport(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// isStreamLine says err is an {"error":…} line inside a 200 stream: the
// client turns it into a plain error, unlike a status (api.StatusError),
// a transport failure or a cancellation.
func isStreamLine(err error) bool {
	var se api.StatusError
	var ae api.AuthorizationError
	var e *Error
	return err != nil && !errors.As(err, &se) && !errors.As(err, &ae) && !errors.As(err, &e) &&
		!isTransport(err) && !isUnreachable(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// localNetworkHint names macOS's Local Network privacy when a server on
// another machine has no route: from macOS 15 an app the user has not let
// onto the local network gets exactly that (EHOSTUNREACH), while the same
// request from Terminal, which macOS does not ask about, works. Elsewhere,
// and for this machine, it is "".
func localNetworkHint(goos, host string, err error) string {
	if goos != "darwin" || !errors.Is(err, syscall.EHOSTUNREACH) && !strings.Contains(strings.ToLower(err.Error()), "no route to host") {
		return ""
	}
	name := host
	if u, perr := url.Parse(host); perr == nil && u.Hostname() != "" {
		name = u.Hostname()
	}
	if loopback.Is(name) {
		return ""
	}
	return "; if it runs there, macOS may be keeping Hark off the local network: turn Hark on under System Settings › Privacy & Security › Local Network"
}

func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "connection refused")
}

func turnLimitError(max int) *Error {
	return &Error{Kind: ErrTurnLimit, msg: fmt.Sprintf(
		"stopped after %d model turns without a final answer; ask again to let it continue, or raise maxTurns in settings", max)}
}

// modelOutputError ends a request after the model's reply stayed unusable
// through a corrective turn. It names what the model produced, because the
// fix is the model or the request, never Ollama itself.
func modelOutputError(model, why, raw string) *Error {
	shown := strings.TrimSpace(raw)
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	if shown == "" {
		shown = "(nothing)"
	}
	return &Error{Kind: ErrModelOutput, Model: model, msg: fmt.Sprintf(
		"model %q gave no usable reply even after being corrected (%s); its output: %q — try again or rephrase, or choose a model that calls tools reliably (see the model table in docs/models.md)",
		model, why, shown)}
}

// repeatError ends a request whose model looped twice, each time until
// the runner stopped it: the model's fault, never a crash.
func repeatError(model string) *Error {
	return &Error{Kind: ErrModelOutput, Model: model, msg: fmt.Sprintf(
		"the model kept repeating itself; try again or pick another model (%q looped twice until Ollama stopped it; see docs/models.md)", model)}
}

// isParserError says whether a failed chat was Ollama's parser failing on
// the model's text, which the model gets one corrective turn for. The
// source decides first: an error line after a 200 is the model's output
// unless its words say the runner failed; a status before any byte is the
// server, except the 500 a parser's failure becomes when it hits the very
// first piece (server/routes.go streamResponse: nothing written yet), which
// only its words tell apart.
func isParserError(err error) bool {
	if isServerLine(err) {
		return false
	}
	if isStreamLine(err) {
		return true
	}
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode < 500 {
		return false
	}
	low := strings.ToLower(se.ErrorMessage)
	if strings.HasPrefix(low, "tool '") && strings.HasSuffix(low, "' not found") {
		return true
	}
	for _, s := range parserTexts {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// parserTexts are what Ollama's built-in parsers (model/parsers) say when
// a model's call cannot be read: the JSON-based ones (qwen3, qwen3-coder,
// gpt-oss and others), ministral ("tool '%s' not found"), cogito and
// deepseek3 ("invalid format"), glm46 ("failed to parse XML"), olmo3
// ("failed to parse function call", "invalid function call format"), and
// llama-server's own parser on the v0.30+ native path, and that parser
// seen directly through the OpenAI-compatible adapter (a 500, or an error
// event after a 200, "Failed to parse input at pos N": common/chat.cpp's
// strict parser meeting text its grammar cannot place).
var parserTexts = []string{
	"failed to parse json", "empty function name", "tool call", "unexpected end of json", "invalid character",
	"invalid format", "failed to parse xml", "failed to parse function call", "invalid function call format",
	"llama-server chat error", "invalid tool call arguments", "failed to parse input at pos",
	// llama-server since the PEG parser: "The model produced output that
	// does not match the expected peg-native format".
	"does not match the expected",
}

// looksLikeCommand spots a reply that wrote a tool call or a shell command
// as text instead of calling the tool.
func looksLikeCommand(s string) bool {
	low := strings.ToLower(s)
	if callInText.MatchString(s) || strings.Contains(low, "<tool_call>") || strings.Contains(low, `"`+ToolName+`"`) || strings.Contains(low, `"name": "`+ToolName) {
		return true
	}
	for _, fence := range []string{"```bash", "```sh\n", "```shell", "```zsh", "```console"} {
		if strings.Contains(low, fence) {
			return true
		}
	}
	return false
}

// callInText matches a tool call written out as JSON, with any tool name:
// llama-style templates leave it in the text when parsing fails.
var callInText = regexp.MustCompile(`\{\s*"name"\s*:\s*"[^"]*"\s*,\s*"(arguments|parameters|command)"`)

// isCallShaped says the whole reply is a tool call Ollama did not parse
// (a call with bad JSON, an invented name, or flat arguments): a malformed
// call, not prose.
func isCallShaped(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "<tool_call>") || (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[{")) && strings.Contains(t, `"name"`)
}

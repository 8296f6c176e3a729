package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// The failure the budget exists for, shown on the test server: a prompt
// over Ollama's default 4096 tokens, sent the way Hark used to (no num_ctx,
// truncation left on), reaches the model without its system prompt.
func TestContextOverflowLosesTheSystemPromptWithoutABudget(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.QwenStyle("qwen2.5:7b")).Script(ollamatest.Reply{Text: "ok"})
	u, _ := url.Parse(srv.URL)
	err := api.NewClient(u, http.DefaultClient).Chat(context.Background(), &api.ChatRequest{
		Model: "qwen2.5:7b",
		Messages: []api.Message{
			{Role: "system", Content: "You are Hark. Never use sudo."},
			{Role: "user", Content: strings.Repeat("a long pasted log line\n", 1200)},
		},
	}, func(api.ChatResponse) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if seen := srv.Prompts()[0]; strings.Contains(seen, "Never use sudo") || ollamatest.Tokens(seen) > ollamatest.DefaultNumCtx {
		t.Fatalf("the server kept the instructions (%d tokens); the test server no longer truncates like the runner", ollamatest.Tokens(seen))
	}
}

// A long conversation with large command outputs keeps the system prompt,
// the tools and the latest request in every prompt the model sees, within
// the context asked for.
func TestContextLongConversationKeepsInstructions(t *testing.T) {
	t.Parallel()
	for _, m := range families() {
		t.Run(m.Family, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, m)
			srv.Next = func(n int, req api.ChatRequest) ollamatest.Reply {
				// Five big reads per request, then an answer.
				results := 0
				for _, msg := range req.Messages {
					switch msg.Role {
					case "user":
						results = 0
					case "tool":
						results++
					}
				}
				if results < 5 {
					return ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", fmt.Sprintf("cat /var/log/big%d.log", n))}}
				}
				return ollamatest.Reply{Text: "Read it."}
			}
			u, _ := url.Parse(srv.URL)
			h := newHarness(t, nil, func(o *Options) {
				o.Model, o.Client, o.Host = m.Name, NewOllamaClient(u), u.String()
				o.SystemPrompt = "" // the real prompt, with its real size
			})
			h.exec.defaultOutput = strings.Repeat("0123456789abcdef log entry\n", 600) // 16 KiB
			c := NewConversation()
			for i := range 8 {
				out, err := h.agent.Run(context.Background(), c, fmt.Sprintf("request number %d: read the next log", i))
				if err != nil || out.Answer != "Read it." {
					t.Fatalf("request %d: %v %q", i, err, out.Answer)
				}
			}
			reqs, prompts := srv.Requests(), srv.Prompts()
			for i, p := range prompts {
				if !strings.Contains(p, "You are Hark") || !strings.Contains(p, ToolName) {
					t.Fatalf("prompt %d lost the instructions", i)
				}
				latest := ""
				for _, msg := range reqs[i].Messages {
					if msg.Role == "user" && strings.HasPrefix(msg.Content, "request number") {
						latest = msg.Content
					}
				}
				if !strings.Contains(p, latest) || ollamatest.Tokens(p) > DefaultContextLength {
					t.Fatalf("prompt %d: latest request kept %v, %d tokens", i, strings.Contains(p, latest), ollamatest.Tokens(p))
				}
			}
			if !c.Runs[len(c.Runs)-1].Compacted {
				t.Errorf("the last request did not need compaction; the test does not reach the limit")
			}
			// Older results reach the model compacted; the newest whole, but
			// capped to the tool output limit.
			last := reqs[len(reqs)-1]
			tm := toolMessages(t, last.Messages)
			newest := tm[len(tm)-1]
			if out := newest["output"].(string); len(out) > DefaultToolOutputLimit+64 || newest["truncated"] != true {
				t.Errorf("newest result sent %d bytes, truncated %v", len(out), newest["truncated"])
			}
			if len(tm) > 1 && tm[0]["note"] == nil {
				t.Errorf("older result not compacted: %v", tm[0])
			}
		})
	}
}

// What cannot fit even alone is a visible error before anything is sent.
func TestContextOverflowIsAnError(t *testing.T) {
	t.Parallel()
	s := newScenario(t, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{Text: "never"})
	_, err := s.agent.Run(context.Background(), NewConversation(), strings.Repeat("word ", 8000))
	if !errors.Is(err, ErrContextOverflow) || !strings.Contains(err.Error(), "contextLength") || len(s.srv.Requests()) != 0 {
		t.Fatalf("err %v after %d requests", err, len(s.srv.Requests()))
	}
	// And the server's own refusal (truncate:false) reads the same way.
	e := classify(context.Background(), api.StatusError{StatusCode: 400, ErrorMessage: ollamatest.ErrInputTooLong.Error()}, "h", "m")
	if !errors.Is(e, ErrContextOverflow) {
		t.Errorf("server refusal classified as %v", e.Kind)
	}
}

func TestCapText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		in    string
		limit int
		cut   bool
	}{
		{"short", "hello", 10, false},
		{"exact", "0123456789", 10, false},
		{"long", strings.Repeat("x", 100), 10, true},
		{"multibyte", strings.Repeat("é", 100), 11, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, cut := capText(c.in, c.limit)
			if cut != c.cut || (!cut && got != c.in) {
				t.Fatalf("capText = %q, %v", got, cut)
			}
			if cut && (!strings.Contains(got, "bytes cut") || !json.Valid([]byte(`"`+got[:0]+`"`))) {
				t.Errorf("no marker in %q", got)
			}
			if cut && !strings.HasPrefix(c.in, strings.Split(got, "\n…")[0]) {
				t.Errorf("head not kept: %q", got)
			}
		})
	}
}

// A result's output and error reach the model with every control, escape,
// bidirectional and zero-width character shown as ⟨U+XXXX⟩ and its
// newlines and tabs kept, whatever produced them: a Move to Trash names the
// files it moved, and a file name may hold an escape sequence.
func TestToolResultOutputShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	raw := "name\tsize\nevil\x1b[2J\x1b[H.txt\t3\nback\rspace\b\x7f\u009b2J\nrtl\u202egpj.exe\u200b\u2066\ufeff\n"
	want := "name\tsize\nevil⟨U+001B⟩[2J⟨U+001B⟩[H.txt\t3\nback⟨U+000D⟩space⟨U+0008⟩⟨U+007F⟩⟨U+009B⟩2J\nrtl⟨U+202E⟩gpj.exe⟨U+200B⟩⟨U+2066⟩⟨U+FEFF⟩\n"
	h := newHarness(t, []reply{
		tools(call("command", "ls -la /tmp", "purpose", "checking", "workingDirectory", "/tmp")),
		text("done"),
	}, nil)
	h.exec.outputs["ls -la /tmp"] = raw
	if _, err := h.agent.Run(context.Background(), NewConversation(), "what is in tmp?"); err != nil {
		t.Fatal(err)
	}
	tm := toolMessages(t, h.client.request(t, 1).Messages)
	if len(tm) != 1 {
		t.Fatalf("tool messages = %v", tm)
	}
	if got := tm[0]["output"]; got != want {
		t.Errorf("output reached the model as %q, want %q", got, want)
	}

	res := ShownResult(shell.Result{Output: raw, Error: "rm: cannot remove 'a\x1b]0;pwned\x07b'\n"})
	if res.Output != want || res.Error != "rm: cannot remove 'a⟨U+001B⟩]0;pwned⟨U+0007⟩b'\n" {
		t.Errorf("ShownResult = %q / %q", res.Output, res.Error)
	}
}

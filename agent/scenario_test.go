package agent

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
)

// These scenarios run the agent against ollamatest, which streams raw model
// text through Ollama's own parsers, for each way a real small model fails.
// Each runs with a qwen-style template, a llama-style template and the
// built-in qwen3 parser, because the same slip looks different through each,
// and against both backends (ollamatest.Behaviours): v0.17.4's runner and
// v0.30+'s llama-server, where template-only models get their calls on the
// final line and no repeat abort.

type scenario struct {
	*harness
	srv *ollamatest.Server
}

func newScenario(t *testing.T, m ollamatest.Model, mod func(*Options), replies ...ollamatest.Reply) *scenario {
	t.Helper()
	return newScenarioOn(t, ollamatest.Runner, m, mod, replies...)
}

// newScenarioOn is newScenario against the backend b.
func newScenarioOn(t *testing.T, b ollamatest.Behaviour, m ollamatest.Model, mod func(*Options), replies ...ollamatest.Reply) *scenario {
	t.Helper()
	srv := ollamatest.New(t, m).SetBehaviour(b).Script(replies...)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, func(o *Options) {
		o.Model = m.Name
		o.Client = NewOllamaClient(u)
		o.Host = u.String()
		if mod != nil {
			mod(o)
		}
	})
	return &scenario{harness: h, srv: srv}
}

func families() []ollamatest.Model {
	return []ollamatest.Model{ollamatest.QwenStyle("qwen2.5:7b"), ollamatest.LlamaStyle("llama3.1:8b"), ollamatest.Qwen3(DefaultModel)}
}

func isLlama(m ollamatest.Model) bool { return m.Family == "llama" }

// wrap writes a raw call body the way the family emits calls.
func wrap(m ollamatest.Model, body string) string {
	if isLlama(m) {
		return body
	}
	return "<tool_call>\n" + body + "\n</tool_call>"
}

var goodCall = ollamatest.Call("command", "ls /tmp", "purpose", "checking")

// mistakeRisk says what mistakes mean for the loop: each gets one
// corrective turn; the same mistake again ends the request with an error
// that names the model's output.
func TestScenarioMistakesGetOneCorrection(t *testing.T) {
	t.Parallel()
	argsKey := func(m ollamatest.Model) string {
		if isLlama(m) {
			return "parameters"
		}
		return "arguments"
	}
	mistakes := []struct {
		name  string
		reply func(m ollamatest.Model) ollamatest.Reply
	}{
		{"unescaped quote", func(m ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: wrap(m, `{"name": "execute_terminal_command", "`+argsKey(m)+`": {"command": "echo "hi""}}`)}
		}},
		{"flat arguments", func(m ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: wrap(m, `{"name": "execute_terminal_command", "command": "ls /tmp"}`)}
		}},
		{"invented tool name", func(m ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: wrap(m, `{"name": "run_shell", "`+argsKey(m)+`": {"command": "ls /tmp"}}`)}
		}},
		{"cut by the length limit", func(m ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: wrap(m, `{"name": "execute_terminal_command", "argu`), DoneReason: "length"}
		}},
		{"empty turn", func(ollamatest.Model) ollamatest.Reply { return ollamatest.Reply{} }},
		{"only thinking", func(ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: "<think>The user wants a listing.</think>"}
		}},
		// The runner stops it past 30 repeats; on llama-server's native
		// path only num_predict does, which the loop sees as "length".
		{"repeating until the server stops it", func(ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Raw: strings.Repeat("again", 40)}
		}},
		{"an error line from the parser", func(ollamatest.Model) ollamatest.Reply {
			return ollamatest.Reply{Text: "Let me look. ", ErrorLine: "llama-server chat error: Failed to parse input at pos 12"}
		}},
	}
	for _, b := range ollamatest.Behaviours {
		for _, m := range families() {
			for _, mk := range mistakes {
				t.Run(b.String()+"/"+m.Family+"/"+mk.name+"/recovers", func(t *testing.T) {
					t.Parallel()
					s := newScenarioOn(t, b, m, nil, mk.reply(m), ollamatest.Reply{Calls: []api.ToolCall{goodCall}}, ollamatest.Reply{Text: "Listed /tmp."})
					out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
					if err != nil {
						t.Fatalf("err %v", err)
					}
					if out.Answer != "Listed /tmp." || !slices.Equal(s.exec.commands(), []string{"ls /tmp"}) {
						t.Errorf("answer %q, ran %v", out.Answer, s.exec.commands())
					}
					// The model was told what was wrong: a correction or a tool
					// result that explains the invalid call.
					second := s.srv.Requests()[1].Messages
					told := false
					for _, msg := range second[1:] {
						if (msg.Role == "user" || msg.Role == "tool") && strings.Contains(msg.Content, "call the tool "+ToolName) {
							told = true
						}
					}
					if !told {
						t.Errorf("second request carries no correction: %+v", second)
					}
				})
				t.Run(b.String()+"/"+m.Family+"/"+mk.name+"/twice", func(t *testing.T) {
					t.Parallel()
					s := newScenarioOn(t, b, m, nil, mk.reply(m), mk.reply(m), ollamatest.Reply{Text: "never reached"})
					out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
					if !errors.Is(err, ErrModelOutput) {
						t.Fatalf("err %v, want ErrModelOutput", err)
					}
					// A model's mistake is never blamed on the server.
					for _, wrong := range []string{"restart", "ollama serve", "not running"} {
						if strings.Contains(strings.ToLower(err.Error()), wrong) {
							t.Errorf("error %q mentions %q", err, wrong)
						}
					}
					if !strings.Contains(err.Error(), m.Name) || out.Answer != "" || out.Metrics.Success || len(s.exec.ran) != 0 {
						t.Errorf("err %q, outcome %+v, ran %v", err, out, s.exec.commands())
					}
					if n := len(s.srv.Requests()); n != 2 {
						t.Errorf("%d requests, want the reply and one correction", n)
					}
				})
			}
		}
	}
}

// Text that holds a call or a shell block is never run: the model is told
// once to call the tool, and a second text reply is taken as the answer.
func TestScenarioCommandWrittenAsText(t *testing.T) {
	t.Parallel()
	texts := []struct {
		name string
		raw  string
	}{
		{"prose before a JSON call", `I'll list it. {"name": "execute_terminal_command", "parameters": {"command": "ls /tmp"}}`},
		{"fenced shell block", "Run this:\n```bash\nls /tmp\n```"},
	}
	for _, b := range ollamatest.Behaviours {
		for _, m := range families() {
			for _, tx := range texts {
				t.Run(b.String()+"/"+m.Family+"/"+tx.name, func(t *testing.T) {
					t.Parallel()
					s := newScenarioOn(t, b, m, nil, ollamatest.Reply{Raw: tx.raw}, ollamatest.Reply{Calls: []api.ToolCall{goodCall}}, ollamatest.Reply{Text: "Listed /tmp."})
					out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
					if err != nil || out.Answer != "Listed /tmp." || !slices.Equal(s.exec.commands(), []string{"ls /tmp"}) {
						t.Fatalf("err %v answer %q ran %v", err, out.Answer, s.exec.commands())
					}
					if last := s.srv.Requests()[1].Messages; last[len(last)-1].Content != CorrectionPrefix+nudgeText {
						t.Errorf("no nudge: %+v", last[len(last)-1])
					}
				})
				t.Run(b.String()+"/"+m.Family+"/"+tx.name+"/again", func(t *testing.T) {
					t.Parallel()
					s := newScenarioOn(t, b, m, nil, ollamatest.Reply{Raw: tx.raw}, ollamatest.Reply{Raw: tx.raw})
					out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
					if err != nil || out.Answer == "" || len(s.exec.ran) != 0 {
						t.Fatalf("err %v answer %q ran %v", err, out.Answer, s.exec.commands())
					}
				})
			}
		}
	}
}

// Reasoning that reaches content (think:false does not stop a thinking-only
// model, ollama#12022) is never the answer, and the UI hears "thinking…".
func TestScenarioThinkingIsNeverTheAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, raw string }{
		{"think block", "<think>The user wants tmp. I will answer.</think>\n\nTmp is empty."},
		{"lone closing tag", "The user wants tmp. I will answer.</think>\n\nTmp is empty."},
	}
	for _, b := range ollamatest.Behaviours {
		for _, m := range []ollamatest.Model{ollamatest.Qwen3Thinking("qwen3:4b"), ollamatest.QwenStyle("qwen2.5:7b")} {
			for _, c := range cases {
				t.Run(b.String()+"/"+m.Name+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					s := newScenarioOn(t, b, m, nil, ollamatest.Reply{Raw: c.raw})
					out, err := s.agent.Run(context.Background(), NewConversation(), "what is in tmp")
					if err != nil || out.Answer != "Tmp is empty." {
						t.Fatalf("err %v answer %q", err, out.Answer)
					}
					// What the UI streamed, after any reset, holds no reasoning.
					var shown strings.Builder
					thinking := false
					for _, e := range s.events.events {
						switch e.Kind {
						case EventText:
							if e.Reset {
								shown.Reset()
							}
							shown.WriteString(e.Text)
						case EventThinking:
							thinking = true
						}
					}
					if strings.Contains(shown.String(), "I will answer") || strings.TrimSpace(shown.String()) != "Tmp is empty." {
						t.Errorf("streamed %q", shown.String())
					}
					if c.name == "think block" && !thinking {
						t.Errorf("no thinking progress in %v", s.events.kinds())
					}
				})
			}
		}
	}
}

// A model that thinks through the thinking field (think absent or true)
// shows progress, and its reasoning is not kept in the conversation.
func TestScenarioThinkingField(t *testing.T) {
	t.Parallel()
	s := newScenario(t, ollamatest.Qwen3Thinking("qwen3:4b"), func(o *Options) { o.Think = true },
		ollamatest.Reply{Raw: "Let me think about tmp.</think>\n\nTmp is empty."})
	out, err := s.agent.Run(context.Background(), NewConversation(), "what is in tmp")
	if err != nil || out.Answer != "Tmp is empty." {
		t.Fatalf("err %v answer %q", err, out.Answer)
	}
	if !slices.Contains(s.events.kinds(), EventThinking) {
		t.Errorf("events %v", s.events.kinds())
	}
}

// The server gives every call an id; each tool result answers its call.
func TestScenarioCallIDsAreAnswered(t *testing.T) {
	t.Parallel()
	for _, b := range ollamatest.Behaviours {
		for _, m := range families() {
			t.Run(b.String()+"/"+m.Family, func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, m, nil, ollamatest.Reply{Calls: []api.ToolCall{goodCall}}, ollamatest.Reply{Text: "Listed."})
				if _, err := s.agent.Run(context.Background(), NewConversation(), "list"); err != nil {
					t.Fatal(err)
				}
				msgs := s.srv.Requests()[1].Messages
				var ids, answered []string
				for _, msg := range msgs {
					for _, tc := range msg.ToolCalls {
						ids = append(ids, tc.ID)
					}
					if msg.Role == "tool" {
						answered = append(answered, msg.ToolCallID)
					}
				}
				if len(ids) != 1 || !strings.HasPrefix(ids[0], "call_") || !slices.Equal(ids, answered) {
					t.Errorf("call ids %v, answered %v", ids, answered)
				}
			})
		}
	}
}

// qwen-style templates render an assistant message with text and calls as
// the text only (ollama#10698); the agent re-sends such a message with
// empty content, so the model sees its own call in the next prompt.
func TestScenarioOwnCallsStayVisible(t *testing.T) {
	t.Parallel()
	m := ollamatest.QwenStyle("qwen2.5:7b")
	s := newScenario(t, m, nil, ollamatest.Reply{Text: "Let me look. ", Calls: []api.ToolCall{goodCall}}, ollamatest.Reply{Text: "Listed."})
	if _, err := s.agent.Run(context.Background(), NewConversation(), "list"); err != nil {
		t.Fatal(err)
	}
	prompt := s.srv.Prompts()[1]
	if !strings.Contains(prompt, `"command":"ls /tmp"`) {
		t.Errorf("the model's own call is missing from its next prompt:\n%s", prompt)
	}
}

func TestScenarioServerRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model string
		kind        error
	}{
		{"unknown model", "mistral:7b", ErrModelNotFound},
		{"model without tools", "gemma:2b", ErrToolsUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t)
			u, _ := url.Parse(srv.URL)
			h := newHarness(t, nil, func(o *Options) { o.Model, o.Client, o.Host = c.model, NewOllamaClient(u), u.String() })
			if _, err := h.agent.Run(context.Background(), NewConversation(), "hi"); !errors.Is(err, c.kind) {
				t.Errorf("err %v, want %v", err, c.kind)
			}
		})
	}
}

// A correction is Hark speaking to the model: the transcript shows it as
// such and counts one request, not two.
func TestScenarioCorrectionInTranscript(t *testing.T) {
	t.Parallel()
	s := newScenario(t, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{}, ollamatest.Reply{Text: "Nothing to do."})
	c := NewConversation()
	if _, err := s.agent.Run(context.Background(), c, "tidy up"); err != nil {
		t.Fatal(err)
	}
	tr := Transcript(c)
	if strings.Count(tr, "\nYou: ") != 1 || !strings.Contains(tr, "! to the model: Your reply was empty.") || strings.Contains(tr, "You: "+CorrectionPrefix) {
		t.Errorf("transcript:\n%s", tr)
	}
	if c.Runs[0].Corrections != 1 {
		t.Errorf("metrics %+v", c.Runs[0])
	}
}

package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent/openai/openaitest"
)

// What llama-server says when its parser cannot read the model's reply,
// also when max_tokens cut the reply inside a tool call.
const pegNative = "The model produced output that does not match the expected peg-native format"

// A reply the server's parser refused is the model's: one corrective
// turn, told in the words of the server in use, and never "restart".
func TestRuntimeParseFailureIsTheModels(t *testing.T) {
	t.Parallel()
	for _, f := range []openaitest.Flavour{openaitest.LlamaServer, openaitest.Jan} {
		for _, text := range []string{pegNative, "Failed to parse input at pos 31: <tool_call>"} {
			t.Run(f.String()+"/"+text[:20], func(t *testing.T) {
				t.Parallel()
				s := newRuntimeScenario(t, f, nil, nil,
					openaitest.Reply{Text: "Let me ", StreamError: text},
					openaitest.Reply{Calls: []openaitest.Call{goodRuntimeCall}}, openaitest.Reply{Text: "Listed."})
				out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if err != nil || out.Answer != "Listed." || out.Metrics.Corrections != 1 {
					t.Fatalf("err %v answer %q metrics %+v", err, out.Answer, out.Metrics)
				}
				told := s.srv.Requests()[1].Last()
				if !strings.Contains(told, runtimeName[f]+" could not read your tool call") || strings.Contains(told, "Ollama") {
					t.Errorf("the model was told %q", told)
				}
				// The peg-native failure is also what a call cut by the
				// length limit gets: the model is told of that limit too.
				if peg := text == pegNative; peg != strings.Contains(told, "is cut off") {
					t.Errorf("the model was told %q", told)
				}
				s.events.mu.Lock()
				for _, e := range s.events.events {
					if strings.Contains(strings.ToLower(e.Text), "restart") {
						t.Errorf("event says restart: %q", e.Text)
					}
				}
				s.events.mu.Unlock()
			})
			t.Run(f.String()+"/"+text[:20]+" twice", func(t *testing.T) {
				t.Parallel()
				bad := openaitest.Reply{StreamError: text}
				s := newRuntimeScenario(t, f, nil, nil, bad, bad)
				_, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if !errors.Is(err, ErrModelOutput) || strings.Contains(strings.ToLower(err.Error()), "restart") {
					t.Fatalf("err %v", err)
				}
			})
		}
	}
}

// A denial is somebody's "no": commands nobody could be asked about end
// the request without being called denials.
func TestRuntimeDenialsOnlyWhenSomebodyDenied(t *testing.T) {
	t.Parallel()
	rm := func(c string) openaitest.Reply {
		return openaitest.Reply{Calls: []openaitest.Call{openaitest.Cmd(c, "executing")}}
	}
	notAsked := &NotAsked{Why: "nobody was asked: there is no terminal here to approve it (run hark ask in a terminal). The user was not asked and denied nothing; do not retry the command."}
	cases := []struct {
		name      string
		confirm   Confirmer
		want, not []string
	}{
		{"nobody to ask", confirmFunc(func(context.Context, Pending) (Decision, error) { return Decision{}, notAsked }),
			[]string{"3 commands in a row", "there is no terminal here to approve it"}, []string{"denial", "denied by you", "do not retry"}},
		{"somebody denied", confirmFunc(func(context.Context, Pending) (Decision, error) { return Decision{By: ByTerminal}, nil }),
			[]string{"stopped after 3 denials in a row"}, []string{"could not"}},
		{"both", &alternate{notAsked: notAsked},
			[]string{"2 denied by you", "1 that could not be put to you", "no terminal"}, []string{"3 denials"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newRuntimeScenario(t, openaitest.LlamaServer, nil, func(o *Options) { o.Confirmer = c.confirm },
				rm("rm -r /tmp/a"), rm("rm -r /tmp/b"), rm("mv /tmp/c /tmp/d"))
			_, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp")
			if !errors.Is(err, ErrDenials) {
				t.Fatalf("err %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("%q says %q", err, w)
				}
			}
		})
	}
}

type confirmFunc func(context.Context, Pending) (Decision, error)

func (f confirmFunc) Confirm(ctx context.Context, p Pending) (Decision, error) { return f(ctx, p) }

// alternate denies, cannot ask, denies.
type alternate struct {
	n        int
	notAsked *NotAsked
}

func (a *alternate) Confirm(context.Context, Pending) (Decision, error) {
	a.n++
	if a.n == 2 {
		return Decision{}, a.notAsked
	}
	return Decision{By: ByTerminal}, nil
}

// On llama-server the context is -c, fixed when it starts: a request
// Hark's own budget refuses points there, not at contextLength.
func TestRuntimeBudgetAdviceFitsTheServer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("many words ", 800)
	s := newRuntimeScenario(t, openaitest.LlamaServer, func(s *openaitest.Server) { s.ContextSize = 2048 },
		func(o *Options) { o.ContextLength, o.NumPredict = 8192, 512 })
	_, err := s.agent.Run(context.Background(), NewConversation(), long)
	if !errors.Is(err, ErrContextOverflow) {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "-c") || !strings.Contains(msg, "llama-server") || strings.Contains(msg, "raise contextLength") {
		t.Errorf("advice %q", msg)
	}
	if len(s.srv.Requests()) != 0 {
		t.Errorf("%d requests sent", len(s.srv.Requests()))
	}
}

// A request an OpenAI-compatible server refuses is no fault of the model
// name (llama-server serves the model it loaded whatever the name) nor
// proof of an old server: the advice says what is known.
func TestRuntimeRefusalAdvice(t *testing.T) {
	t.Parallel()
	s := newRuntimeScenario(t, openaitest.LlamaServer, nil, nil,
		openaitest.Reply{Status: 400, Error: "Unable to generate parser for this template."})
	_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "llama-server") || strings.Contains(msg, "model name") || strings.Contains(msg, "up to date") || strings.Contains(msg, "Ollama") {
		t.Errorf("advice %q", msg)
	}
}

package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
)

// These scenarios pin what Hark does with the real server's own
// behaviour (the scheduler, the runner, cloud models) rather than with a
// model's slips, against both backends.

// A cloud model is refused before anything is sent to it, preload
// included, with what would leave the machine and where; allowed, the
// request goes (and would be forwarded).
func TestScenarioCloudModelRefused(t *testing.T) {
	t.Parallel()
	for _, b := range ollamatest.Behaviours {
		for _, name := range []string{"gpt-oss:120b-cloud", "qwen3-coder:480b-cloud", "kimi:cloud"} {
			t.Run(b.String()+"/"+name, func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, ollamatest.Cloud(name), nil, ollamatest.Reply{Text: "hi"})
				if err := s.agent.Preload(context.Background()); !errors.Is(err, ErrCloudModel) {
					t.Errorf("preload: %v", err)
				}
				_, err := s.agent.Run(context.Background(), NewConversation(), "list my files")
				if !errors.Is(err, ErrCloudModel) || !strings.Contains(err.Error(), "would send what you say and every command's output to ollama.com") {
					t.Fatalf("err %v", err)
				}
				if n, r := len(s.srv.Requests()), len(s.srv.RemoteRequests()); n+r != 0 || s.srv.Loads() != 0 {
					t.Errorf("%d local and %d remote chats, %d loads reached the server", n, r, s.srv.Loads())
				}
			})
		}
	}
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, ollamatest.Cloud("gpt-oss:120b-cloud"), func(o *Options) { o.AllowCloudModels = true })
		if _, err := s.agent.Run(context.Background(), NewConversation(), "hi"); err != nil {
			t.Fatal(err)
		}
		if len(s.srv.RemoteRequests()) != 1 {
			t.Errorf("remote chats %d", len(s.srv.RemoteRequests()))
		}
	})
}

// An overflow with truncate:false is "raise contextLength", in the
// runner's words and in llama-server's forwarded JSON alike.
func TestScenarioOverflowOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range ollamatest.Behaviours {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			// The model was trained on less context than contextLength
			// (preflight warns of it): the server clamps num_ctx, and a
			// request within Hark's own budget overflows the runner's.
			m := ollamatest.Qwen3(DefaultModel)
			m.ContextLength = 1024
			s := newScenarioOn(t, b, m, func(o *Options) { o.ContextLength, o.NumPredict = 8192, 512 })
			s.srv.Next = func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Text: "never"} }
			_, err := s.agent.Run(context.Background(), NewConversation(), strings.Repeat("many words ", 800))
			if !errors.Is(err, ErrContextOverflow) || !strings.Contains(err.Error(), "contextLength") {
				t.Fatalf("err %v", err)
			}
			// The refusal came from the server, not the agent's own budget.
			if !strings.Contains(err.Error(), "refused it rather than cut the instructions") {
				t.Errorf("not the server's refusal: %v", err)
			}
		})
	}
}

// Errors by where they come from: an error line after a 200 is the
// model's output and gets a corrective turn, unless it says the runner
// failed; a 500 before any byte is the server.
func TestScenarioErrorsBySource(t *testing.T) {
	t.Parallel()
	recovers := []string{
		"tool 'run_shell' not found",                          // ministral
		"invalid format",                                      // cogito, deepseek3
		"failed to parse XML: unexpected EOF",                 // glm46
		"failed to parse function call: unexpected end",       // olmo3
		"invalid function call format",                        // olmo3
		"llama-server chat error: Failed to parse tool call",  // v0.30+ native path
		"failed to parse JSON: invalid character 'h' after …", // qwen3 and others
	}
	server := []struct{ name, line string }{
		{"runner crashed", "an error was encountered while running the model: GGML_ASSERT failed"},
		{"runner stopped", "model runner has unexpectedly stopped, this may be due to resource limitations"},
		{"runner reply unreadable (v0.17.4)", "error unmarshalling llm prediction response: invalid character 'x'"},
		{"runner reply unreadable (v0.33)", "error unmarshalling llama-server response: invalid character 'x'"},
	}
	for _, b := range ollamatest.Behaviours {
		for _, line := range recovers {
			t.Run(b.String()+"/model/"+line, func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil,
					ollamatest.Reply{Text: "Let me look. ", ErrorLine: line},
					ollamatest.Reply{Calls: []api.ToolCall{goodCall}}, ollamatest.Reply{Text: "Listed."})
				out, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if err != nil || out.Answer != "Listed." || out.Metrics.Corrections != 1 {
					t.Fatalf("err %v answer %q metrics %+v", err, out.Answer, out.Metrics)
				}
			})
			// The same text as a 500 before any byte: a parser that
			// failed on the first piece, still the model's.
			t.Run(b.String()+"/model as 500/"+line, func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil,
					ollamatest.Reply{ErrorLine: line}, ollamatest.Reply{Text: "Done."})
				if out, err := s.agent.Run(context.Background(), NewConversation(), "hi"); err != nil || out.Answer != "Done." {
					t.Fatalf("err %v answer %q", err, out.Answer)
				}
			})
		}
		for _, c := range server {
			t.Run(b.String()+"/server/"+c.name, func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil,
					ollamatest.Reply{Text: "Let me look. ", ErrorLine: c.line}, ollamatest.Reply{Text: "never"})
				_, err := s.agent.Run(context.Background(), NewConversation(), "list tmp")
				if !errors.Is(err, ErrOllamaServer) || !strings.Contains(err.Error(), "log") || len(s.srv.Requests()) != 1 {
					t.Fatalf("err %v after %d requests", err, len(s.srv.Requests()))
				}
			})
		}
		t.Run(b.String()+"/server/500 before any byte", func(t *testing.T) {
			t.Parallel()
			s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{Status: 500, Error: "llama runner process has terminated: exit status 2"})
			if _, err := s.agent.Run(context.Background(), NewConversation(), "hi"); !errors.Is(err, ErrOllamaServer) || len(s.srv.Requests()) != 1 {
				t.Fatalf("err %v", err)
			}
		})
		t.Run(b.String()+"/connection lost mid-reply", func(t *testing.T) {
			t.Parallel()
			s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{Text: "Half a ", Drop: true})
			if _, err := s.agent.Run(context.Background(), NewConversation(), "hi"); !errors.Is(err, ErrStreamCut) {
				t.Fatalf("err %v", err)
			}
		})
	}
}

// The runner's repeat abort ends a stream cleanly with no done line,
// whatever Hark saw of the repeats: in the thinking field, as whitespace
// variants, or inside a call the parser held back. One corrective turn,
// then "kept repeating", never a crash.
func TestScenarioRepetition(t *testing.T) {
	t.Parallel()
	loops := []struct {
		name  string
		model ollamatest.Model
		think bool
		raw   string
	}{
		{"in thinking", ollamatest.Qwen3Thinking("qwen3:4b"), true, strings.Repeat("Hmm. ", 50)},
		{"whitespace", ollamatest.Qwen3(DefaultModel), false, "ok" + strings.Repeat("     ", 50)},
		{"inside a held call", ollamatest.Qwen3(DefaultModel), false, "<tool_call>\n{\"name\": \"execute_terminal_command\", \"arguments\": {\"command\": \"ls " + strings.Repeat("aaaaa", 50)},
		{"in content", ollamatest.QwenStyle("qwen2.5:7b"), false, strings.Repeat("again", 50)},
	}
	for _, b := range ollamatest.Behaviours {
		for _, l := range loops {
			if b.String() == "llama-server" && l.model.Parser == "" {
				continue // the native path has no repeat abort: TestScenarioMistakesGetOneCorrection covers its length stop
			}
			mod := func(o *Options) { o.Think = l.think }
			t.Run(b.String()+"/"+l.name+"/recovers", func(t *testing.T) {
				t.Parallel()
				answer := "Done."
				if l.think {
					answer = "Fine.</think>\n\nDone."
				}
				s := newScenarioOn(t, b, l.model, mod, ollamatest.Reply{Raw: l.raw}, ollamatest.Reply{Raw: answer})
				out, err := s.agent.Run(context.Background(), NewConversation(), "hi")
				if err != nil || out.Answer != "Done." {
					t.Fatalf("err %v answer %q", err, out.Answer)
				}
				msgs := s.srv.Requests()[1].Messages
				if last := msgs[len(msgs)-1]; !strings.HasPrefix(last.Content, CorrectionPrefix+"You repeated yourself;") {
					t.Errorf("correction %q", last.Content)
				}
			})
			t.Run(b.String()+"/"+l.name+"/twice", func(t *testing.T) {
				t.Parallel()
				s := newScenarioOn(t, b, l.model, mod, ollamatest.Reply{Raw: l.raw}, ollamatest.Reply{Raw: l.raw}, ollamatest.Reply{Text: "never"})
				_, err := s.agent.Run(context.Background(), NewConversation(), "hi")
				if err == nil || !strings.Contains(err.Error(), "the model kept repeating itself; try again or pick another model") {
					t.Fatalf("err %v", err)
				}
				for _, wrong := range []string{"crash", "out of memory", "restart"} {
					if strings.Contains(err.Error(), wrong) {
						t.Errorf("error %q blames the server (%q)", err, wrong)
					}
				}
			})
		}
	}
}

// A denied command proposed again in the same request is refused without
// asking, and the model is told; three denials in a row end the request;
// the next request asks again.
func TestScenarioDenialsStick(t *testing.T) {
	t.Parallel()
	rm := func(c string) ollamatest.Reply {
		return ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", c, "purpose", "executing")}}
	}
	for _, b := range ollamatest.Behaviours {
		t.Run(b.String()+"/same command again", func(t *testing.T) {
			t.Parallel()
			// The second proposal differs only in spacing and quoting.
			s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil, rm("rm -r /tmp/old"), rm(`rm  -r  '/tmp/old'`), ollamatest.Reply{Text: "I will not delete it."})
			out, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp")
			if err != nil || out.Answer != "I will not delete it." {
				t.Fatalf("err %v answer %q", err, out.Answer)
			}
			if asked := s.confirmer.askedCommands(); len(asked) != 1 {
				t.Errorf("asked %v; the repeat must not be asked", asked)
			}
			tm := toolMessages(t, s.srv.Requests()[2].Messages)
			if len(tm) != 2 || !strings.Contains(tm[1]["error"].(string), "already denied this exact command") || tm[1]["executed"] == true {
				t.Errorf("the model was told %v", tm)
			}
			es := s.auditEntries(t)
			if len(es) != 2 || es[1].DecidedBy != ByDenial || es[1].Executed {
				t.Errorf("audit %+v", es)
			}
		})
		t.Run(b.String()+"/three denials stop", func(t *testing.T) {
			t.Parallel()
			s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil,
				rm("rm -r /tmp/a"), rm("rm -r /tmp/b"), rm("mv /tmp/c /tmp/d"),
				rm("rm -r /tmp/a"), ollamatest.Reply{Text: "Asked again."})
			_, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp")
			if !errors.Is(err, ErrDenials) || !strings.Contains(err.Error(), "stopped after 3 denials") {
				t.Fatalf("err %v", err)
			}
			if n := len(s.srv.Requests()); n != 3 {
				t.Errorf("%d model turns; the request should stop at the third denial", n)
			}
			// A new request starts fresh: the same command is asked again.
			out, err := s.agent.Run(context.Background(), NewConversation(), "clean tmp after all")
			if err != nil || out.Answer != "Asked again." {
				t.Fatalf("err %v answer %q", err, out.Answer)
			}
			if asked := s.confirmer.askedCommands(); !slices.Equal(asked, []string{"rm -r /tmp/a", "rm -r /tmp/b", "mv /tmp/c /tmp/d", "rm -r /tmp/a"}) {
				t.Errorf("asked %v", asked)
			}
		})
		t.Run(b.String()+"/an approval breaks the run", func(t *testing.T) {
			t.Parallel()
			s := newScenarioOn(t, b, ollamatest.Qwen3(DefaultModel), nil,
				rm("rm -r /tmp/a"), rm("rm -r /tmp/b"), rm("touch /tmp/ok"), rm("rm -r /tmp/c"), ollamatest.Reply{Text: "Done."})
			s.confirmer.decisions = []Decision{{By: ByMenu}, {By: ByMenu}, {Approved: true, By: ByMenu}, {By: ByMenu}}
			if out, err := s.agent.Run(context.Background(), NewConversation(), "tidy"); err != nil || out.Answer != "Done." {
				t.Fatalf("err %v answer %q", err, out.Answer)
			}
		})
	}
}

// Different folders are different commands: a denial in one does not
// refuse the same words in another.
func TestCommandKey(t *testing.T) {
	t.Parallel()
	same := [][2]string{{"rm -r /tmp/old", "rm  -r   /tmp/old"}, {"rm -r /tmp/old", `rm -r '/tmp/old'`}, {"ls|wc -l", "ls | wc -l"},
		// Quotes and backslashes read once, as bash reads them (plan.Literal).
		{`rm "a\"b"`, `rm 'a"b'`}, {`rm a\ b`, `rm 'a b'`}, {`rm $'\x61'`, `rm a`}, {`rm "\$x"`, `rm '$x'`}}
	for _, p := range [][2]string{{`rm 'a\"b'`, `rm 'a"b'`}, {`rm "$x"`, `rm '$x'`}, {`rm *`, `rm '*'`}, {`rm ~`, `rm '~'`}} {
		if commandKey(p[0], "/home/u") == commandKey(p[1], "/home/u") {
			t.Errorf("%q and %q share a key", p[0], p[1])
		}
	}
	for _, p := range same {
		if commandKey(p[0], "/home/u") != commandKey(p[1], "/home/u") {
			t.Errorf("%q and %q differ", p[0], p[1])
		}
	}
	if commandKey("rm x", "/a") == commandKey("rm x", "/b") || commandKey("rm x", "/a") == commandKey("rm y", "/a") {
		t.Error("different commands share a key")
	}
}

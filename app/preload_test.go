package app

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// preloadingAgent is a fakeAgent that also loads its model on request.
type preloadingAgent struct {
	*fakeAgent
	preloads chan struct{}
}

func (p preloadingAgent) Preload(context.Context) error {
	p.preloads <- struct{}{}
	return nil
}

// Key-down starts loading the model while the user is still speaking;
// "loading model…" shows until the first word, and reasoning the agent
// withdraws leaves the status.
func TestKeyDownPreloadsAndStatusShows(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	ag := preloadingAgent{preloads: make(chan struct{}, 1), fakeAgent: newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventLoading, Text: "loading model…"})
		<-release
		on(agent.Event{Kind: agent.EventText, Text: "The user wants…"})
		on(agent.Event{Kind: agent.EventText, Text: "Three files.", Reset: true})
		<-release
		return "Three files.", nil
	})}
	h := start(t, ag.fakeAgent, func(o *Options) { o.Agent = ag })

	h.app.Post(KeyDown{})
	recv(t, "preload at key-down", ag.preloads)
	if n := len(h.tr.called); n != 0 {
		t.Fatalf("transcription ran %d times before key-up; the preload should come first", n)
	}
	m := h.views.mark()
	h.app.Post(KeyUp{})
	h.views.waitFrom(t, m, "loading status", func(v View) bool { return v.Detail == "loading model…" })
	m = h.views.mark()
	release <- struct{}{}
	v := h.views.waitFrom(t, m, "first words", func(v View) bool { return v.Stream == "Three files." })
	if v.Detail != "" {
		t.Errorf("status %q still shown after the first words", v.Detail)
	}
	release <- struct{}{}
}

// The agent's own events drive the menu: thinking and a corrective turn
// are a status the next words replace, a proposal shows its command, and a
// failed command is counted in the ending.
func TestAgentEventsReachTheMenu(t *testing.T) {
	t.Parallel()
	step := make(chan struct{})
	call := &agent.Call{Command: "ls /nope", Tier: shell.Safe}
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventThinking, Text: "thinking…"})
		<-step
		on(agent.Event{Kind: agent.EventRetry, Text: "Your reply was empty."})
		<-step
		on(agent.Event{Kind: agent.EventProposed, Call: call})
		<-step
		on(agent.Event{Kind: agent.EventRunning, Call: call})
		on(agent.Event{Kind: agent.EventResult, Call: call, Result: &shell.Result{Executed: true, ExitCode: 2}})
		on(agent.Event{Kind: agent.EventText, Text: "It is not there."})
		return "It is not there.", nil
	})
	h := start(t, ag, nil)
	reply := make(chan SendReply, 1)
	m := h.views.mark()
	h.app.Post(SendRequest{Text: "look", Wait: true, Reply: reply})
	h.views.waitFrom(t, m, "thinking status", func(v View) bool { return v.Detail == "thinking…" })
	m = h.views.mark()
	step <- struct{}{}
	h.views.waitFrom(t, m, "retry status", func(v View) bool { return v.Detail == "asking the model again…" })
	m = h.views.mark()
	step <- struct{}{}
	h.views.waitFrom(t, m, "the proposed command", func(v View) bool { return v.Detail == "ls /nope" })
	step <- struct{}{}
	if r := recv(t, "reply", reply); r.Answer != "It is not there.\n\n1 command ran (1 failed)." {
		t.Errorf("answer %q should count the failed command", r.Answer)
	}
}

// loadingAgent is a fakeAgent whose preload is the real agent's, against
// ollamatest, which throws a load away when its request goes away as
// Ollama does.
type loadingAgent struct {
	*fakeAgent
	real *agent.Agent
}

func (l loadingAgent) Preload(ctx context.Context) error { return l.real.Preload(ctx) }

type nothingRuns struct{}

func (nothingRuns) ClassifyIn(string, string) shell.Verdict {
	return shell.Verdict{Tier: shell.Confirm}
}
func (nothingRuns) Run(context.Context, shell.Request) shell.Result {
	return shell.Result{ExitCode: -1, Error: "not run"}
}

// A turn that ends while the model is still loading leaves the load to
// finish: the preload belongs to the app, so the next press finds the
// model in memory. Presses while it loads start no second load.
func TestPreloadOutlivesItsTurn(t *testing.T) {
	t.Parallel()
	const model = "qwen2.5:7b"
	srv := ollamatest.New(t, ollamatest.QwenStyle(model))
	release := srv.HoldLoads()
	defer release()
	u, _ := url.Parse(srv.URL)
	real, err := agent.New(agent.Options{Client: agent.NewOllamaClient(u), Model: model, Host: srv.URL,
		Classifier: nothingRuns{}, Executor: nothingRuns{}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	fake := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		return "ok", nil
	})
	ag := loadingAgent{fakeAgent: fake, real: real}
	h := start(t, fake, func(o *Options) { o.Agent = ag })

	for i := range 2 {
		m := h.views.mark()
		h.app.Post(KeyDown{})
		h.views.waitFrom(t, m, "listening", stateIs(Listening))
		for !srv.Loading(model) {
			time.Sleep(time.Millisecond)
		}
		m = h.views.mark()
		h.app.Post(MenuClick{ID: IDCancel})
		h.views.waitFrom(t, m, fmt.Sprintf("idle after cancel %d", i+1), stateIs(Idle))
	}
	if n := srv.LoadsAborted(); n != 0 {
		t.Fatalf("%d loads thrown away with their turn", n)
	}
	release()
	for !srv.Loaded(model) {
		time.Sleep(time.Millisecond)
	}
	for srv.Loads() == 0 {
		time.Sleep(time.Millisecond)
	}
	if n, aborted := srv.Loads(), srv.LoadsAborted(); n != 1 || aborted != 0 {
		t.Errorf("%d preloads answered, %d aborted; want one shared load", n, aborted)
	}
}

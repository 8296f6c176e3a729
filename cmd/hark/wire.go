package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// This file is the wiring `hark run`, `hark ask` and `hark exec` share: the
// settings, the agent and its Ollama client, the runner, and the terminal's
// Run this? [y/N] prompt.

// loadSettings finds Hark's files and reads the settings. A settings file
// that does not load is a *badSettings error: the returned Settings are
// still usable (the keys the error names have their defaults), so a caller
// may warn and go on. Any other error means Hark's folders are unknown.
func loadSettings() (settings.Paths, settings.Settings, error) {
	paths, err := settings.DefaultPaths()
	if err != nil {
		return paths, settings.Defaults(), err
	}
	s, err := settings.Load(paths.Settings)
	if err != nil {
		return paths, s, &badSettings{err}
	}
	return paths, s, nil
}

// badSettings is a settings file that did not load.
type badSettings struct{ err error }

func (b *badSettings) Error() string {
	return b.err.Error() + " (fix or delete the file to use the defaults)"
}
func (b *badSettings) Unwrap() error { return b.err }

// newStore opens the conversation history with the settings package's
// atomic writes, which the agent package gets injected rather than
// importing the app.
func newStore(dir string) *agent.Store {
	return agent.NewStore(dir, agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
}

// newRunner is the command runner with the user's limits; `hark exec` and
// the agent run commands through the same one.
func newRunner(s settings.Settings) *shell.Runner {
	return shell.NewRunner(shell.RunnerOptions{Timeout: s.CommandTimeout.D(), OutputLimit: s.OutputLimit, KeepEnv: s.KeepEnv})
}

// ollama is the server the agent talks to: its client and the address
// shown in messages.
type ollama struct {
	client *api.Client
	host   string
}

func newOllama(s settings.Settings) ollama {
	host := agent.ResolveHost(s.OllamaHost)
	return ollama{client: agent.NewOllamaClient(host), host: host.String()}
}

// newAgent builds the one agent of a process from the settings; model
// overrides the ollamaModel setting when not empty. The caller may set the
// confirmer and progress callback in tune first, or pass them per request.
func newAgent(s settings.Settings, paths settings.Paths, model string, tune func(*agent.Options)) (*agent.Agent, ollama, error) {
	if model == "" {
		model = s.OllamaModel
	}
	o := newOllama(s)
	opts := agentOptions(s, paths, model, o.client, o.host)
	if tune != nil {
		tune(&opts)
	}
	a, err := agent.New(opts)
	return a, o, err
}

// agentOptions are the agent settings shared by `hark run` and `hark ask`.
func agentOptions(s settings.Settings, paths settings.Paths, model string, client agent.ChatClient, host string) agent.Options {
	keepAlive := api.Duration{Duration: s.KeepAlive.D()}
	return agent.Options{
		Client:          client,
		Model:           model,
		Host:            host,
		Classifier:      shell.NewPolicyFor(shell.SandboxMode(s.Sandbox)),
		Executor:        newRunner(s),
		NoConfirm:       !s.ConfirmBeforeExecute,
		ConfirmTimeout:  s.ConfirmTimeout.D(),
		MaxTurns:        s.MaxTurns,
		Sandbox:         shell.SandboxMode(s.Sandbox),
		KeepAlive:       &keepAlive,
		ContextLength:   s.ContextLength,
		NumPredict:      s.NumPredict,
		ToolOutputLimit: s.ModelOutputLimit,
		CommandTimeout:  s.CommandTimeout.D(),
		OutputLimit:     s.OutputLimit,
		History:         newStore(paths.History),
		Audit:           agent.NewAuditLog(paths.Audit),
	}
}

// yesNo asks y/N questions on the terminal (stderr, so stdout stays the
// command's output) and reads the answers from stdin. One goroutine reads
// stdin for every question, so a question can give up when the request is
// cancelled or times out while a read is pending. Only y or yes is a yes.
type yesNo struct {
	e     *env
	once  sync.Once
	lines chan string
}

func newYesNo(e *env) *yesNo { return &yesNo{e: e} }

// ask prints question and waits for one line. ok is false when stdin ended
// without an answer; err is ctx's error when it ended first.
func (y *yesNo) ask(ctx context.Context, question string) (yes, ok bool, err error) {
	y.once.Do(func() {
		y.lines = make(chan string)
		go func() {
			sc := bufio.NewScanner(y.e.stdin)
			for sc.Scan() {
				y.lines <- sc.Text()
			}
			close(y.lines)
		}()
	})
	fmt.Fprint(y.e.stderr, question)
	select {
	case line, ok := <-y.lines:
		if !ok {
			fmt.Fprintln(y.e.stderr)
			return false, false, nil
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes", true, nil
	case <-ctx.Done():
		return false, false, ctx.Err()
	}
}

// terminalConfirmer asks Run this? [y/N] on the terminal for `hark ask`.
// Without a terminal nobody can answer, so nothing is approved.
type terminalConfirmer struct {
	e *env
	q *yesNo
}

func newTerminalConfirmer(e *env) *terminalConfirmer { return &terminalConfirmer{e: e, q: newYesNo(e)} }

func (c *terminalConfirmer) Confirm(ctx context.Context, p agent.Pending) (agent.Decision, error) {
	if !c.e.isTerminal {
		fmt.Fprintln(c.e.stderr, "    not run: no terminal to ask for approval (run hark ask in a terminal, or use the menu-bar app)")
		return agent.Decision{PendingID: p.ID, Approved: false, By: agent.ByTerminal}, nil
	}
	yes, _, err := c.q.ask(ctx, "    Run this? [y/N] ")
	if err != nil {
		// The terminal has echoed ^C after the prompt; start the line
		// afresh and say what that meant.
		fmt.Fprint(c.e.stderr, "\r\x1b[2K    not run: cancelled\n")
		if errors.Is(err, context.DeadlineExceeded) {
			return agent.Decision{PendingID: p.ID, By: agent.ByTimeout}, err
		}
		return agent.Decision{PendingID: p.ID, By: agent.ByTerminal}, err
	}
	return agent.Decision{PendingID: p.ID, Approved: yes, By: agent.ByTerminal}, nil
}

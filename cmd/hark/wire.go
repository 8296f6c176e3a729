package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/openai"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/trash"
	"github.com/hark-sh/hark/shell/visible"
)

// rulesPath is the rules file, beside settings.json.
func rulesPath(paths settings.Paths) string {
	return filepath.Join(filepath.Dir(paths.Settings), rules.FileName)
}

// openRules opens the user's rules with the policy that classifies their
// examples; nil when there is no home folder to resolve ~ against.
func openRules(paths settings.Paths, c rules.Classifier) *rules.Store {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	return rules.Open(rulesPath(paths), home, c)
}

// rulesProblems are what a user should hear about their rules file: a
// corrupt file moved aside, rules ignored because they fail their checks.
func rulesProblems(st *rules.Store) []string {
	if st == nil {
		return nil
	}
	out := st.Warnings()
	for _, e := range st.Entries() {
		if e.Err != nil {
			out = append(out, fmt.Sprintf("rule %d in %s is ignored: %v (fix it, or run hark rules remove %d)", e.Number, st.Path(), e.Err, e.Number))
		}
	}
	return out
}

// This file is the wiring `hark run`, `hark ask` and `hark exec` share: the
// settings, the agent and its Ollama client, the runner, and the terminal's
// Run this? prompt.

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

// server is the model server the agent talks to, Ollama or an
// OpenAI-compatible one (llmRuntime): its client, the address shown in
// messages, and the start-up check of the model on it.
type server struct {
	client agent.ChatClient
	host   string
	// ollama is the Ollama client, nil on the openai runtime.
	ollama *agent.OllamaClient
	// runtime is the OpenAI-compatible client, nil on Ollama.
	runtime *openai.Client
	err     error // the runtime cannot be used as set (no base URL, no model)
}

// newServer builds the client the settings choose.
func newServer(s settings.Settings) server {
	if s.LLMRuntime != "openai" {
		host := agent.ResolveHost(s.OllamaHost)
		c := agent.NewOllamaClient(host)
		return server{client: c, host: host.String(), ollama: c}
	}
	if p := s.RuntimeProblem(); p != "" {
		return server{client: unusable{errors.New(p)}, host: openai.Redacted(s.OpenAIBaseURL), err: errors.New(p)}
	}
	c, err := openai.New(openai.Options{BaseURL: s.OpenAIBaseURL, APIKey: s.OpenAIAPIKey})
	if err != nil {
		// The address is shown in the menu and hark doctor: never with
		// a key someone put in it.
		return server{client: unusable{err}, host: openai.Redacted(s.OpenAIBaseURL), err: err}
	}
	return server{client: c, host: c.BaseURL(), runtime: c}
}

// check is the start-up check of model on the server: agent.Check on
// Ollama, agent.CheckRuntime (reachable, the model served, tools) on an
// OpenAI-compatible server.
func (sv server) check(ctx context.Context, model string, contextLength int, allowCloud bool) ([]string, error) {
	switch {
	case sv.err != nil:
		return nil, sv.err
	case sv.runtime != nil:
		return agent.CheckRuntime(ctx, sv.runtime, sv.host, model, allowCloud)
	}
	return agent.Check(ctx, sv.ollama, sv.host, model, contextLength, allowCloud)
}

// name is the server's name for menu rows and doctor lines.
func (sv server) name() string {
	if sv.runtime != nil {
		return sv.runtime.RuntimeName()
	}
	if sv.err != nil {
		return "Model server"
	}
	return "Ollama"
}

// unusable is the client of a runtime set up wrong: every request says
// what to fix, so the app still starts and shows it.
type unusable struct{ err error }

func (u unusable) Chat(context.Context, *api.ChatRequest, api.ChatResponseFunc) error { return u.err }

// newAgent builds the one agent of a process from the settings; model
// overrides the llmModel (or ollamaModel) setting when not empty. The
// caller may set the confirmer and progress callback in tune first, or
// pass them per request.
func newAgent(s settings.Settings, paths settings.Paths, model string, tune func(*agent.Options)) (*agent.Agent, server, error) {
	a, sv, _, err := newAgentWarm(s, paths, model, tune, true)
	return a, sv, err
}

// newAgentWarm is newAgent with the choice of starting the preview
// server now (warm) or leaving it to warmUp: `hark ask` starts it only
// once its start-up check has passed, since a process that exits while
// the server is starting leaves the server's hark-service-NNNN folder
// behind in $TMPDIR. pv is the agent's Previewer.
func newAgentWarm(s settings.Settings, paths settings.Paths, model string, tune func(*agent.Options), warm bool) (_ *agent.Agent, _ server, pv *preview.Previewer, _ error) {
	if model == "" {
		model = s.Model()
	}
	sv := newServer(s)
	if model == "" {
		// The openai runtime without llmModel: the agent needs a name,
		// and every request reports the problem (sv.err).
		model = "(llmModel not set)"
	}
	opts := agentOptions(s, paths, model, sv.client, sv.host, warm)
	pv, _ = opts.Previewer.(*preview.Previewer)
	if tune != nil {
		tune(&opts)
	}
	a, err := agent.New(opts)
	return a, sv, pv, err
}

// warmUp starts pv's server now; tests see when it is called.
var warmUp = func(pv *preview.Previewer) {
	if pv != nil {
		pv.Warm()
	}
}

// previewTimeout, when set, replaces the previewTimeout setting. Tests
// raise it, since a loaded test machine must not turn a preview they check
// into "unavailable": the product's bound is measured by the preview
// benchmarks instead.
var previewTimeout time.Duration

// newPreviewer is the one Previewer of `hark run`, `hark ask` and `hark exec`.
func newPreviewer(s settings.Settings) *preview.Previewer {
	timeout := s.PreviewTimeout.D()
	if previewTimeout > 0 {
		timeout = previewTimeout
	}
	return preview.New(preview.Options{
		Runner:  shell.NewRunner(shell.RunnerOptions{KeepEnv: s.KeepEnv, OutputLimit: preview.OutputLimit}),
		Timeout: timeout,
	})
}

// agentOptions are the agent settings shared by `hark run` and `hark ask`.
//
// warm starts the preview server at once, for a caller that will ask
// soon; hark exec, which mostly runs safe commands, starts it only when a
// command needs it.
func agentOptions(s settings.Settings, paths settings.Paths, model string, client agent.ChatClient, host string, warm bool) agent.Options {
	keepAlive := api.Duration{Duration: s.KeepAlive.D()}
	pol := shell.NewPolicyFor(shell.SandboxMode(s.Sandbox))
	// The preview server starts now, while the user speaks and the model
	// thinks, so that even the first approval finds it ready.
	pv := newPreviewer(s)
	if warm {
		pv.Warm()
	}
	return agent.Options{
		Client:          client,
		Model:           model,
		Host:            host,
		Classifier:      pol,
		Executor:        newRunner(s),
		Previewer:       pv,
		NoConfirm:       !s.ConfirmBeforeExecute,
		ConfirmTimeout:  s.ConfirmTimeout.D(),
		MaxTurns:        s.MaxTurns,
		Sandbox:         shell.SandboxMode(s.Sandbox),
		NoSandbox:       noSandbox(shell.SandboxMode(s.Sandbox)),
		KeepAlive:       &keepAlive,
		ContextLength:   s.ContextLength,
		NumPredict:      s.NumPredict,
		ToolOutputLimit: s.ModelOutputLimit,
		CommandTimeout:  s.CommandTimeout.D(),
		OutputLimit:     s.OutputLimit,
		History:         newStore(paths.History),
		Audit:           agent.NewAuditLog(paths.Audit),
		Rules:           openRules(paths, pol),
		Trash:           newTrash(paths),

		AllowCloudModels: s.AllowCloudModels,
	}
}

// trashState is where the last Move to Trash is remembered for undo: beside
// the audit log, with the other records of what Hark did.
func trashState(paths settings.Paths) string {
	return filepath.Join(filepath.Dir(paths.Audit), "last-trash.json")
}

// newTrash opens the user's Trash, or returns nil (Move to Trash is then
// not offered) when there is no home folder to keep it in.
func newTrash(paths settings.Paths) *trash.Bin {
	o := trash.Options{State: trashState(paths)}
	// The freedesktop specification ignores a relative XDG_DATA_HOME.
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		o.DataHome = d
	}
	b, err := trash.New(o)
	if err != nil {
		return nil
	}
	return b
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

// line prints question and waits for one line of input. End of input is
// io.EOF (after ending the prompt's line); a cancelled or expired ctx is
// its error.
func (y *yesNo) line(ctx context.Context, question string) (string, error) {
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
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// ask prints question and waits for one line. ok is false when stdin ended
// without an answer; err is ctx's error when it ended first.
func (y *yesNo) ask(ctx context.Context, question string) (yes, ok bool, err error) {
	line, err := y.line(ctx, question)
	switch {
	case errors.Is(err, io.EOF):
		return false, false, nil
	case err != nil:
		return false, false, err
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", true, nil
}

// noTerminalToAsk is the not-run result of a command hark ask could not
// put to anyone: what happened and how to approve it, then, for the
// model, that nobody said no.
const noTerminalToAsk = "nobody was asked: there is no terminal here to approve it (run hark ask in a terminal, or send the request to the running Hark with hark send and approve it in its menu). " +
	"The user was not asked and denied nothing; do not retry the command."

// terminalConfirmer asks Run this? [N]o / [y]es on the terminal for `hark
// ask`, with a for Always allow (where a rule is offered) and n REASON to
// deny and tell the model why.
// Without a terminal nobody can answer, so nothing is approved.
type terminalConfirmer struct {
	e *env
	q *yesNo
	// heard is the transcript of a spoken request (hark ask --wav), its
	// unsure words marked, and unsure those words: the prompt shows what
	// was heard, and warns first when a doubtful word is what the command
	// deletes or overwrites. Both are empty for a typed request.
	heard  string
	unsure []string
}

func newTerminalConfirmer(e *env) *terminalConfirmer { return &terminalConfirmer{e: e, q: newYesNo(e)} }

func (c *terminalConfirmer) Confirm(ctx context.Context, p agent.Pending) (agent.Decision, error) {
	if !c.e.isTerminal {
		// Nobody can answer: this is no denial, and the audit log and
		// history must not record one.
		return agent.Decision{}, &agent.NotAsked{Why: noTerminalToAsk, By: agent.ByNoTerminal}
	}
	if p.Heard == "" {
		p.Heard = c.heard
	}
	if p.HeardDoubt == "" {
		p.HeardDoubt = app.HeardDoubt(p, c.unsure)
	}
	// The command was printed as it was proposed, just above; the
	// warnings start the approval, before the preview and the question: a
	// misheard name first, as the menu and the notification put it, since
	// it is what the command would delete.
	if p.HeardDoubt != "" {
		showf(c.e.stderr, "    ! %s\n", p.HeardDoubt)
	}
	fmt.Fprint(c.e.stderr, hiddenWarning(p.Command, "    "))
	fmt.Fprint(c.e.stderr, previewText(p.Preview, "    "))
	fmt.Fprint(c.e.stderr, scopeText(p, "    "))
	if p.Rule != "" {
		showf(c.e.stderr, "    %s\n", p.Rule)
	}
	if p.AfterNo != "" && p.AfterTimeout {
		showf(c.e.stderr, "    (the model proposes this after no answer came in time for: %s)\n", p.AfterNo)
	} else if p.AfterNo != "" {
		showf(c.e.stderr, "    (the model proposes this after you said no to: %s)\n", p.AfterNo)
	}
	if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		showf(c.e.stderr, "    Heard “%s”\n", h)
	}
	question := runQuestion(p.Proposal != nil, true, "    ")
	if p.TrashOffered {
		question = trashQuestion(true, "    ")
	}
	for {
		line, err := c.q.line(ctx, question)
		if err != nil {
			return c.stopped(ctx, p)
		}
		a := parseAnswer(line)
		if p.TrashOffered {
			// Move to Trash is the default; Delete runs the command as
			// written; anything else denies.
			switch t := strings.ToLower(strings.TrimSpace(line)); {
			case t == "" || t == "t" || t == "trash":
				return agent.Decision{PendingID: p.ID, Trash: true, By: agent.ByTerminal}, nil
			case t == "d" || t == "delete":
				return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal}, nil
			case !a.always:
				return agent.Decision{PendingID: p.ID, By: agent.ByTerminal, Reason: a.reason}, nil
			}
		}
		switch {
		case a.approve:
			return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal}, nil
		case !a.always:
			return agent.Decision{PendingID: p.ID, By: agent.ByTerminal, Reason: a.reason}, nil
		case p.Proposal == nil:
			showf(c.e.stderr, "    %s\n", p.NoProposal)
			continue
		}
		fmt.Fprint(c.e.stderr, describeRule(*p.Proposal, "    "))
		save := "    Save this rule and run? [N]o / [y]es "
		line, err = c.q.line(ctx, save)
		if err != nil {
			return c.stopped(ctx, p)
		}
		if parseAnswer(line).approve {
			return agent.Decision{PendingID: p.ID, Approved: true, By: agent.ByTerminal, Rule: p.Proposal}, nil
		}
		fmt.Fprintln(c.e.stderr, "    no rule saved")
	}
}

// stopped is the answer when the prompt could not be answered: end of
// input denies; a cancelled or timed-out request says so.
func (c *terminalConfirmer) stopped(ctx context.Context, p agent.Pending) (agent.Decision, error) {
	if ctx.Err() == nil {
		return agent.Decision{PendingID: p.ID, By: agent.ByTerminal}, nil
	}
	// The terminal has echoed ^C after the prompt; start the line afresh
	// and say what that meant.
	fmt.Fprint(c.e.stderr, "\r\x1b[2K    not run: cancelled\n")
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return agent.Decision{PendingID: p.ID, By: agent.ByTimeout}, ctx.Err()
	}
	return agent.Decision{PendingID: p.ID, By: agent.ByTerminal}, ctx.Err()
}

// answer is one reply to the terminal prompt.
type answer struct {
	approve bool
	always  bool
	reason  string // a denial's reason
}

// parseAnswer reads y, yes, a, always, and n or no followed by an
// optional reason ("n: use the trash", "no, keep them"). Anything else
// denies: only a clear yes runs a command.
func parseAnswer(line string) answer {
	t := strings.TrimSpace(line)
	switch strings.ToLower(t) {
	case "y", "yes":
		return answer{approve: true}
	case "a", "always":
		return answer{always: true}
	}
	lower := strings.ToLower(t)
	for _, w := range []string{"no", "n"} {
		if rest, ok := strings.CutPrefix(lower, w); ok && (rest == "" || strings.IndexByte(" :,;-", rest[0]) >= 0) {
			return answer{reason: strings.TrimSpace(strings.TrimLeft(t[len(w):], " :,;-"))}
		}
	}
	return answer{}
}

// describeRule shows a rule and its examples before it is saved.
func describeRule(r rules.Rule, indent string) string {
	var b strings.Builder
	showf(&b, "%srule: %s\n", indent, r)
	if len(r.Examples.Match) > 0 {
		showf(&b, "%s  allows, e.g.: %s\n", indent, strings.Join(r.Examples.Match, " · "))
	}
	if len(r.Examples.NoMatch) > 0 {
		showf(&b, "%s  still asks, e.g.: %s\n", indent, strings.Join(r.Examples.NoMatch, " · "))
	}
	return b.String()
}

// previewText is a command's preview as the y/N prompts of run, ask and
// exec print it before the question: the summary, then what it found
// about each target. Empty when there is none.
// scopeText is what the approved command may change and reach, one line
// each, as the kernel will hold it.
func scopeText(p agent.Pending, indent string) string {
	home, _ := os.UserHomeDir()
	var b strings.Builder
	for _, l := range app.ScopeLines(p, home) {
		b.WriteString(indent + visible.Line(l) + "\n")
	}
	return b.String()
}

func previewText(pv *preview.Preview, indent string) string {
	if pv == nil {
		return ""
	}
	var b strings.Builder
	// The preview renders the names it found already; a second pass
	// changes nothing there and covers whatever else a summary quotes.
	b.WriteString(indent + "preview: " + visible.Line(pv.Summary) + "\n")
	for _, l := range pv.Lines {
		b.WriteString(indent + "  " + visible.Line(l) + "\n")
	}
	return b.String()
}

// runQuestion and trashQuestion are the terminal's approval prompts, in
// the order of every surface (app.Answers): the safe choice first and
// marked as the default, and Delete never beside it. a is mentioned only
// where a rule is offered; it always shows the rule before saving it.
func runQuestion(always, why bool, indent string) string {
	var extra []string
	if why {
		extra = append(extra, "n REASON: deny and say why")
	}
	if always {
		extra = append(extra, "a: always allow…")
	}
	q := indent + "Run this? [N]o (safe choice) / [y]es"
	if len(extra) > 0 {
		q += " (" + strings.Join(extra, " · ") + ")"
	}
	return q + " "
}

func trashQuestion(why bool, indent string) string {
	q := indent + "Move to Trash instead? [T]rash (safe choice) / [n]o / [d]elete"
	if why {
		q += " (n REASON: deny and say why)"
	}
	return q + " "
}

// newGuard is the agent whose tool handler answers commands that arrive
// from outside a conversation (hark mcp, hark exec): the same policy,
// rules, preview, Trash, runner limits and audit log as a spoken
// request's. Its Ollama client is never called: no model is involved.
func newGuard(s settings.Settings, paths settings.Paths, warm bool) (*agent.Agent, error) {
	sv := newServer(s)
	none := unusable{errors.New("commands from outside a conversation ask no model")}
	opts := agentOptions(s, paths, s.Model(), none, sv.host, warm)
	opts.History = nil // a call is no conversation
	if paths.Settings == "" {
		// Hark's folders are unknown: no rules, no audit log, no Trash
		// to keep an undo in.
		opts.Rules, opts.Audit, opts.Trash = nil, nil, nil
	}
	if shell.SandboxMode(s.Sandbox) == shell.SandboxReadOnly {
		// Moving files is a write, and Hark moves them itself, outside
		// any sandbox: read-only means no Trash either.
		opts.Trash = nil
	}
	return agent.New(opts)
}

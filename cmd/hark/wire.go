package main

import (
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// newStore opens the conversation history with the settings package's
// atomic writes, which the agent package gets injected rather than
// importing the app.
func newStore(dir string) *agent.Store {
	return agent.NewStore(dir, agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
}

// agentOptions are the agent settings shared by `hark run` and `hark ask`;
// the caller adds the confirmer and the progress callback.
func agentOptions(s settings.Settings, paths settings.Paths, model string, client agent.ChatClient, host string) agent.Options {
	keepAlive := api.Duration{Duration: s.KeepAlive.D()}
	runner := shell.NewRunner(shell.RunnerOptions{Timeout: s.CommandTimeout.D(), OutputLimit: s.OutputLimit, KeepEnv: s.KeepEnv})
	return agent.Options{
		Client:          client,
		Model:           model,
		Host:            host,
		Classifier:      shell.NewPolicyFor(shell.SandboxMode(s.Sandbox)),
		Executor:        runner,
		Previewer:       preview.New(preview.Options{Runner: shell.NewRunner(shell.RunnerOptions{KeepEnv: s.KeepEnv, OutputLimit: preview.OutputLimit})}),
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

// previewText is a command's preview as the y/N prompts of run, ask and
// exec print it before the question: the summary, then what it found
// about each target. Empty when there is none.
func previewText(pv *preview.Preview, indent string) string {
	if pv == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(indent + "preview: " + pv.Summary + "\n")
	for _, l := range pv.Lines {
		b.WriteString(indent + "  " + l + "\n")
	}
	return b.String()
}

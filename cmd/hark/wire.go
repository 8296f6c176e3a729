package main

import (
	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// newStore opens the conversation history with the settings package's
// atomic writes, which the agent package gets injected rather than
// importing the app.
func newStore(dir string) *agent.Store {
	return agent.NewStore(dir, agent.Files{WriteAtomic: settings.WriteFileAtomic, MoveAside: settings.MoveAside})
}

// newRunner is the command runner the settings describe.
func newRunner(s settings.Settings) *shell.Runner {
	return shell.NewRunner(shell.RunnerOptions{Timeout: s.CommandTimeout.D(), OutputLimit: s.OutputLimit, KeepEnv: s.KeepEnv})
}

// agentOptions are the agent settings shared by `hark run` and `hark ask`;
// the caller adds the confirmer and the progress callback.
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

package main

import (
	"os"
	"path/filepath"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
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
	return agent.Options{
		Client:          client,
		Model:           model,
		Host:            host,
		Classifier:      shell.NewPolicyFor(shell.SandboxMode(s.Sandbox)),
		Executor:        shell.NewRunner(shell.RunnerOptions{Timeout: s.CommandTimeout.D(), OutputLimit: s.OutputLimit, KeepEnv: s.KeepEnv}),
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
		Trash:           newTrash(paths),
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

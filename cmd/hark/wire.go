package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
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
	pol := shell.NewPolicyFor(shell.SandboxMode(s.Sandbox))
	return agent.Options{
		Client:          client,
		Model:           model,
		Host:            host,
		Classifier:      pol,
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
		Rules:           openRules(paths, pol),
	}
}

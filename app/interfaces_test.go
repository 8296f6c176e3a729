package app

import "github.com/hark-sh/hark/agent"

// The agent's concrete types are what the core consumes, with no adapter
// in between: a change to either side that breaks this fails to compile.
var (
	_ Agent           = (*agent.Agent)(nil)
	_ Preloader       = (*agent.Agent)(nil)
	_ History         = (*agent.Store)(nil)
	_ agent.Confirmer = turnConfirmer{}
)

package main

import (
	"context"

	"github.com/hark-sh/hark/shell"
)

// The sandbox helper: the runner re-executes hark as `hark __sandbox …` to
// confine a command (Landlock on Linux) and to stay its parent, so that
// everything the command starts can be stopped. Internal, so hidden.
func init() {
	register(&command{
		name:    shell.HelperCommand,
		usage:   "[-ro -tmp DIR] -- SHELL -c COMMAND",
		summary: "Internal: runs one command for hark exec and the agent.",
		hidden:  true,
		run: func(_ context.Context, _ *env, args []string) int {
			return shell.SandboxHelperMain(args)
		},
	})
}

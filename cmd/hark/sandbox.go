package main

import (
	"context"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// The sandbox helper: on Linux the runner starts `hark __sandbox -server`
// once per process, a long-lived zygote that forks every command, confines
// it (Landlock and seccomp) when asked, and stays its parent so that
// everything the command starts can be stopped; `hark __sandbox … -- SHELL`
// runs a single command the same way, the fallback. Internal, so hidden.
func init() {
	register(&command{
		name:    shell.HelperCommand,
		usage:   "-server | [-ro -tmp DIR] -- SHELL -c COMMAND",
		summary: "Internal: runs one command for hark exec and the agent.",
		hidden:  true,
		run: func(_ context.Context, _ *env, args []string) int {
			return shell.SandboxHelperMain(args)
		},
	})
}

// The preview helper: before an approval the agent (and hark exec) runs
// `hark __preview DEADLINE COMMAND` inside the read-only sandbox to see
// what the command would touch. Internal, so hidden.
func init() {
	register(&command{
		name:    preview.HelperCommand,
		usage:   "-server | DEADLINE COMMAND",
		summary: "Internal: looks at what a command would touch, for an approval.",
		hidden:  true,
		run: func(_ context.Context, _ *env, args []string) int {
			return preview.HelperMain(args)
		},
	})
}

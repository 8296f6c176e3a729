package shell

import (
	"context"
	"strings"
	"testing"
	"time"
)

// escapingCommand starts descendants that leave the process group or lose
// their parent, prints their PIDs, then blocks. A process-group kill alone
// would miss all but the first.
const escapingCommand = `
sleep 300 & echo $!                          # plain grandchild, stays in the group
setsid sleep 300 & echo $!                   # new session and group, parent alive
(setsid sleep 300 & echo $!) ; :             # new session, parent gone (double fork)
sh -c 'sleep 300 & echo $!' ; :              # orphan in the group
(trap "" TERM; setsid sh -c 'trap "" TERM; exec sleep 300' & echo $!) ; :  # ignores SIGTERM, escaped
echo started
sleep 300
`

// helperModes are the Linux ways that stop escaped descendants: the zygote
// (the default) and the per-command helper (the fallback).
var helperModes = []runMode{{name: "zygote"}, {name: "per-command helper", perCommand: true}}

// On timeout, every process the command started must die, including those
// that left the process group. Checked by PID, right after Run returns: the
// zygote or helper is the child subreaper, so it has reaped them all by then.
func TestRunTimeoutKillsEscapedDescendants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode      runMode
		sandboxed bool
	}{{helperModes[0], false}, {helperModes[0], true}, {helperModes[1], false}, {helperModes[1], true}} {
		sandboxed := tc.sandboxed
		name := tc.mode.name + "/" + map[bool]string{false: "unsandboxed", true: "sandboxed"}[sandboxed]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if sandboxed {
				requireLandlock(t)
			}
			r := testRunner(t, RunnerOptions{Timeout: 2 * time.Second}) // long enough to start all five on a busy machine
			tc.mode.apply(r)
			mode := SandboxOff
			if sandboxed {
				mode = SandboxReadOnly
			}
			res := r.Run(context.Background(), Request{Command: escapingCommand, Verdict: confirmed, Sandbox: mode})
			if !res.TimedOut || !strings.Contains(res.Output, "started") {
				t.Fatalf("want a timeout after start: %s", res.JSON())
			}
			pids := pidsFrom(t, res.Output)
			if len(pids) != 5 {
				t.Fatalf("want 5 PIDs, got %v from %q", pids, res.Output)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d survived the timeout", pid)
				}
			}
			waitGone(t, pids) // cleans up if the assertion above failed
		})
	}
}

// A command that exits normally takes its escaped background jobs with it.
func TestRunExitKillsEscapedDescendants(t *testing.T) {
	t.Parallel()
	for _, mode := range helperModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			r := testRunner(t, RunnerOptions{})
			mode.apply(r)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res := r.Run(ctx, Request{Command: "(setsid sleep 300 & echo $!) ; setsid sleep 300 & echo $!", Verdict: confirmed})
			if !res.Success || ctx.Err() != nil {
				t.Fatalf("%s", res.JSON())
			}
			pids := pidsFrom(t, res.Output)
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d outlived the command", pid)
				}
			}
			waitGone(t, pids)
		})
	}
}

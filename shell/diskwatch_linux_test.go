package shell

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// diskUse runs one disk-quota run at a time. The disk watch counts the
// free space of a whole file system, so where runs get no scratch file
// system of their own (an unprivileged user) one test's writers stop
// another test's run, and one test's clean-up, freeing what its run
// wrote, hides as much of another's writing from the watch.
var diskUse sync.Mutex

// A sandboxed command may write only to its temporary folder, but many
// files there, or one deleted while still open, could fill the disk
// before the timeout: the writes past the quota are refused (a scratch
// file system of the quota's size), or the disk watch stops the command
// once the free space has fallen by the quota. The same command finishes
// when it stays under it.
func TestSandboxDiskQuotaStopsFillingTheDisk(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	const quota = 32 << 20
	// First and alone: the writers below use up free space for every run.
	t.Run("under the quota", func(t *testing.T) {
		diskUse.Lock()
		defer diskUse.Unlock()
		r := testRunner(t, RunnerOptions{DiskQuota: quota})
		res := r.Run(context.Background(), Request{Command: `head -c 1000000 /dev/zero > "$TMPDIR/f" && wc -c < "$TMPDIR/f"`, Verdict: confirmed, Sandbox: SandboxReadOnly})
		if !res.Success || strings.TrimSpace(res.Output) != "1000000" {
			t.Fatalf("a small scratch file should be fine: %s", res.JSON())
		}
	})
	for _, tc := range []struct{ name, command string }{
		{"many files", `for i in 1 2 3 4 5 6 7 8; do head -c 64000000 /dev/zero > "$TMPDIR/f$i"; done; echo finished`},
		{"deleted while open", `exec 3>"$TMPDIR/f"; rm "$TMPDIR/f"; for i in 1 2 3 4 5 6 7 8; do head -c 64000000 /dev/zero >&3; done; echo finished`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := testRunner(t, RunnerOptions{DiskQuota: quota})
			diskUse.Lock()
			res := r.Run(context.Background(), Request{Command: tc.command, Verdict: confirmed, Sandbox: SandboxReadOnly})
			diskUse.Unlock()
			if res.Sandbox != SandboxApplied {
				t.Fatalf("not sandboxed: %s", res.JSON())
			}
			if res.TimedOut {
				t.Fatalf("timed out: %s", res.JSON())
			}
			// Either every write past the quota was refused (a scratch
			// file system of the quota's size, see
			// TestEscapeDiskQuotaHoldsAtAllocation), or the watch stopped it.
			if strings.Contains(res.Error, "No space left on device") || strings.Contains(res.Error, "File size limit exceeded") {
				return
			}
			if strings.Contains(res.Output, "finished") || res.Success {
				t.Fatalf("want the command stopped before it wrote 512 MB: %s", res.JSON())
			}
			if !strings.Contains(res.Error, "the disk lost more than 32 MiB") {
				t.Errorf("the error should say why it stopped: %q", res.Error)
			}
		})
	}
}

// The quota's zero value is the default; a negative one turns the watch off.
func TestDiskQuotaDefault(t *testing.T) {
	t.Parallel()
	if r := NewRunner(RunnerOptions{}); r.diskQuota != DefaultDiskQuota {
		t.Errorf("default quota %d, want %d", r.diskQuota, DefaultDiskQuota)
	}
	if r := NewRunner(RunnerOptions{DiskQuota: -1}); r.diskQuota >= 0 {
		t.Errorf("a negative quota should stay off, got %d", r.diskQuota)
	}
}

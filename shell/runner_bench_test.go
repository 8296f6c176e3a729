//go:build unix

package shell

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRunTrue measures what the Runner adds to starting a shell. The
// baseline is exec.Command("sh", "-c", "true") measured in the same run; each
// runner variant reports its time per run as a multiple of it, in the
// x-plain-sh metric. The runner uses the same /bin/sh, so the ratio is the
// runner's own cost (environment, capture, process group, and on Linux the
// helper process), not the difference between shells.
func BenchmarkRunTrue(b *testing.B) {
	var baseline float64 // ns per run of the plain-sh case
	b.Run("plain-sh", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
		baseline = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	variants := []struct {
		name   string
		direct bool
		mode   SandboxMode
		want   string
	}{
		{"runner", false, SandboxOff, SandboxNotApplied},
		{"runner-direct", true, SandboxOff, SandboxNotApplied},
		{"runner-sandboxed", false, SandboxReadOnly, SandboxApplied},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: b.TempDir(), Timeout: 10 * time.Second})
			r.direct = v.direct
			if ok, _ := r.probe(); v.mode == SandboxReadOnly && (!ok || !r.canSandbox()) {
				b.Skip("no OS sandbox here")
			}
			req := Request{Command: "true", Verdict: confirmed, Sandbox: v.mode}
			for b.Loop() {
				if res := r.Run(context.Background(), req); !res.Success || res.Sandbox != v.want {
					b.Fatalf("%s", res.JSON())
				}
			}
			if baseline > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/baseline, "x-plain-sh")
			}
		})
	}
}

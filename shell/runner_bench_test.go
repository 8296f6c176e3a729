//go:build unix

package shell

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRunTrue measures what the Runner adds to starting a shell. The
// baseline is exec.Command("/bin/sh", "-c", "true"). Every runner variant
// times one baseline run next to each of its own runs, alternating which
// goes first, and reports the ratio of the two totals in the x-plain-sh
// metric: pairing keeps the ratio honest on a machine whose load drifts
// during the benchmark. ns/op counts the runner's runs only. The runner uses
// the same /bin/sh, so the ratio is the runner's own cost (environment,
// capture, process group, and on Linux the zygote's round trip or the
// per-command helper process), not the difference between shells. On Linux
// "runner" and "runner-sandboxed" go through the long-lived zygote, the
// default; the per-command helper variants are the fallback, for
// comparison; runner-direct is how macOS runs.
func BenchmarkRunTrue(b *testing.B) {
	plain := func(b *testing.B) {
		if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("plain-sh", func(b *testing.B) {
		for b.Loop() {
			plain(b)
		}
	})
	variants := []struct {
		name               string
		direct, perCommand bool
		mode               SandboxMode
		want               string
	}{
		{"runner", false, false, SandboxOff, SandboxNotApplied},
		{"runner-sandboxed", false, false, SandboxReadOnly, SandboxApplied},
		{"runner-direct", true, false, SandboxOff, SandboxNotApplied},
		{"runner-per-command-helper", false, true, SandboxOff, SandboxNotApplied},
		{"runner-per-command-helper-sandboxed", false, true, SandboxReadOnly, SandboxApplied},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: b.TempDir(), Timeout: 10 * time.Second})
			r.direct, r.perCommand = v.direct, v.perCommand
			if !v.direct && !v.perCommand {
				// Start the zygote outside the timed loop: it starts once per
				// Hark process, not per command.
				r.Run(context.Background(), Request{Command: "true", Verdict: confirmed, Sandbox: SandboxOff})
			}
			if ok, _ := r.probe(); v.mode == SandboxReadOnly && (!ok || !r.canSandbox()) {
				b.Skip("no OS sandbox here")
			}
			req := Request{Command: "true", Verdict: confirmed, Sandbox: v.mode}
			run := func() {
				if res := r.Run(context.Background(), req); !res.Success || res.Sandbox != v.want {
					b.Fatalf("%s", res.JSON())
				}
			}
			var base, runner time.Duration
			i := 0
			for b.Loop() {
				// The clock reads sit inside StartTimer/StopTimer: with
				// -benchmem each of those reads the memory statistics,
				// which stops the world, and that cost belongs to neither
				// side.
				b.StopTimer()
				t0 := time.Now()
				if i%2 == 0 {
					plain(b)
				}
				t1 := time.Now()
				b.StartTimer()
				t2 := time.Now()
				run()
				t3 := time.Now()
				b.StopTimer()
				t4 := time.Now()
				if i%2 == 1 {
					plain(b)
				}
				t5 := time.Now()
				b.StartTimer()
				base += t1.Sub(t0) + t5.Sub(t4)
				runner += t3.Sub(t2)
				i++
			}
			b.ReportMetric(float64(runner)/float64(base), "x-plain-sh")
		})
	}
}

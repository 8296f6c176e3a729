package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// benchCLIEnv makes this test binary behave as hark itself, so that a
// benchmark can time a whole `hark exec` process: start, settings, policy,
// the zygote, the sandboxed command, the result JSON, exit.
const benchCLIEnv = "HARK_BENCH_CLI"

func init() {
	if os.Getenv(benchCLIEnv) == "1" {
		os.Unsetenv(benchCLIEnv)
		main()
	}
}

// BenchmarkExecProcess times a whole `hark exec --sandbox read-only -- true`
// against `codex sandbox -- true`, OpenAI Codex's command sandbox, in the
// same loop, one after the other, and reports codex/hark. A plain
// `sh -c true` in the same loop is the floor. Codex comes from
// `npm install @openai/codex`: set CODEX to its native binary (or have
// `codex` on PATH); without it the benchmark says so and times only Hark.
func BenchmarkExecProcess(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	codex := os.Getenv("CODEX")
	if codex == "" {
		codex, _ = exec.LookPath("codex")
	}
	home := b.TempDir()
	run := func(name string, args []string, env []string) time.Duration {
		c := exec.Command(name, args...)
		c.Env = env
		c.Dir = home
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(start)
	}
	harkEnv := append(os.Environ(), benchCLIEnv+"=1", "HARK_HOME="+home)
	var sh, hark, cx time.Duration
	for b.Loop() {
		sh += run("/bin/sh", []string{"-c", "true"}, os.Environ())
		hark += run(self, []string{"exec", "--sandbox", "read-only", "--", "true"}, harkEnv)
		if codex != "" {
			cx += run(codex, []string{"sandbox", "--", "true"}, os.Environ())
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(sh.Microseconds())/n/1000, "sh-ms")
	b.ReportMetric(float64(hark.Microseconds())/n/1000, "hark-exec-ms")
	if codex == "" {
		b.Log("codex not found: npm install @openai/codex, then set CODEX to node_modules/@openai/codex-linux-x64/vendor/*/bin/codex")
		return
	}
	b.ReportMetric(float64(cx.Microseconds())/n/1000, "codex-sandbox-ms")
	b.ReportMetric(float64(cx)/float64(hark), "x-codex/hark")
}

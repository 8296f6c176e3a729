//go:build e2e

package e2e

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTicks reads utime+stime of pid from /proc, in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the whole line.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	f := strings.Fields(rest)
	u, errU := strconv.ParseInt(f[11], 10, 64)
	s, errS := strconv.ParseInt(f[12], 10, 64)
	if errU != nil || errS != nil {
		t.Fatalf("cannot read utime and stime from /proc/%d/stat: %q", pid, b)
	}
	return u + s
}

func rssKiB(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no VmRSS in /proc status")
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		t.Fatalf("VmRSS %q: %v", m[1], err)
	}
	return n
}

// TestIdleCost measures what a running, idle hark costs: CPU over a window
// (HARK_E2E_MEASURE, for example 60s) and resident memory without a whisper
// model. It reports the figures and fails when idle Hark is not idle: over
// 2% of one core means something polls or spins, and over 200 MiB means
// something large is held before any model is loaded. It runs only when
// HARK_E2E_MEASURE is set because it takes that long.
func TestIdleCost(t *testing.T) {
	window := os.Getenv("HARK_E2E_MEASURE")
	if window == "" {
		t.Skip("set HARK_E2E_MEASURE=60s to measure idle CPU and memory (takes that long)")
	}
	d, err := time.ParseDuration(window)
	if err != nil {
		t.Fatalf("HARK_E2E_MEASURE=%q: %v", window, err)
	}
	for _, c := range []struct {
		name      string
		ollamaOff bool
	}{
		{"healthy", false},
		// A standing problem arms the backing-off re-check timer; that
		// must not cost an idle Hark anything measurable either.
		{"ollama down, re-checking", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			desk := newDesktop(t, true, true)
			if c.ollamaOff {
				desk.ollama.Stop()
			}
			h := startHark(t, desk)
			h.menu.WaitFor(t, 30*time.Second, "Ready")
			measureIdle(t, h, d)
		})
	}
}

func measureIdle(t *testing.T, h *hark, d time.Duration) {
	time.Sleep(2 * time.Second) // let startup checks finish
	pid := h.cmd.Process.Pid
	const hz = 100 // USER_HZ on Linux
	before, start := cpuTicks(t, pid), time.Now()
	time.Sleep(d)
	after, elapsed := cpuTicks(t, pid), time.Since(start)
	cpu := float64(after-before) / hz / elapsed.Seconds() * 100
	rss := float64(rssKiB(t, pid)) / 1024
	t.Logf("idle CPU over %v: %d ticks = %.3f%% of one core", elapsed.Round(time.Second), after-before, cpu)
	t.Logf("idle RSS (no whisper model loaded): %.1f MiB", rss)
	if cpu > 2 {
		t.Errorf("idle hark used %.3f%% of one core, want at most 2%%: something polls or spins while idle", cpu)
	}
	if rss > 200 {
		t.Errorf("idle hark holds %.1f MiB resident, want at most 200 MiB without a whisper model", rss)
	}
}

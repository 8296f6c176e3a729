package preview

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
)

// generous is the time bound of tests that are not about the time bound:
// six other test runs may share this machine's cores.
const generous = 20 * time.Second

func sandboxed(t testing.TB) bool {
	ok, _ := shell.SandboxStatus()
	return ok
}

func TestPreviewerRunsInTheSandbox(t *testing.T) {
	root := tree(t, "old/a:10", "old/b:20", "old/sub/c:30", "keep.txt:4")
	p := New(Options{Timeout: generous})
	got := p.Preview(context.Background(), "rm -rf old", root)
	if !sandboxed(t) {
		// Without a sandbox Hark does not look at all: the approval says so.
		check(t, "rm -rf old (no sandbox)", got, want{status: Unavailable})
		return
	}
	check(t, "rm -rf old", got, want{status: Shown, summary: "Deletes 2 folders, 3 files, 60 B",
		lines: []string{"old: 2 folders (this one and 1 inside), 3 files, 60 B"}})

	if got := p.Preview(context.Background(), "ls -la", root); got != nil {
		t.Errorf("a read-only command has no preview, got %+v", got)
	}
	// The folder defaults to home, like the runner's.
	home := New(Options{Timeout: generous, Runner: shell.NewRunner(shell.RunnerOptions{Home: root})})
	check(t, "rm keep.txt in home", home.Preview(context.Background(), "rm keep.txt", ""), want{status: Shown, summary: "Deletes 1 file, 4 B"})
}

// TestPreviewerIsConfined swaps the helper for a script that tries to
// write beside the targets: inside the read-only sandbox it cannot.
func TestPreviewerIsConfined(t *testing.T) {
	dir := t.TempDir()
	canary := filepath.Join(dir, "written")
	script := filepath.Join(dir, "helper")
	body := "#!/bin/sh\n" +
		"if touch '" + canary + "' 2>/dev/null; then s=wrote; else s=confined; fi\n" +
		`printf '{"preview":{"status":"shown","summary":"%s"}}\n' "$s"` + "\n"
	exectest.WriteProgram(t, script, []byte(body), 0o755)
	got := New(Options{Timeout: generous, Executable: script}).Preview(context.Background(), "rm -rf x", dir)
	if !sandboxed(t) {
		check(t, "no sandbox", got, want{status: Unavailable})
		if _, err := os.Stat(canary); err == nil {
			t.Fatal("without a sandbox the helper must not run at all")
		}
		return
	}
	check(t, "confined helper", got, want{status: Shown, summary: "confined"})
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("the preview helper wrote a file: it ran outside the sandbox")
	}
}

func TestPreviewerTimeBound(t *testing.T) {
	root := tree(t, "old/a:1")
	// A bound too short to start a process: the answer is "unavailable",
	// never a wait.
	got := New(Options{Timeout: time.Millisecond}).Preview(context.Background(), "rm -rf old", root)
	check(t, "1 ms bound", got, want{status: Unavailable})
	if !strings.HasPrefix(got.Summary, unavailablePre) {
		t.Errorf("summary %q should start %q", got.Summary, unavailablePre)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check(t, "cancelled", New(Options{Timeout: generous}).Preview(ctx, "rm -rf old", root), want{status: Unavailable})
}

func TestPreviewerMissingHelper(t *testing.T) {
	root := tree(t, "a:1")
	got := New(Options{Timeout: generous, Executable: filepath.Join(root, "no-such-hark")}).Preview(context.Background(), "rm a", root)
	check(t, "missing helper", got, want{status: Unavailable})
}

// TestWalkStopsAtTheDeadline: a walk that runs out of time says how far
// it got, as a lower bound, instead of a wrong total.
func TestWalkStopsAtTheDeadline(t *testing.T) {
	root := manyFiles(t, 600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := &analyzer{ctx: ctx}
	got := a.walk(root)
	if !got.Partial || got.Files >= 600 {
		t.Fatalf("walk after the deadline = %+v, want a partial count", got)
	}
	if s := got.String(); !strings.HasPrefix(s, "at least ") {
		t.Errorf("partial tally reads %q", s)
	}
}

// manyFiles makes n small files in 100-file folders under a temp folder.
func manyFiles(t testing.TB, n int) string {
	root := filepath.Join(t.TempDir(), "builds")
	for i := 0; i < n; i++ {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d", i)), []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// BenchmarkPreview10k previews `rm -rf` of a folder of 10,000 files.
// Each iteration also times, with the benchmark clock stopped, the least
// any preview must do: one in-process walk that lstats every file. The
// ratio to that walk ("x-walk"), measured side by side so that both see
// the same load, and the share of the 300 ms bound that the preview used
// ("%-of-bound") are reported. "direct" is the engine in process;
// "sandboxed" is the whole Previewer, sandbox included, through its
// long-lived preview server; "per-run" is the Previewer starting a helper
// process per preview, its fallback (and how every preview ran before the
// server). Both are given a long bound so that a slow run is measured
// rather than cut short.
//
//	go test -run '^$' -bench Preview ./shell/preview/
func BenchmarkPreview10k(b *testing.B) {
	root := manyFiles(b, 10000)
	parent := filepath.Dir(root)
	const wantSummary = "Deletes 101 folders, 10,000 files, 100 KB"
	walk := func(b *testing.B) time.Duration {
		b.StopTimer()
		defer b.StartTimer()
		start := time.Now()
		files := 0
		_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if _, err := d.Info(); err == nil {
					files++
				}
			}
			return nil
		})
		if files != 10000 {
			b.Fatalf("walked %d files", files)
		}
		return time.Since(start)
	}
	measure := func(b *testing.B, preview func() *Preview) {
		var spent, walked time.Duration
		for b.Loop() {
			walked += walk(b)
			start := time.Now()
			p := preview()
			spent += time.Since(start)
			if p == nil || p.Summary != wantSummary {
				b.Fatalf("preview = %+v", p)
			}
		}
		b.ReportMetric(float64(spent)/float64(walked), "x-walk")
		b.ReportMetric(100*float64(spent)/float64(b.N)/float64(DefaultTimeout), "%-of-bound")
	}
	b.Run("direct", func(b *testing.B) {
		measure(b, func() *Preview { return compute(context.Background(), "rm -rf builds", parent, os.Environ()) })
	})
	for _, v := range previewerVariants {
		b.Run(v.name, func(b *testing.B) {
			if !sandboxed(b) {
				b.Skip("no sandbox on this system, so the Previewer does not look; the direct run measures the engine")
			}
			p := v.previewer()
			defer p.Close()
			warm(b, p, parent)
			measure(b, func() *Preview { return p.Preview(context.Background(), "rm -rf builds", parent) })
		})
	}
}

// previewerVariants are the two ways a Previewer can look: its long-lived
// preview server (the default) and a helper process per preview (the
// fallback, and the only way before the server).
var previewerVariants = []struct {
	name      string
	previewer func() *Previewer
}{
	{"sandboxed", func() *Previewer { return New(Options{Timeout: time.Minute}) }},
	{"per-run", func() *Previewer { p := New(Options{Timeout: time.Minute}); p.perRun = true; return p }},
}

// warm previews once outside the timed loop, so that neither the runner's
// zygote nor the preview server is started inside it: both start once per
// Hark process, not per preview.
func warm(b *testing.B, p *Previewer, dir string) {
	b.Helper()
	if got := p.Preview(context.Background(), "rm -f no-such-file", dir); got == nil || got.Status == Unavailable {
		b.Fatalf("warm-up preview = %+v", got)
	}
}

// BenchmarkPreviewSmall previews what a user deleting little is shown:
// one file, and a folder of 100 files. Each iteration also runs, with the
// benchmark clock stopped, `true` through a Runner in the same read-only
// sandbox, the least any sandboxed command costs; "x-true" is the ratio
// of the preview's time to that, measured side by side so that both see
// the same load, and "%-of-bound" is the share of the 300 ms bound the
// preview used. "sandboxed" is the preview server, "per-run" a helper
// process per preview.
//
//	go test -run '^$' -bench PreviewSmall ./shell/preview/
func BenchmarkPreviewSmall(b *testing.B) {
	if !sandboxed(b) {
		b.Skip("no sandbox on this system, so the Previewer does not look at all")
	}
	dir := tree(b, "notes.txt:12")
	folder := filepath.Dir(manyFiles(b, 100))
	cases := []struct {
		name, dir, command, summary string
	}{
		{"file", dir, "rm notes.txt", "Deletes 1 file, 12 B"},
		{"folder100", folder, "rm -rf builds", "Deletes 2 folders, 100 files, 1.0 KB"},
	}
	runner := shell.NewRunner(shell.RunnerOptions{})
	baseline := func(b *testing.B) time.Duration {
		b.StopTimer()
		defer b.StartTimer()
		start := time.Now()
		res := runner.Run(context.Background(), shell.Request{Command: "true", WorkingDirectory: dir,
			Verdict: shell.Verdict{Command: "true", Tier: shell.Safe}, Sandbox: shell.SandboxReadOnly, Timeout: time.Minute})
		if !res.Success || res.Sandbox != shell.SandboxApplied {
			b.Fatalf("true in the sandbox: %+v", res)
		}
		return time.Since(start)
	}
	baseline(b) // the zygote starts once per process, outside the loop
	for _, c := range cases {
		for _, v := range previewerVariants {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				p := v.previewer()
				defer p.Close()
				warm(b, p, c.dir)
				var spent, base time.Duration
				for b.Loop() {
					base += baseline(b)
					start := time.Now()
					got := p.Preview(context.Background(), c.command, c.dir)
					spent += time.Since(start)
					if got == nil || got.Summary != c.summary {
						b.Fatalf("preview = %+v", got)
					}
				}
				b.ReportMetric(float64(spent)/float64(base), "x-true")
				b.ReportMetric(100*float64(spent)/float64(b.N)/float64(DefaultTimeout), "%-of-bound")
			})
		}
	}
}

// A runner that keeps too little output would cut the helper's answer:
// the preview says so instead of showing half of it.
func TestPreviewerNeedsRoomForItsAnswer(t *testing.T) {
	root := tree(t, "old/a:1")
	got := New(Options{Timeout: generous, Runner: shell.NewRunner(shell.RunnerOptions{OutputLimit: 16})}).Preview(context.Background(), "rm -rf old", root)
	check(t, "tiny output limit", got, want{status: Unavailable})
	if sandboxed(t) && !strings.Contains(got.Summary, "cut short") {
		t.Errorf("summary %q does not say the answer was cut", got.Summary)
	}
}

// Targets left when the time runs out are counted as unknown, never
// silently dropped from the totals.
func TestTargetsAfterTheDeadlineAreUnknown(t *testing.T) {
	root := tree(t, "a:1", "b:1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := compute(ctx, "rm a b", root, []string{"HOME=" + root})
	check(t, "rm a b after the deadline", got, want{status: Shown,
		lines: []string{"2 more targets: cannot tell — the time ran out before Hark looked"}})
}

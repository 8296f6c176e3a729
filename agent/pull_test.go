package agent

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

func pullServer(t *testing.T, p ...ollamatest.Pull) (*ollamatest.Server, *OllamaClient) {
	t.Helper()
	srv := ollamatest.New(t)
	for _, o := range p {
		srv.Offer(o)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, NewOllamaClient(u)
}

// A pull's progress is summed over the layers, only ever grows, reaches
// the whole size, and the model is installed at the end.
func TestPullProgressToInstalled(t *testing.T) {
	t.Parallel()
	m := ollamatest.Qwen3("qwen3:8b")
	srv, c := pullServer(t, ollamatest.Pull{Model: m, Layers: []int64{5_000_000, 1_500, 500}})
	var seen []PullProgress
	if err := Pull(context.Background(), c, srv.URL, m.Name, func(p PullProgress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	if !srv.Installed(m.Name) {
		t.Fatal("the model is not installed after a successful pull")
	}
	if len(seen) < 10 {
		t.Fatalf("only %d progress lines", len(seen))
	}
	var last PullProgress
	for i, p := range seen {
		if p.Done < last.Done || p.Total < last.Total {
			t.Fatalf("progress went back at line %d: %+v after %+v", i, p, last)
		}
		last = p
	}
	if last.Total != 5_002_000 || last.Done != last.Total {
		t.Errorf("final progress %+v, want all of 5002000 bytes", last)
	}
	if seen[0].Status != "pulling manifest" || seen[0].Total != 0 || seen[0].String() != "pulling manifest…" {
		t.Errorf("first line %+v (%q)", seen[0], seen[0].String())
	}
	if last.Status != "success" {
		t.Errorf("last status %q", last.Status)
	}
}

// The tracker's rate and time left follow the bytes since the first one
// counted, so a resumed pull is not credited with what it had already.
func TestPullTrackerRateAndTimeLeft(t *testing.T) {
	t.Parallel()
	tr := &PullTracker{Model: "m"}
	t0 := time.Unix(1000, 0)
	tr.Add(api.ProgressResponse{Status: "pulling manifest"}, t0)
	p := tr.Add(api.ProgressResponse{Status: "pulling a", Digest: "sha256:a", Total: 2_000_000_000, Completed: 500_000_000}, t0)
	if p.Rate != 0 || p.Left != 0 {
		t.Errorf("rate known before any time passed: %+v", p)
	}
	p = tr.Add(api.ProgressResponse{Status: "pulling a", Digest: "sha256:a", Total: 2_000_000_000, Completed: 700_000_000}, t0.Add(10*time.Second))
	if p.Rate != 20_000_000 {
		t.Errorf("rate %v, want 20 MB/s", p.Rate)
	}
	if p.Left != 65*time.Second {
		t.Errorf("left %v, want 1m5s", p.Left)
	}
	if got, want := p.String(), "35% of 2.0 GB · 20.0 MB/s · 1:05 left"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// Cancelling the context mid-pull ends the request (the server sees the
// client go away), installs nothing, and says the part is kept.
func TestPullCancelMidway(t *testing.T) {
	t.Parallel()
	m := ollamatest.Qwen3("qwen2.5:7b")
	srv, c := pullServer(t, ollamatest.Pull{Model: m, Layers: []int64{1_000_000}, HoldAt: 400_000})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Pull(ctx, c, srv.URL, m.Name, nil) }()
	for !srv.Held(m.Name) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	if !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "resumes") {
		t.Fatalf("err %v, want a cancellation that says the pull resumes", err)
	}
	for srv.PullsAborted() == 0 {
		time.Sleep(time.Millisecond)
	}
	if srv.Installed(m.Name) {
		t.Error("a cancelled pull installed the model")
	}
}

// Each way a pull fails says what to do next, and installs nothing.
func TestPullErrors(t *testing.T) {
	t.Parallel()
	broken := ollamatest.Qwen3("llama3.1:8b")
	srv, c := pullServer(t, ollamatest.Pull{Model: broken, Layers: []int64{1_000_000}, FailAt: 300_000,
		Error: "max retries exceeded: Get \"https://registry.ollama.ai/v2/library/llama3.1/blobs/sha256:…\": connection reset by peer"})
	for _, tc := range []struct {
		name, model string
		want        []string
	}{
		{"not in the library", "qwen9:404b", []string{`no model "qwen9:404b" in the Ollama library`, DefaultModel}},
		{"network lost", broken.Name, []string{"downloading llama3.1:8b", "connection reset", "resumes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress int
			err := Pull(context.Background(), c, srv.URL, tc.model, func(PullProgress) { progress++ })
			if !errors.Is(err, ErrPull) {
				t.Fatalf("err %v, want ErrPull", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if progress == 0 {
				t.Error("no progress line before the error")
			}
			if srv.Installed(tc.model) {
				t.Error("a failed pull installed the model")
			}
		})
	}
	t.Run("ollama down", func(t *testing.T) {
		down, dc := pullServer(t)
		down.Stop()
		err := Pull(context.Background(), dc, down.URL, DefaultModel, nil)
		if !errors.Is(err, ErrPull) || !strings.Contains(err.Error(), "ollama serve") {
			t.Errorf("err %v, want one that says how to start Ollama", err)
		}
	})
}

// After a load, /api/ps tells how much of the model is in GPU memory; a
// partial fit is a problem that names the numbers and a smaller model,
// in the app's watch and in the doctor's probe, and the watch keeps its
// verdict once the model is unloaded.
func TestPartialGPU(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	srv := ollamatest.New(t, ollamatest.Qwen3(model))
	u, _ := url.Parse(srv.URL)
	c := NewOllamaClient(u)
	srv.SetPlacement(model, 6_100_000_000, 3_400_000_000)
	watch := &GPUWatch{Client: c, Model: model}
	if err := watch.Check(context.Background()); err != nil {
		t.Fatalf("before any load: %v", err)
	}
	if d, err := ProbeGPU(context.Background(), c, srv.URL, model); err != nil || !strings.Contains(d, "not loaded") {
		t.Errorf("doctor before a load: %q, %v", d, err)
	}
	ag, err := New(Options{Client: c, Model: model, Host: srv.URL, Classifier: shell.NewPolicy(), Executor: shell.NewRunner(shell.RunnerOptions{}), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Preload(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = watch.Check(context.Background())
	var partial *PartialGPUError
	if !errors.As(err, &partial) {
		t.Fatalf("after the load: %v, want a PartialGPUError", err)
	}
	for _, want := range []string{"qwen3:8b runs partly on the CPU", "3.4 GB of 6.1 GB in GPU memory", "44% on the CPU", DefaultModel} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problem %q lacks %q", err, want)
		}
	}
	if got, want := partial.ProblemTitle(), "Model partly on the CPU (44%): answers slower — see Problems…"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	_, perr := ProbeGPU(context.Background(), c, srv.URL, model)
	var pe *shell.ProbeError
	if !errors.As(perr, &pe) || !pe.Minor || !strings.Contains(pe.Problem, "3.4 GB of 6.1 GB") || !strings.Contains(pe.Next, DefaultModel) {
		t.Errorf("doctor: %v", perr)
	}
	srv.Unload()
	if err := watch.Check(context.Background()); !errors.As(err, &partial) {
		t.Errorf("after the keep-alive the watch forgot the verdict: %v", err)
	}
	// All in GPU memory clears it once the model is loaded again.
	srv.SetPlacement(model, 6_100_000_000, 6_100_000_000)
	if err := ag.Preload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := watch.Check(context.Background()); err != nil {
		t.Errorf("all in GPU memory: %v", err)
	}
	if d, err := ProbeGPU(context.Background(), c, srv.URL, model); err != nil || !strings.Contains(d, "runs in GPU memory") {
		t.Errorf("doctor when it fits: %q, %v", d, err)
	}
}

func TestPlacementSmaller(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Placement
		want string
	}{
		{Placement{Model: "qwen3:8b", Size: 7e9, VRAM: 6.5e9}, "llama3.1:8b"},
		{Placement{Model: "qwen3:8b", Size: 7e9, VRAM: 3e9}, DefaultModel},
		{Placement{Model: DefaultModel, Size: 4e9, VRAM: 2e9}, ""},
		{Placement{Model: "gemma3:27b", Size: 20e9, VRAM: 7e9}, "qwen3:8b"},
		{Placement{Model: "gemma3:27b", Size: 20e9, VRAM: 1e9}, DefaultModel},
	} {
		if got := tc.p.Smaller(); got != tc.want {
			t.Errorf("%+v: smaller %q, want %q", tc.p, got, tc.want)
		}
	}
	if a := (Placement{Model: DefaultModel}).Advice(); !strings.Contains(a, "contextLength") {
		t.Errorf("advice for the smallest model %q", a)
	}
}

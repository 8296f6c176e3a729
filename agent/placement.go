package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// RunningLister is the part of Ollama's client that reads /api/ps;
// *api.Client has it.
type RunningLister interface {
	ListRunning(ctx context.Context) (*api.ProcessResponse, error)
}

// Placement is where Ollama put a loaded model: Size bytes in all (weights
// and the context's cache), VRAM of them in GPU memory. The rest runs on
// the CPU, several times slower per token.
type Placement struct {
	Model      string
	Size, VRAM int64
}

// Partial says some of the model is on the GPU and some is not: the case
// a smaller model fixes. A machine with no usable GPU (VRAM 0) is not
// partial; nothing smaller would move it there.
func (p Placement) Partial() bool { return p.VRAM > 0 && p.VRAM < p.Size }

// CPUOnly says none of the model is in GPU memory.
func (p Placement) CPUOnly() bool { return p.VRAM == 0 && p.Size > 0 }

// CPUPercent is the share of the model outside GPU memory.
func (p Placement) CPUPercent() int {
	if p.Size <= 0 {
		return 0
	}
	return int(100 * float64(p.Size-p.VRAM) / float64(p.Size))
}

// FindPlacement reads /api/ps for model; ok is false when it is not
// loaded now (before the first request, or after the keep-alive).
func FindPlacement(ctx context.Context, c RunningLister, model string) (p Placement, ok bool, err error) {
	ps, err := c.ListRunning(ctx)
	if err != nil {
		return Placement{}, false, err
	}
	for _, m := range ps.Models {
		if sameModel(m.Name, model) || sameModel(m.Model, model) {
			return Placement{Model: model, Size: m.Size, VRAM: m.SizeVRAM}, true, nil
		}
	}
	return Placement{}, false, nil
}

func sameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return a != "" && norm(a) == norm(b)
}

// Smaller names a recommended model that should fit better than p.Model:
// of those smaller than it (its download size when it is on the list,
// else its size in memory), the largest whose download fits in four
// fifths of the GPU memory it got — the rest is the context's cache — or
// the smallest when none does. "" when p.Model is already the smallest.
func (p Placement) Smaller() string {
	limit := p.Size
	for _, m := range Recommended {
		if sameModel(m.Name, p.Model) {
			limit = m.Bytes
		}
	}
	best := ""
	for _, m := range Recommended {
		if m.Bytes >= limit {
			break
		}
		if best == "" || m.Bytes <= p.VRAM*8/10 {
			best = m.Name
		}
	}
	return best
}

// Summary is the placement with the numbers: "qwen3:8b runs partly on the
// CPU: 3.4 of 6.1 GB in GPU memory (44% on the CPU)".
func (p Placement) Summary() string {
	switch {
	case p.Partial():
		return fmt.Sprintf("%s runs partly on the CPU: %s of %s in GPU memory (%d%% on the CPU)", p.Model, SizeText(p.VRAM), SizeText(p.Size), p.CPUPercent())
	case p.CPUOnly():
		return fmt.Sprintf("%s runs on the CPU only (%s, none in GPU memory)", p.Model, SizeText(p.Size))
	}
	return fmt.Sprintf("%s runs in GPU memory (%s)", p.Model, SizeText(p.Size))
}

// Advice is the next step for a model not wholly in GPU memory.
func (p Placement) Advice() string {
	if s := p.Smaller(); s != "" {
		return fmt.Sprintf("a smaller model answers faster: set \"ollamaModel\" to %s (`hark models pull %s`), or lower \"contextLength\"", s, s)
	}
	return "lower \"contextLength\" in settings, which shrinks the cache Ollama keeps beside the model, or close what else uses GPU memory"
}

// PartialGPUError is the menu's problem for a model that runs partly on
// the CPU.
type PartialGPUError struct{ Placement }

func (e *PartialGPUError) Error() string {
	return e.Summary() + ", which slows every reply; " + e.Advice()
}

// ProblemTitle is the menu row: what it costs the user (slower answers)
// and where the fix is; the numbers are in the row's detail.
func (e *PartialGPUError) ProblemTitle() string {
	if e.VRAM <= 0 {
		return "Model on the CPU only: answers slower — see Problems…"
	}
	return fmt.Sprintf("Model partly on the CPU (%d%%): answers slower — see Problems…", e.CPUPercent())
}

// ProbeGPU is the model's placement line in `hark doctor`. It can only
// tell once the model is loaded, and says so before.
func ProbeGPU(ctx context.Context, c RunningLister, host, model string) (string, error) {
	p, ok, err := FindPlacement(ctx, c, model)
	switch {
	case err != nil:
		return "", &shell.ProbeError{Problem: fmt.Sprintf("cannot read what Ollama at %s has loaded (%s)", host, shortError(err)),
			Next: "start Ollama (see the Ollama line)", Minor: true}
	case !ok:
		return fmt.Sprintf("%s is not loaded now; run a request, then `hark doctor` tells whether it fits in GPU memory", model), nil
	case p.Partial(), p.CPUOnly():
		return "", &shell.ProbeError{Problem: p.Summary(), Next: p.Advice(), Minor: true}
	}
	return p.Summary(), nil
}

// GPUWatch is the app's check of the placement. /api/ps forgets a model
// once its keep-alive runs out, so the watch keeps its last verdict while
// the model is not loaded, instead of calling the problem fixed.
type GPUWatch struct {
	Client RunningLister
	Model  string

	mu   sync.Mutex
	last error
}

// Check returns a *PartialGPUError while the model runs partly on the CPU.
func (w *GPUWatch) Check(ctx context.Context) error {
	p, ok, err := FindPlacement(ctx, w.Client, w.Model)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || !ok {
		// Ollama down is the ollama check's problem, not this one's.
		return w.last
	}
	w.last = nil
	if p.Partial() {
		w.last = &PartialGPUError{p}
	}
	return w.last
}

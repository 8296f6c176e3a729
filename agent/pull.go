package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Recommended are the models Hark suggests, smallest first, with the
// download size the Ollama library lists for each (docs/models.md has the
// same table). Ollama's API cannot tell the size of a model that is not
// pulled without the registry, so this table is what "Download MODEL
// (SIZE)" shows before the pull; any other model's size is known only
// once the pull's first progress lines name its layers.
var Recommended = []RecommendedModel{
	{Name: DefaultModel, Bytes: 2_500_000_000},
	{Name: "qwen2.5:7b", Bytes: 4_700_000_000},
	{Name: "llama3.1:8b", Bytes: 4_900_000_000},
	{Name: "qwen3:8b", Bytes: 5_200_000_000},
	{Name: "mistral-nemo", Bytes: 7_100_000_000},
}

// RecommendedModel is one row of Recommended.
type RecommendedModel struct {
	Name  string
	Bytes int64 // download size, as the Ollama library lists it
}

// KnownSize is the download size of a recommended model, 0 for any other.
func KnownSize(model string) int64 {
	for _, m := range Recommended {
		if m.Name == model || m.Name == strings.TrimSuffix(model, ":latest") {
			return m.Bytes
		}
	}
	return 0
}

// Puller is the part of Ollama's client a pull uses; *api.Client has it.
type Puller interface {
	Pull(ctx context.Context, req *api.PullRequest, fn api.PullProgressFunc) error
}

// PullProgress is where a pull stands, summed over the model's layers.
type PullProgress struct {
	Model  string
	Status string // Ollama's own words: "pulling manifest", "verifying sha256 digest", …
	// Done and Total are bytes over every layer announced so far; Total is
	// 0 until the first layer is named, and may grow while others are.
	Done, Total int64
	// Rate is bytes a second since the first byte; Left is the time to go
	// at that rate, 0 while unknown.
	Rate float64
	Left time.Duration
}

// Fraction is Done over Total, 0 while Total is unknown.
func (p PullProgress) Fraction() float64 {
	if p.Total <= 0 {
		return 0
	}
	return float64(p.Done) / float64(p.Total)
}

// String is the progress in one short line for a status bar:
// "42% of 2.5 GB · 12.3 MB/s · 1:20 left".
func (p PullProgress) String() string {
	if p.Total <= 0 {
		if p.Status == "" {
			return "starting…"
		}
		return p.Status + "…"
	}
	parts := []string{fmt.Sprintf("%d%% of %s", int(100*p.Fraction()), SizeText(p.Total))}
	if p.Rate > 0 {
		parts = append(parts, SizeText(int64(p.Rate))+"/s")
	}
	if p.Left > 0 {
		parts = append(parts, clock(p.Left)+" left")
	}
	return strings.Join(parts, " · ")
}

// SizeText writes bytes in the decimal units the Ollama library uses.
func SizeText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// PullTracker sums Ollama's per-layer progress lines into one figure. It
// takes the clock as an argument, so tests can drive the rate.
type PullTracker struct {
	Model  string
	layers map[string][2]int64 // digest → completed, total
	order  []string
	first  time.Time // when the first byte was counted
	base   int64     // bytes already there then (a resumed pull)
}

// Add takes one progress line received at now.
func (t *PullTracker) Add(r api.ProgressResponse, now time.Time) PullProgress {
	if t.layers == nil {
		t.layers = map[string][2]int64{}
	}
	if r.Digest != "" && r.Total > 0 {
		if _, ok := t.layers[r.Digest]; !ok {
			t.order = append(t.order, r.Digest)
		}
		t.layers[r.Digest] = [2]int64{r.Completed, r.Total}
	}
	p := PullProgress{Model: t.Model, Status: r.Status}
	for _, d := range t.order {
		l := t.layers[d]
		p.Done += l[0]
		p.Total += l[1]
	}
	if p.Total > 0 && t.first.IsZero() {
		t.first, t.base = now, p.Done
	}
	if el := now.Sub(t.first).Seconds(); !t.first.IsZero() && el > 0 && p.Done > t.base {
		p.Rate = float64(p.Done-t.base) / el
		p.Left = time.Duration(float64(p.Total-p.Done) / p.Rate * float64(time.Second))
	}
	return p
}

// ErrPull is the kind of every error Pull returns but cancellation.
var ErrPull = errors.New("model download failed")

// Pull downloads model through Ollama's /api/pull, calling fn with the
// progress after every line (on the caller's goroutine). Cancelling ctx
// stops it: Ollama ends a pull whose client went away and keeps the
// finished parts for next time. The errors say what to do next.
func Pull(ctx context.Context, c Puller, host, model string, fn func(PullProgress)) error {
	t := &PullTracker{Model: model}
	err := c.Pull(ctx, &api.PullRequest{Model: model}, func(r api.ProgressResponse) error {
		if fn != nil {
			fn(t.Add(r, time.Now()))
		}
		return nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &Error{Kind: ErrCancelled, Host: host, Model: model, Err: err,
			msg: fmt.Sprintf("download of %s cancelled; what was downloaded is kept, and pulling again resumes it", model)}
	}
	return pullError(ctx, err, host, model)
}

func pullError(ctx context.Context, err error, host, model string) *Error {
	low := strings.ToLower(err.Error())
	mk := func(status int, format string, args ...any) *Error {
		return &Error{Kind: ErrPull, Host: host, Model: model, Status: status, Err: err, msg: fmt.Sprintf(format, args...)}
	}
	var se api.StatusError
	status := 0
	if errors.As(err, &se) {
		status = se.StatusCode
		low = strings.ToLower(se.ErrorMessage)
	}
	switch {
	case strings.Contains(low, "file does not exist") || strings.Contains(low, "not found") || status == 404:
		return mk(status, "there is no model %q in the Ollama library; check the name at https://ollama.com/library, or pick one of %s", model, recommendedNames())
	case strings.Contains(low, "no space left"):
		return mk(status, "not enough disk space to download %s; free some space (Ollama keeps models in ~/.ollama/models, or OLLAMA_MODELS) and try again", model)
	case isUnreachable(err):
		e := classify(ctx, err, host, model)
		return mk(0, "%s", e.msg)
	}
	return mk(status, "downloading %s through Ollama at %s failed (%s); check your network connection and Ollama's log, then try again — a new pull resumes where this one stopped", model, host, strings.TrimSpace(err.Error()))
}

func recommendedNames() string {
	names := make([]string, len(Recommended))
	for i, m := range Recommended {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	pw "github.com/ggerganov/whisper.cpp/bindings/go/pkg/whisper"

	"github.com/hark-sh/hark/speech"
)

// The baseline is the smallest program that uses the bindings directly: load
// with pkg/whisper, make a context with the same thread count, Process,
// collect the segments. Hark's Transcriber adds the speech gate, the abort
// plumbing, the mutex and transcript cleanup; the ratio says what they cost.

func benchAudio(b *testing.B) (string, speech.Audio, int) {
	return testModel(b), jfkAudio(b), DefaultThreads()
}

type bindingsRun struct {
	model pw.Model
	ctx   pw.Context
}

func loadBindings(b *testing.B, path string, threads int) bindingsRun {
	m, err := pw.New(path)
	if err != nil {
		b.Fatalf("bindings: load: %v", err)
	}
	c, err := m.NewContext()
	if err != nil {
		b.Fatalf("bindings: context: %v", err)
	}
	c.SetThreads(uint(threads))
	return bindingsRun{m, c}
}

func (r bindingsRun) transcribe(b *testing.B, samples []float32) string {
	if err := r.ctx.Process(samples, nil, nil, nil); err != nil {
		b.Fatalf("bindings: process: %v", err)
	}
	var text string
	for {
		seg, err := r.ctx.NextSegment()
		if errors.Is(err, io.EOF) {
			return text
		}
		if err != nil {
			b.Fatalf("bindings: segment: %v", err)
		}
		text += seg.Text
	}
}

func loadHark(b *testing.B, path string, threads int) *Transcriber {
	tr, err := New(Options{ModelPath: path, Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.Warm(context.Background()); err != nil {
		b.Fatalf("hark: load: %v", err)
	}
	return tr
}

func harkTranscribe(b *testing.B, tr *Transcriber, a speech.Audio) {
	if _, err := tr.Transcribe(context.Background(), a); err != nil && !errors.Is(err, speech.ErrNoSpeech) {
		b.Fatalf("hark: %v", err)
	}
}

// BenchmarkTranscribe times one transcription of the JFK sample with the
// model already loaded, through the bare bindings and through Hark.
func BenchmarkTranscribe(b *testing.B) {
	path, a, threads := benchAudio(b)
	b.Run("bindings", func(b *testing.B) {
		r := loadBindings(b, path, threads)
		defer r.model.Close()
		for b.Loop() {
			r.transcribe(b, a.Samples)
		}
	})
	b.Run("hark", func(b *testing.B) {
		tr := loadHark(b, path, threads)
		defer tr.Close()
		for b.Loop() {
			harkTranscribe(b, tr, a)
		}
	})
}

// BenchmarkTranscribeRatio runs the two as pairs in one loop, swapping which
// goes first, so both see the same machine load, and reports the median of
// Hark's time over the bindings' time per pair: warm (model loaded) and cold
// (load, transcribe, free: what `hark transcribe` does once the process has
// started). The median keeps a burst of load from another process on a
// shared machine from deciding the figure.
func BenchmarkTranscribeRatio(b *testing.B) {
	path, a, threads := benchAudio(b)
	b.Run("warm", func(b *testing.B) {
		r := loadBindings(b, path, threads)
		defer r.model.Close()
		tr := loadHark(b, path, threads)
		defer tr.Close()
		var p pairs
		for b.Loop() {
			p.run(
				func() { r.transcribe(b, a.Samples) },
				func() { harkTranscribe(b, tr, a) })
		}
		p.report(b)
	})
	b.Run("cold", func(b *testing.B) {
		var p pairs
		for b.Loop() {
			p.run(
				func() {
					r := loadBindings(b, path, threads)
					r.transcribe(b, a.Samples)
					r.model.Close()
				},
				func() {
					tr := loadHark(b, path, threads)
					harkTranscribe(b, tr, a)
					tr.Close()
				})
		}
		p.report(b)
	})
}

// pairs records the time of each run of the baseline and of Hark.
type pairs struct {
	base, hark []time.Duration
}

func (p *pairs) run(base, hark func()) {
	timed := func(f func()) time.Duration {
		t := time.Now()
		f()
		return time.Since(t)
	}
	var tb, th time.Duration
	if len(p.base)%2 == 0 {
		tb = timed(base)
		th = timed(hark)
	} else {
		th = timed(hark)
		tb = timed(base)
	}
	p.base, p.hark = append(p.base, tb), append(p.hark, th)
}

func (p *pairs) report(b *testing.B) {
	ratios := make([]float64, len(p.base))
	for i := range p.base {
		ratios[i] = p.hark[i].Seconds() / p.base[i].Seconds()
	}
	b.ReportMetric(median(p.base).Seconds()*1000, "bindings-ms")
	b.ReportMetric(median(p.hark).Seconds()*1000, "hark-ms")
	b.ReportMetric(medianF(ratios), "hark/bindings")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(f []float64) float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	return s[len(s)/2]
}

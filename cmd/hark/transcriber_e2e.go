//go:build e2e

package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// newTranscriber, in the end-to-end test build only, replaces whisper (no
// model can be downloaded in CI) with a scripted one: it checks that the
// recording carries sound, then returns the text in the file named by
// HARK_E2E_TRANSCRIPT, read afresh for every recording so the test can
// script each turn. Everything else in that build is real.
func newTranscriber(_ settings.Settings, _ settings.Paths, log *slog.Logger) (app.Transcriber, error) {
	path := os.Getenv("HARK_E2E_TRANSCRIPT")
	if path == "" {
		return nil, fmt.Errorf("e2e build: set HARK_E2E_TRANSCRIPT to a file holding the text to return")
	}
	return scripted{path: path, log: log}, nil
}

type scripted struct {
	path string
	log  *slog.Logger
}

// minPeak is well above the dither of a silent null sink and well below
// any speech played into it.
const minPeak = 0.02

func (s scripted) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var peak, sum float64
	for _, v := range a.Samples {
		f := math.Abs(float64(v))
		peak = math.Max(peak, f)
		sum += f * f
	}
	rms := 0.0
	if len(a.Samples) > 0 {
		rms = math.Sqrt(sum / float64(len(a.Samples)))
	}
	s.log.Info("e2e transcriber", "samples", len(a.Samples), "rate", a.SampleRate, "peak", peak, "rms", rms)
	if a.SampleRate <= 0 || len(a.Samples) == 0 {
		return "", fmt.Errorf("e2e transcriber: empty recording (rate %d, %d samples)", a.SampleRate, len(a.Samples))
	}
	if peak < minPeak {
		return "", fmt.Errorf("e2e transcriber: the recording is silent (peak %.4f, rms %.4f)", peak, rms)
	}
	text, err := os.ReadFile(s.path)
	if err != nil {
		return "", fmt.Errorf("e2e transcriber: %v", err)
	}
	return strings.TrimSpace(string(text)), nil
}

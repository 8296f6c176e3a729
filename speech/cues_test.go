package speech

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// Each cue is short, never clips, starts and ends in silence (no click),
// and has its pitch where it should: the start cue ends higher than it
// begins, the stop cue lower, the cancel cue stays low.
func TestCues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cue        Cue
		rising     bool
		falling    bool
		maxPitchHz float64
	}{
		{CueStart, true, false, 1200},
		{CueStop, false, true, 1200},
		{CueCancel, false, false, 400},
	} {
		a := tt.cue.Sound()
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		if d := a.Duration(); d < 100*time.Millisecond || d > 250*time.Millisecond {
			t.Errorf("cue %d lasts %v", tt.cue, d)
		}
		var peak float64
		for _, s := range a.Samples {
			peak = max(peak, math.Abs(float64(s)))
		}
		if peak > 0.5 || peak < 0.1 {
			t.Errorf("cue %d peaks at %.2f", tt.cue, peak)
		}
		if first, last := math.Abs(float64(a.Samples[0])), math.Abs(float64(a.Samples[len(a.Samples)-1])); first > 0.01 || last > 0.01 {
			t.Errorf("cue %d starts at %.3f and ends at %.3f: it would click", tt.cue, first, last)
		}
		// Pitch by zero crossings in the first and the last 30 ms.
		n := int(0.03 * cueRate)
		head, tail := crossingsHz(a.Samples[:n]), crossingsHz(a.Samples[len(a.Samples)-n-int(0.01*cueRate):len(a.Samples)-int(0.01*cueRate)])
		if tt.rising && tail <= head || tt.falling && tail >= head || max(head, tail) > tt.maxPitchHz {
			t.Errorf("cue %d: %0.f Hz then %0.f Hz", tt.cue, head, tail)
		}
		var buf bytes.Buffer
		if err := WriteWAV(&buf, a); err != nil {
			t.Fatal(err)
		}
		if back, err := DecodeWAV(buf.Bytes()); err != nil || back.SampleRate != cueRate {
			t.Errorf("cue %d as WAV: %v", tt.cue, err)
		}
	}
}

// crossingsHz estimates the dominant frequency of s at cueRate.
func crossingsHz(s []float32) float64 {
	n := 0
	for i := 1; i < len(s); i++ {
		if (s[i-1] < 0) != (s[i] < 0) {
			n++
		}
	}
	return float64(n) / 2 / (float64(len(s)) / cueRate)
}

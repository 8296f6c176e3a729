//go:build e2e

package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	hdesktop "github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// BenchmarkSpeakerStop is how long espeak-ng keeps going after Hark stops
// it (the hotkey's barge-in cancels Speak), through the private
// PulseAudio server: from the cancel until Speak has returned, which is
// when the process group is gone and the microphone may open. The
// baseline, in the same run and through the same Speaker, is a program
// that makes no sound (sleep): the cost of stopping any process group.
func BenchmarkSpeakerStop(b *testing.B) {
	harness.Need(b, "espeak-ng")
	p := harness.StartPulse(b)
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	espeak := &hdesktop.Speaker{Program: "espeak-ng", Kind: "espeak-ng", Language: "en"}
	sleep := &hdesktop.Speaker{Program: "sleep", Kind: "say"} // runs `sleep -- 30`
	stop := func(s *hdesktop.Speaker, text string) time.Duration {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan time.Time, 1)
		var err error
		go func() { err = s.Speak(ctx, text); done <- time.Now() }()
		time.Sleep(300 * time.Millisecond) // speaking by now
		t0 := time.Now()
		cancel()
		d := (<-done).Sub(t0)
		if !errors.Is(err, context.Canceled) {
			b.Fatalf("%s was not speaking when stopped: %v", s.Kind, err)
		}
		return d
	}
	long := strings.Repeat("This is a long answer that Hark reads aloud until you press the hotkey. ", 10)
	var speech, base time.Duration
	for i := 0; i < b.N; i++ {
		speech += stop(espeak, long)
		base += stop(sleep, "30")
	}
	b.ReportMetric(float64(speech.Microseconds())/float64(b.N)/1000, "ms-after-stop")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N)/1000, "ms-baseline")
	b.ReportMetric(float64(speech)/float64(max(base, 1)), "ratio")
}

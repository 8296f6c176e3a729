package app

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
)

// BenchmarkKeyUpToTranscribe measures the time from posting KeyUp to the
// Transcriber being called, with a recorder whose Stop takes the configured
// tail, as the real one does. Hark's budget is the tail plus under 20 ms; the
// metrics report the median latency, the overhead beyond the tail, and the
// ratio to a bare sleep of the tail measured in the same run (the
// baseline: what an ideal core with zero overhead would take).
func BenchmarkKeyUpToTranscribe(b *testing.B) {
	const tail = 50 * time.Millisecond
	rec := newFakeRecorder()
	rec.tail = tail
	tr := newFakeTranscriber("list my downloads")
	notifier := newFakeNotifier()
	ag := answerAgent("done")
	s := settings.Defaults()
	// Push-to-talk: in hybrid mode, the default, a key-up this soon after
	// the key-down is a tap that keeps recording.
	s.HotkeyMode = ModePushToTalk
	a := New(Options{Settings: s, Paths: testPaths(b.TempDir()), Recorder: rec, Transcriber: tr, Agent: ag, Notifier: notifier})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	wait := func(ch any) {
		timeout := time.After(waitTimeout)
		switch c := ch.(type) {
		case chan struct{}:
			select {
			case <-c:
			case <-timeout:
				b.Fatal("timed out")
			}
		case chan request:
			select {
			case <-c:
			case <-timeout:
				b.Fatal("timed out")
			}
		case chan notification:
			select {
			case <-c:
			case <-timeout:
				b.Fatal("timed out")
			}
		}
	}
	var lat, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Post(KeyDown{})
		wait(rec.started)
		start := time.Now()
		a.Post(KeyUp{})
		var at time.Time
		select {
		case at = <-tr.at:
		case <-time.After(waitTimeout):
			b.Fatal("transcription never started")
		}
		<-tr.called
		lat = append(lat, at.Sub(start))
		wait(ag.calls)
		wait(notifier.got)

		t0 := time.Now()
		time.Sleep(tail)
		base = append(base, time.Since(t0))
	}
	b.StopTimer()
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	ml, mb := median(lat), median(base)
	b.ReportMetric(float64(ml.Microseconds())/1000, "ms-keyup-to-transcribe")
	b.ReportMetric(float64((ml-tail).Microseconds())/1000, "ms-over-tail")
	b.ReportMetric(float64((ml-mb).Microseconds())/1000, "ms-over-bare-tail")
	b.ReportMetric(float64(ml)/float64(mb), "ratio-to-bare-tail")
}

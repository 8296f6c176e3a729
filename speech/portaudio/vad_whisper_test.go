//go:build cgo && whisper

package portaudio

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/speechtest"
	"github.com/hark-sh/hark/speech/whisper"
)

// TestVADKeepsCapturedWords plays espeak-ng sentences into the null sink,
// records them through the real capture path with silence before and
// after, and checks that trimming the recording to what Silero hears keeps
// the first and the last word whole.
func TestVADKeepsCapturedWords(t *testing.T) {
	needPulse(t)
	model, vad := os.Getenv("HARK_WHISPER_TEST_MODEL"), os.Getenv("HARK_WHISPER_TEST_VAD")
	if model == "" || vad == "" {
		t.Skip("HARK_WHISPER_TEST_MODEL and HARK_WHISPER_TEST_VAD are not both set: this test needs a whisper model and a Silero VAD model")
	}
	tr, err := whisper.New(whisper.Options{ModelPath: model, VADModelPath: vad})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, text := range []string{
		"Push the current branch.",
		"Find every log file bigger than ten megabytes.",
	} {
		path, src := speak(t, text)
		r := NewRecorder(Options{Tail: 300 * time.Millisecond})
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFlowing(t, r)
		time.Sleep(700 * time.Millisecond)
		play(t, path)
		time.Sleep(700 * time.Millisecond)
		got, err := r.Stop()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		c, lag := bestCorrelation(got.Samples, src.Samples)
		if c < 0.9 {
			t.Fatalf("%q: the recording does not hold the sentence (correlation %.3f)", text, c)
		}
		at := func(n int) time.Duration { return time.Duration(n) * time.Second / speech.WhisperRate }
		on, off := speechtest.Onset(src)+at(lag), speechtest.Offset(src)+at(lag)
		spans, err := tr.SpeechSpans(context.Background(), got)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := speech.TrimToSpeech(got, spans, speech.SpeechPad)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		from := max(0, spans[0].Start-speech.SpeechPad)
		to := from + kept.Duration()
		t.Logf("%q: words at %s–%s of %s captured; kept %s–%s", text, on, off, got.Duration(), from, to)
		if from > on || to < off {
			t.Errorf("%q: kept %s–%s, but the words run %s–%s", text, from, to, on, off)
		}
	}
}

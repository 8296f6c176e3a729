package speech

import (
	"errors"
	"testing"
	"time"
)

func TestTrimToSpeech(t *testing.T) {
	t.Parallel()
	a := Audio{Samples: make([]float32, 5*WhisperRate), SampleRate: WhisperRate}
	for i := range a.Samples {
		a.Samples[i] = float32(i)
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	sample := func(d time.Duration) float32 { return float32(int(d.Seconds() * WhisperRate)) }
	tests := []struct {
		name     string
		spans    []Span
		from, to time.Duration
		noSpeech bool
	}{
		{name: "one phrase, padded", spans: []Span{{ms(1000), ms(2000)}}, from: ms(800), to: ms(2200)},
		{name: "the quiet between phrases stays", spans: []Span{{ms(1000), ms(1500)}, {ms(3000), ms(3500)}}, from: ms(800), to: ms(3700)},
		{name: "padding stops at the start", spans: []Span{{ms(50), ms(900)}}, from: 0, to: ms(1100)},
		{name: "padding stops at the end", spans: []Span{{ms(4000), ms(4950)}}, from: ms(3800), to: ms(5000)},
		{name: "no speech", spans: nil, noSpeech: true},
		{name: "speech beyond the recording", spans: []Span{{ms(7000), ms(8000)}}, noSpeech: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TrimToSpeech(a, tc.spans, SpeechPad)
			if tc.noSpeech {
				if !errors.Is(err, ErrNoSpeech) {
					t.Fatalf("got %s, %v; want ErrNoSpeech", got.Duration(), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Samples[0] != sample(tc.from) || got.Duration() != tc.to-tc.from {
				t.Errorf("kept %s from sample %.0f; want %s to %s", got.Duration(), got.Samples[0], tc.from, tc.to)
			}
		})
	}
}

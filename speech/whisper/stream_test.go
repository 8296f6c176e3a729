//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

// TestStreamAgainstOnePass transcribes a 10 s espeak-ng utterance in one
// pass and as a stream cut at its pauses. With real weights the words must
// agree within the model's own variance (at most one word in ten differs:
// a chunk loses the context whisper carries across a pause); the weight-less
// test model hears no words in either, and then both must refuse alike.
func TestStreamAgainstOnePass(t *testing.T) {
	tr := newTranscriber(t, Options{})
	a := utterance(t, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	one, oneErr := tr.Transcribe(ctx, a)
	s := tr.BeginStream(ctx, nil)
	feedAll(s, a)
	s.Wait()
	chunks := s.Chunks()
	got, ws, err := s.FinishWords(ctx, a)
	t.Logf("one pass: %q (%v); streamed in %d chunks and the tail: %q (%v), %d words", one, oneErr, chunks, got, err, len(ws))
	for _, w := range ws {
		if w.P < 0 || w.P > 1 {
			t.Errorf("streamed word %+v: probability out of [0, 1]", w)
		}
	}
	if chunks < 2 {
		t.Errorf("%d chunks before key-up in 10 s of sentences; the pauses should have cut at least two", chunks)
	}
	switch {
	case errors.Is(oneErr, speech.ErrNoSpeech):
		if !errors.Is(err, speech.ErrNoSpeech) {
			t.Errorf("one pass heard nothing but the stream says %q (%v)", got, err)
		}
	case oneErr != nil:
		t.Fatal(oneErr)
	case err != nil:
		t.Fatalf("one pass heard %q; the stream failed: %v", one, err)
	default:
		w1, w2 := words(one), words(got)
		if d := editDistance(w1, w2); d*10 > len(w1) {
			t.Errorf("%d of %d words differ:\none pass %q\nstreamed %q", d, len(w1), one, got)
		}
	}
}

func feedAll(s *speech.Stream, a speech.Audio) {
	const buf = speech.WhisperRate / 50
	for i := 0; i < len(a.Samples); i += buf {
		s.Write(speech.Audio{Samples: a.Samples[i:min(i+buf, len(a.Samples))], SampleRate: a.SampleRate})
	}
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
	})
}

func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

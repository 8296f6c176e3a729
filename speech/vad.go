package speech

import (
	"fmt"
	"time"
)

// Span is a stretch of a recording, from Start to End, such as one a voice
// activity detector found speech in.
type Span struct {
	Start, End time.Duration
}

// SpeechPad is kept before the first and after the last span a detector
// reports when a recording is trimmed to them: a detector marks speech from
// where a word is loud, and a word's first consonant (the "l" of "list")
// starts softer than that.
const SpeechPad = 200 * time.Millisecond

// TrimToSpeech returns the part of a from the start of the first span to the
// end of the last, widened by pad on each side and kept within a; the quiet
// between spans stays, so whisper still hears the pauses between phrases.
// Spans must be in order. No spans means the detector heard no speech: the
// error wraps ErrNoSpeech.
func TrimToSpeech(a Audio, spans []Span, pad time.Duration) (Audio, error) {
	if len(spans) == 0 {
		return Audio{}, fmt.Errorf("%w: voice activity detection heard no speech, only silence or noise", ErrNoSpeech)
	}
	at := func(d time.Duration) int {
		n := int(d.Seconds() * float64(a.SampleRate))
		return min(max(n, 0), len(a.Samples))
	}
	from, to := at(spans[0].Start-pad), at(spans[len(spans)-1].End+pad)
	if from >= to {
		return Audio{}, fmt.Errorf("%w: voice activity detection found speech only outside the recording", ErrNoSpeech)
	}
	return Audio{Samples: a.Samples[from:to], SampleRate: a.SampleRate}, nil
}

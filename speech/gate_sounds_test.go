package speech_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/speechtest"
)

// TestGateOnGeneratedSounds is the loudness gate alone, the fallback when no
// VAD model is installed: it must refuse a quiet room and accept speech. It
// also logs how often it refuses music and typing; being loud and uneven,
// they mostly pass, which is what Silero VAD is for (see the whisper
// package's TestVADOnGeneratedSounds).
func TestGateOnGeneratedSounds(t *testing.T) {
	t.Parallel()
	const seeds = 10
	refused := func(gen func(uint64, time.Duration) speech.Audio) int {
		n := 0
		for seed := range uint64(seeds) {
			if _, err := speech.CheckSpeech(gen(seed, 3*time.Second)); errors.Is(err, speech.ErrNoSpeech) {
				n++
			}
		}
		return n
	}
	silence, music, typing := refused(speechtest.Silence), refused(speechtest.Music), refused(speechtest.Typing)
	t.Logf("loudness gate says \"didn't catch that\" on %d/%d silences, %d/%d music clips, %d/%d typing clips (3 s each)", silence, seeds, music, seeds, typing, seeds)
	if silence != seeds {
		t.Errorf("the gate let %d of %d silent recordings through", seeds-silence, seeds)
	}
	say := speechtest.Espeak(t, "Show me the largest files in my downloads folder.")
	if _, err := speech.CheckSpeech(speechtest.Padded(say, time.Second, time.Second)); err != nil {
		t.Errorf("the gate refuses espeak-ng speech: %v", err)
	}
}

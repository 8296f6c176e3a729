//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/speechtest"
)

// testVADModel is a ggml Silero model: `hark models download silero-v5`, or
// models/for-tests-silero-v6.2.0-ggml.bin of a whisper.cpp checkout, which
// is the real v6.2.0 model.
func testVADModel(t *testing.T) string {
	t.Helper()
	path := os.Getenv("HARK_WHISPER_TEST_VAD")
	if path == "" {
		t.Skip("HARK_WHISPER_TEST_VAD is not set: point it at a ggml Silero model (e.g. models/for-tests-silero-v6.2.0-ggml.bin of a whisper.cpp checkout) to run the VAD tests")
	}
	return path
}

// A VAD model that is missing or is not one turns VAD off with a message
// saying what to do, and transcription goes on behind the loudness gate.
func TestVADModelUnusable(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "ggml-silero-v5.1.2.bin")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a model ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nothing.bin"), "cannot be read"},
		{"not a model", garbage, "not a Silero VAD model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscriber(t, Options{VADModelPath: tc.path})
			if err := tr.Warm(context.Background()); err != nil {
				t.Fatalf("a bad VAD model stopped the whisper model loading: %v", err)
			}
			err := tr.VADProblem()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "hark models download silero-v5") {
				t.Fatalf("VADProblem() = %v; want %q and the download command", err, tc.want)
			}
			// The weight-less test model hears no words, but says so only
			// after whisper ran: the speech reached the decoder.
			_, err = transcribe(t, context.Background(), tr, jfkAudio(t))
			if err != nil && !strings.Contains(err.Error(), "whisper heard no words") {
				t.Fatalf("transcription without VAD: %v", err)
			}
		})
	}
}

// TestVADOnGeneratedSounds measures, before any decoding, how often each
// check says "didn't catch that" on a quiet room, music and typing, and
// checks that trimming espeak-ng speech to what Silero hears clips neither
// its first nor its last word.
func TestVADOnGeneratedSounds(t *testing.T) {
	tr := newTranscriber(t, Options{VADModelPath: testVADModel(t)})
	if err := tr.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.VADProblem(); err != nil {
		t.Fatal(err)
	}
	spans := func(a speech.Audio) []speech.Span {
		if err := acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer release()
		s, ok := tr.speechSpans(a)
		if !ok {
			t.Fatal("Silero failed to run")
		}
		return s
	}
	const seeds = 10
	for _, kind := range []struct {
		name string
		gen  func(uint64, time.Duration) speech.Audio
	}{
		{"silence", speechtest.Silence}, {"music", speechtest.Music}, {"typing", speechtest.Typing},
	} {
		gate, vad := 0, 0
		for seed := range uint64(seeds) {
			a := kind.gen(seed, 3*time.Second)
			if _, err := speech.CheckSpeech(a); err != nil {
				gate++
			}
			if len(spans(a)) == 0 {
				vad++
			}
		}
		t.Logf("%-7s didn't catch that: loudness gate %2d/%d, Silero %2d/%d", kind.name, gate, seeds, vad, seeds)
		if vad != seeds {
			t.Errorf("Silero heard speech in %d of %d %s clips", seeds-vad, seeds, kind.name)
		}
	}
	// Refused before the decoder runs: whisper never encodes a window.
	encoded := 0
	tr.encoderBegin = func() { encoded++ }
	_, err := transcribe(t, context.Background(), tr, speechtest.Music(42, 3*time.Second))
	if !errors.Is(err, speech.ErrNoSpeech) || !strings.Contains(err.Error(), "voice activity") || encoded != 0 {
		t.Errorf("music: %v after %d encoder passes; want VAD's refusal and none", err, encoded)
	}
	tr.encoderBegin = nil
	for _, text := range []string{
		"List the files in my downloads folder.",
		"Kill the process listening on port eight thousand.",
		"Show git log for the last week.",
	} {
		say := speechtest.Espeak(t, text)
		a := speechtest.Padded(say, 1500*time.Millisecond, 1500*time.Millisecond)
		on, off := 1500*time.Millisecond+speechtest.Onset(say), 1500*time.Millisecond+speechtest.Offset(say)
		s := spans(a)
		kept, err := speech.TrimToSpeech(a, s, speech.SpeechPad)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		from := s[0].Start - speech.SpeechPad
		to := from + kept.Duration()
		t.Logf("%q: speech %s–%s, kept %s–%s of %s (%d spans)", text, on, off, from, to, a.Duration(), len(s))
		if from > on || to < off {
			t.Errorf("%q: trimming kept %s–%s but the words run %s–%s", text, from, to, on, off)
		}
		if kept.Duration() > a.Duration()-2*time.Second {
			t.Errorf("%q: kept %s of %s; the 3 s of silence around it should mostly go", text, kept.Duration(), a.Duration())
		}
	}
}

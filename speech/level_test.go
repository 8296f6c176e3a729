package speech

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func noise(rng *rand.Rand, n int, amp float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64() * amp)
	}
	return out
}

// syllables is speech-like: noise bursts of 150 ms every 300 ms over a
// quiet floor, the way syllables come and go.
func syllables(rng *rand.Rand, dur float64, amp float64) []float32 {
	out := noise(rng, int(dur*WhisperRate), 0.0005)
	for i := range out {
		if t := float64(i) / WhisperRate; math.Mod(t, 0.3) < 0.15 {
			out[i] += float32(rng.NormFloat64() * amp * math.Sin(2*math.Pi*180*t))
		}
	}
	return out
}

// espeak renders text with espeak-ng at 16 kHz (its native 22.05 kHz
// resampled by our own resampler). It skips only when espeak-ng is missing
// outside CI.
func espeak(t *testing.T, text string) Audio {
	t.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("espeak-ng is missing in CI; .ci/run installs it")
		}
		t.Skip("espeak-ng is not installed (apt install espeak-ng)")
	}
	path := filepath.Join(t.TempDir(), "say.wav")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "espeak-ng", "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	a, err := ReadWAVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a16, err := a.To16k()
	if err != nil {
		t.Fatal(err)
	}
	return a16
}

func scaled(a Audio, gain float32) Audio {
	out := make([]float32, len(a.Samples))
	for i, v := range a.Samples {
		out[i] = v * gain
	}
	return Audio{Samples: out, SampleRate: a.SampleRate}
}

func TestCheckSpeechSynthetic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	sec := func(d float64) int { return int(d * WhisperRate) }
	cases := []struct {
		name    string
		samples []float32
		speech  bool
		reason  string
	}{
		{"digital silence", make([]float32, sec(2)), false, "no speech"},
		{"room noise at -66 dBFS", noise(rng, sec(2), 0.0005), false, "no speech"},
		{"loud but 0.2 s", syllables(rng, 0.2, 0.3), false, "lasted 200ms"},
		{"one click", append(make([]float32, sec(1)), append(noise(rng, 160, 0.5), make([]float32, sec(1))...)...), false, "no speech"},
		{"steady hum", sample(tone(120, 0.3), WhisperRate, 2), false, "steady"},
		{"steady fan noise", noise(rng, sec(3), 0.05), false, "steady"},
		{"syllables", syllables(rng, 1.5, 0.2), true, ""},
		{"short word", syllables(rng, 0.45, 0.2), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lv, err := CheckSpeech(Audio{Samples: tc.samples, SampleRate: WhisperRate})
			if tc.speech {
				if err != nil {
					t.Fatalf("rejected: %v (%+v)", err, lv)
				}
				return
			}
			if !errors.Is(err, ErrNoSpeech) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("got %v (%+v), want ErrNoSpeech mentioning %q", err, lv, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "didn't catch that") {
				t.Fatalf("message %q does not start with what the user sees", err)
			}
		})
	}
}

// TestCheckSpeechEspeak: real (synthetic) speech passes at normal and at
// quiet microphone levels, and is rejected when it is buried far below a
// usable level.
func TestCheckSpeechEspeak(t *testing.T) {
	t.Parallel()
	say := espeak(t, "Show me the largest files in my downloads folder.")
	for _, tc := range []struct {
		name   string
		gain   float32
		speech bool
	}{
		{"normal level", 1, true},
		{"quiet microphone (-20 dB)", 0.1, true},
		{"far below any voice (-60 dB)", 0.001, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lv, err := CheckSpeech(scaled(say, tc.gain))
			if tc.speech && err != nil {
				t.Fatalf("rejected speech: %v (%+v)", err, lv)
			}
			if !tc.speech && !errors.Is(err, ErrNoSpeech) {
				t.Fatalf("accepted: %+v", lv)
			}
			if tc.speech && lv.NearSilent() {
				t.Fatalf("speech counted as near silent: %+v", lv)
			}
		})
	}
	// A short one-word answer with the silence a push-to-talk key adds.
	yes := espeak(t, "yes")
	padded := append(append(make([]float32, 3200), yes.Samples...), make([]float32, 4800)...)
	if _, err := CheckSpeech(Audio{Samples: padded, SampleRate: WhisperRate}); err != nil {
		t.Fatalf("a one-word answer was rejected: %v", err)
	}
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	a48, err := Resample(Audio{Samples: syllables(rng, 1, 0.2), SampleRate: WhisperRate}, 48000)
	if err != nil {
		t.Fatal(err)
	}
	got, lv, err := Prepare(a48)
	if err != nil || got.SampleRate != WhisperRate || lv.Voiced == 0 {
		t.Fatalf("Prepare = %d Hz, %+v, %v", got.SampleRate, lv, err)
	}
	if _, _, err := Prepare(Audio{Samples: make([]float32, 48000), SampleRate: 48000}); !errors.Is(err, ErrNoSpeech) {
		t.Fatalf("silence: %v, want ErrNoSpeech", err)
	}
}

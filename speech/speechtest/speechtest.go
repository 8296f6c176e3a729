// Package speechtest makes sounds for testing voice input: room silence,
// music, typing on a keyboard (all generated here, deterministic for a
// seed) and speech, read by espeak-ng. The three non-speech sounds are what
// a push-to-talk request must be refused on. Tests import it; nothing else.
package speechtest

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

const rate = speech.WhisperRate

func samples(d time.Duration) int { return int(d.Seconds() * rate) }

// Silence is a quiet room: a faint noise floor near -60 dBFS.
func Silence(seed uint64, d time.Duration) speech.Audio {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, samples(d))
	for i := range out {
		out[i] = float32(rng.NormFloat64() * 0.001)
	}
	return speech.Audio{Samples: out, SampleRate: rate}
}

// Music is a melody of plucked notes with harmonics over a bass line and a
// soft drum on the beat, at about -15 dBFS: loud, and coming and going like
// speech does, so a loudness check lets it through.
func Music(seed uint64, d time.Duration) speech.Audio {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]float32, samples(d))
	scale := []float64{0, 2, 4, 5, 7, 9, 11, 12}
	const beat = 0.25 // seconds per note
	note := func(start int, hz, amp, decay float64) {
		for i := start; i < len(out) && i < start+samples(time.Duration(beat*2*float64(time.Second))); i++ {
			t := float64(i-start) / rate
			env := amp * math.Exp(-t*decay)
			v := 0.0
			for h := 1.0; h <= 4; h++ {
				v += math.Sin(2*math.Pi*hz*h*t) / (h * h)
			}
			out[i] += float32(env * v)
		}
	}
	for k := 0; float64(k)*beat < d.Seconds(); k++ {
		start := samples(time.Duration(float64(k) * beat * float64(time.Second)))
		step := scale[rng.IntN(len(scale))]
		note(start, 440*math.Pow(2, step/12), 0.12, 4)
		if k%4 == 0 {
			note(start, 110*math.Pow(2, scale[rng.IntN(4)]/12), 0.15, 1.5)
		}
		// A drum: a short burst of noise, falling fast.
		for i := start; i < len(out) && i < start+samples(60*time.Millisecond); i++ {
			t := float64(i-start) / rate
			out[i] += float32(rng.NormFloat64() * 0.08 * math.Exp(-t*60))
		}
	}
	return speech.Audio{Samples: out, SampleRate: rate}
}

// Typing is keys struck every 80 to 250 ms: a sharp click ringing for a
// few milliseconds at the key's own resonance, over a quiet room.
func Typing(seed uint64, d time.Duration) speech.Audio {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := Silence(seed, d).Samples
	for at := samples(100 * time.Millisecond); at < len(out); at += samples(time.Duration(80+rng.IntN(170)) * time.Millisecond) {
		hz := 1500 + rng.Float64()*2500
		amp := 0.2 + rng.Float64()*0.3
		for i := at; i < len(out) && i < at+samples(25*time.Millisecond); i++ {
			t := float64(i-at) / rate
			env := amp * math.Exp(-t*250)
			out[i] += float32(env * (0.6*math.Sin(2*math.Pi*hz*t) + 0.4*rng.NormFloat64()))
		}
	}
	return speech.Audio{Samples: out, SampleRate: rate}
}

// Espeak reads text with espeak-ng and returns it at 16 kHz. It skips the
// test when espeak-ng is missing, except in CI, where .ci/run installs it.
func Espeak(tb testing.TB, text string) speech.Audio {
	tb.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("espeak-ng is missing in CI; .ci/run installs it")
		}
		tb.Skip("espeak-ng is not installed (apt install espeak-ng)")
	}
	path := filepath.Join(tb.TempDir(), "say.wav")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "espeak-ng", "-s", "150", "-w", path, text).CombinedOutput(); err != nil {
		tb.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	a, err := speech.ReadWAVFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	a16, err := a.To16k()
	if err != nil {
		tb.Fatal(err)
	}
	return a16
}

// Padded returns a with lead of room silence before it and trail after.
func Padded(a speech.Audio, lead, trail time.Duration) speech.Audio {
	out := append([]float32(nil), Silence(7, lead).Samples...)
	out = append(out, a.Samples...)
	out = append(out, Silence(8, trail).Samples...)
	return speech.Audio{Samples: out, SampleRate: a.SampleRate}
}

// Onset and Offset are where a's loud part begins and ends: the first and
// last 10 ms frame within 30 dB of its loudest.
func Onset(a speech.Audio) time.Duration  { s, _ := span(a); return s }
func Offset(a speech.Audio) time.Duration { _, e := span(a); return e }

func span(a speech.Audio) (time.Duration, time.Duration) {
	frame := a.SampleRate / 100
	var db []float64
	peak := -200.0
	for i := 0; i+frame <= len(a.Samples); i += frame {
		var sum float64
		for _, v := range a.Samples[i : i+frame] {
			sum += float64(v) * float64(v)
		}
		d := 10 * math.Log10(sum/float64(frame)+1e-12)
		db = append(db, d)
		peak = max(peak, d)
	}
	first, last := -1, -1
	for i, d := range db {
		if d >= peak-30 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	return time.Duration(first) * 10 * time.Millisecond, time.Duration(last+1) * 10 * time.Millisecond
}

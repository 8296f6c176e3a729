package speech

import (
	"fmt"
	"math"
	"testing"
)

// chirp is a linear sine sweep from f0 to f1 Hz over dur seconds, as an
// analytic function of time, so the same sweep can be sampled at any rate.
func chirp(f0, f1, dur, amp float64) func(t float64) float64 {
	k := (f1 - f0) / dur
	return func(t float64) float64 {
		return amp * math.Sin(2*math.Pi*(f0*t+0.5*k*t*t))
	}
}

func tone(f, amp float64) func(t float64) float64 {
	return func(t float64) float64 { return amp * math.Sin(2*math.Pi*f*t) }
}

func sample(f func(float64) float64, rate int, dur float64) []float32 {
	out := make([]float32, int(dur*float64(rate)))
	for i := range out {
		out[i] = float32(f(float64(i) / float64(rate)))
	}
	return out
}

// edge is how much of each end the comparisons leave out: the filter sees
// silence beyond the ends, which is right for a recording but not part of
// the analytic signal.
const edge = 0.05

// snrDB compares got with want (both at 16 kHz) away from the ends.
func snrDB(got, want []float32) float64 {
	skip := int(edge * WhisperRate)
	var sig, noise float64
	for i := skip; i < len(want)-skip && i < len(got); i++ {
		d := float64(got[i]) - float64(want[i])
		sig += float64(want[i]) * float64(want[i])
		noise += d * d
	}
	return 10 * math.Log10(sig/noise)
}

func rmsDB(x []float32) float64 {
	skip := int(edge * WhisperRate)
	var s float64
	for _, v := range x[skip : len(x)-skip] {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(len(x)-2*skip)+1e-30)
}

// TestResampleSweepSNR: a sweep across the passband, resampled to 16 kHz,
// matches the same sweep computed directly at 16 kHz to within 60 dB. Upward
// conversions sweep only up to 90% of their lower Nyquist frequency.
func TestResampleSweepSNR(t *testing.T) {
	t.Parallel()
	for _, in := range []int{48000, 44100, 96000, 32000, 22050, 24000, 11025, 8000, 44101} {
		t.Run(fmt.Sprint(in), func(t *testing.T) {
			t.Parallel()
			top := passbandFraction * 0.5 * float64(min(in, WhisperRate))
			sweep := chirp(20, top, 2, 0.9)
			got, err := Resample(Audio{Samples: sample(sweep, in, 2), SampleRate: in}, WhisperRate)
			if err != nil {
				t.Fatal(err)
			}
			want := sample(sweep, WhisperRate, 2)
			if d := len(got.Samples) - len(want); d < 0 || d > 1 {
				t.Fatalf("%d samples out, want %d", len(got.Samples), len(want))
			}
			snr := snrDB(got.Samples, want)
			t.Logf("%d Hz → 16 kHz, sweep 20 Hz–%.0f Hz: SNR %.1f dB", in, top, snr)
			if snr < 60 {
				t.Fatalf("SNR %.1f dB, want ≥ 60", snr)
			}
		})
	}
}

// TestResampleAliasing: tones above the 8 kHz output Nyquist frequency would
// fold back into the band as false tones; they must come out at least 60 dB
// down.
func TestResampleAliasing(t *testing.T) {
	t.Parallel()
	for _, in := range []int{48000, 44100, 96000} {
		for _, f := range []float64{8000, 8100, 8500, 9000, 10000, 12000, 15000, 20000} {
			if f >= float64(in)/2 {
				continue
			}
			t.Run(fmt.Sprintf("%d Hz in, %.0f Hz tone", in, f), func(t *testing.T) {
				t.Parallel()
				x := sample(tone(f, 0.9), in, 1)
				got, err := Resample(Audio{Samples: x, SampleRate: in}, WhisperRate)
				if err != nil {
					t.Fatal(err)
				}
				att := rmsDB(x) - rmsDB(got.Samples)
				t.Logf("%.0f Hz tone at %d Hz: %.1f dB down", f, in, att)
				if att < 60 {
					t.Fatalf("a %.0f Hz tone is only %.1f dB down after resampling, want ≥ 60", f, att)
				}
			})
		}
	}
}

func TestResampleEdges(t *testing.T) {
	t.Parallel()
	t.Run("same rate is returned as is", func(t *testing.T) {
		a := Audio{Samples: []float32{0.1, 0.2}, SampleRate: WhisperRate}
		got, err := Resample(a, WhisperRate)
		if err != nil || &got.Samples[0] != &a.Samples[0] {
			t.Fatalf("got %v, %v; want the input unchanged", got, err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		got, err := Resample(Audio{SampleRate: 48000}, WhisperRate)
		if err != nil || len(got.Samples) != 0 || got.SampleRate != WhisperRate {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("DC stays DC", func(t *testing.T) {
		x := make([]float32, 44100)
		for i := range x {
			x[i] = 0.5
		}
		got, err := Resample(Audio{Samples: x, SampleRate: 44100}, WhisperRate)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got.Samples[1000 : len(got.Samples)-1000] {
			if math.Abs(float64(v)-0.5) > 1e-5 {
				t.Fatalf("sample %d is %v, want 0.5", i+1000, v)
			}
		}
	})
	for _, tc := range []struct {
		name string
		a    Audio
		rate int
	}{
		{"no input rate", Audio{Samples: []float32{0}}, WhisperRate},
		{"no output rate", Audio{Samples: []float32{0}, SampleRate: 8000}, 0},
		{"absurd rate", Audio{Samples: []float32{0}, SampleRate: 10}, WhisperRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Resample(tc.a, tc.rate); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// linearResample is the baseline the benchmark compares with: linear
// interpolation, as naive resamplers do (cheap, and it aliases).
func linearResample(in []float32, inRate, outRate int) []float32 {
	n := int(int64(len(in)) * int64(outRate) / int64(inRate))
	out := make([]float32, n)
	step := float64(inRate) / float64(outRate)
	for i := range out {
		pos := float64(i) * step
		j := int(pos)
		f := float32(pos - float64(j))
		if j+1 < len(in) {
			out[i] = in[j] + f*(in[j+1]-in[j])
		} else {
			out[i] = in[j]
		}
	}
	return out
}

// BenchmarkResample converts 10 s of 48 kHz audio to 16 kHz; the linear
// baseline runs on the same input so the two can be compared as a ratio.
func BenchmarkResample(b *testing.B) {
	x := sample(chirp(20, 7000, 10, 0.5), 48000, 10)
	b.Run("kaiser-polyphase", func(b *testing.B) {
		r, err := NewResampler(48000, WhisperRate)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			r.Process(x)
		}
		b.ReportMetric(macsPerOutput(r), "MACs/sample")
	})
	// The same work on one goroutine: what it costs when the other cores
	// are busy.
	b.Run("kaiser-polyphase-one-core", func(b *testing.B) {
		r, err := NewResampler(48000, WhisperRate)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			r.process(x, 1)
		}
	})
	b.Run("baseline-linear", func(b *testing.B) {
		for b.Loop() {
			linearResample(x, 48000, WhisperRate)
		}
	})
	b.Run("44.1k-kaiser-polyphase", func(b *testing.B) {
		y := sample(chirp(20, 7000, 10, 0.5), 44100, 10)
		r, _ := NewResampler(44100, WhisperRate)
		for b.Loop() {
			r.Process(y)
		}
	})
}

// BenchmarkNewResampler is the one-off cost of designing the tables.
func BenchmarkNewResampler(b *testing.B) {
	for b.Loop() {
		if _, err := NewResampler(44100, WhisperRate); err != nil {
			b.Fatal(err)
		}
	}
}

// macsPerOutput is the multiplies spent per final output sample, over all
// stages.
func macsPerOutput(r *Resampler) float64 {
	var macs float64
	for st := r; st != nil; st = st.pre {
		macs += float64(st.multiplies()) * float64(st.outRate) / float64(r.outRate)
	}
	return macs
}

// whiteNoise is reproducible white noise in [-0.9, 0.9].
func whiteNoise(n int) []float32 {
	x := make([]float32, n)
	s := uint32(12345)
	for i := range x {
		s = s*1664525 + 1013904223
		x[i] = 0.9 * (float32(s>>8)/(1<<23) - 1)
	}
	return x
}

// TestResampleFoldedStages: a stage that sums the mirror-image samples first
// gives what its full coefficient table gives, at every output.
func TestResampleFoldedStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, out int }{{24000, 16000}, {32000, 16000}, {16000, 8000}, {8000, 16000}} {
		t.Run(fmt.Sprintf("%d to %d", tc.in, tc.out), func(t *testing.T) {
			t.Parallel()
			r, err := NewResampler(tc.in, tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if r.pre != nil || r.fold == nil {
				t.Fatalf("%d→%d Hz is not a single folded stage", tc.in, tc.out)
			}
			full := *r
			full.fold, full.span = nil, nil
			x := whiteNoise(3001)
			got, want := r.process(x, 1), full.process(x, 1)
			if len(got) != len(want) {
				t.Fatalf("%d samples, want %d", len(got), len(want))
			}
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6 {
					t.Fatalf("sample %d: %v, the full table gives %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestResampleHalfband: a halving stage equals the plain convolution of its
// impulse response (the centre and the odd taps on both sides) with the
// input, silence beyond the ends, every second sample kept.
func TestResampleHalfband(t *testing.T) {
	t.Parallel()
	r, err := NewResampler(48000, WhisperRate)
	if err != nil {
		t.Fatal(err)
	}
	hb := r.pre
	if hb == nil || !hb.halfband || hb.pre != nil {
		t.Fatal("48→16 kHz does not start with one half-band stage")
	}
	// h[d] for d = 0, 1, 2, …: zero at even distances but the centre.
	k := len(hb.fold)
	h := make([]float64, 2*k)
	h[0] = float64(hb.centre)
	var gain float64 = h[0]
	for j, c := range hb.fold {
		h[2*(k-1-j)+1] = float64(c)
		gain += 2 * float64(c)
	}
	if math.Abs(gain-1) > 1e-6 {
		t.Errorf("DC gain %v, want 1", gain)
	}
	for _, n := range []int{1, 2, 7, 8, 9, 2*k + 3, 1001} {
		t.Run(fmt.Sprint(n, " samples"), func(t *testing.T) {
			x := whiteNoise(n)
			at := func(i int) float64 {
				if i < 0 || i >= len(x) {
					return 0
				}
				return float64(x[i])
			}
			got := hb.process(x, 1)
			if len(got) != (n+1)/2 {
				t.Fatalf("%d samples, want %d", len(got), (n+1)/2)
			}
			for m := range got {
				want := h[0] * at(2*m)
				for d := 1; d < len(h); d++ {
					want += h[d] * (at(2*m-d) + at(2*m+d))
				}
				if math.Abs(float64(got[m])-want) > 1e-6 {
					t.Fatalf("sample %d: %v, want %v", m, got[m], want)
				}
			}
		})
	}
}

// TestResampleParallel: long inputs shared among goroutines come out
// bit for bit as on one.
func TestResampleParallel(t *testing.T) {
	t.Parallel()
	for _, in := range []int{48000, 44100, 96000, 44101, 8000} {
		t.Run(fmt.Sprint(in), func(t *testing.T) {
			t.Parallel()
			r, err := NewResampler(in, WhisperRate)
			if err != nil {
				t.Fatal(err)
			}
			x := whiteNoise(3*in + 17)
			one := r.process(x, 1)
			for _, workers := range []int{2, 3} {
				got := r.process(x, workers)
				if len(got) != len(one) {
					t.Fatalf("%d workers: %d samples, one gives %d", workers, len(got), len(one))
				}
				for i := range one {
					if got[i] != one[i] {
						t.Fatalf("%d workers: sample %d is %v, one gives %v", workers, i, got[i], one[i])
					}
				}
			}
		})
	}
}

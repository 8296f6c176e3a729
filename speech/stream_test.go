package speech

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// A tone language for testing the stream without a model: each word is a
// tone at its own pitch, 250 to 450 ms long, with a 60 ms gap inside (the
// way a plosive splits a spoken word), and words are separated by pauses.
// toneTranscriber "hears" it exactly, so a word cut in two by a chunk
// boundary comes out as two words and a lost one as none.

var toneWords = []struct {
	name string
	hz   float64
}{
	{"list", 300}, {"files", 420}, {"in", 540}, {"my", 660}, {"home", 780},
	{"folder", 900}, {"sorted", 1020}, {"by", 1140}, {"size", 1260}, {"please", 1380},
}

// toneUtterance renders words (indexes into toneWords) with the given
// pauses after each, over a faint noise floor, at 16 kHz.
func toneUtterance(rng *rand.Rand, words []int, pause func(i int) time.Duration) Audio {
	var out []float32
	floor := func(d time.Duration) {
		for range int(d.Seconds() * WhisperRate) {
			out = append(out, float32(rng.NormFloat64()*0.0005))
		}
	}
	tone := func(hz float64, d time.Duration) {
		n := int(d.Seconds() * WhisperRate)
		for i := range n {
			t := float64(i) / WhisperRate
			env := math.Min(1, math.Min(float64(i), float64(n-i))/160) // 10 ms ramps
			out = append(out, float32(0.3*env*math.Sin(2*math.Pi*hz*t)+rng.NormFloat64()*0.0005))
		}
	}
	floor(200 * time.Millisecond)
	for i, w := range words {
		d := time.Duration(250+rng.IntN(200)) * time.Millisecond
		tone(toneWords[w].hz, d/2)
		floor(60 * time.Millisecond)
		tone(toneWords[w].hz, d/2)
		floor(pause(i))
	}
	return Audio{Samples: out, SampleRate: WhisperRate}
}

// toneTranscribe names the words in a: voiced runs closer than 150 ms are
// one word, and its pitch comes from the zero-crossing rate.
func toneTranscribe(a Audio) string {
	frame := WhisperRate / 50
	var words []string
	var cur []float32
	gap := 0
	flush := func() {
		if len(cur) < frame*3 {
			cur = cur[:0]
			return
		}
		crossings := 0
		for i := 1; i < len(cur); i++ {
			if (cur[i-1] < 0) != (cur[i] < 0) {
				crossings++
			}
		}
		hz := float64(crossings) / 2 / (float64(len(cur)) / WhisperRate)
		best := 0
		for i, w := range toneWords {
			if math.Abs(w.hz-hz) < math.Abs(toneWords[best].hz-hz) {
				best = i
			}
		}
		words = append(words, toneWords[best].name)
		cur = cur[:0]
	}
	for start := 0; start+frame <= len(a.Samples); start += frame {
		f := a.Samples[start : start+frame]
		var sum float64
		for _, s := range f {
			sum += float64(s) * float64(s)
		}
		if dbfs(sum/float64(frame)) >= DefaultGate.SpeechDBFS {
			cur = append(cur, f...)
			gap = 0
			continue
		}
		gap++
		if gap >= 8 && len(cur) > 0 {
			flush()
		}
	}
	flush()
	return strings.Join(words, " ")
}

func toneChunk(ctx context.Context, a Audio) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	text := toneTranscribe(a)
	if text == "" {
		return "", ErrNoSpeech
	}
	return text, nil
}

// feed writes a to s in 20 ms buffers, as a microphone delivers them,
// without waiting: the stream must keep up by itself.
func feed(s *Stream, a Audio) {
	const buf = WhisperRate / 50
	for i := 0; i < len(a.Samples); i += buf {
		s.Write(Audio{Samples: a.Samples[i:min(i+buf, len(a.Samples))], SampleRate: a.SampleRate})
	}
}

func sentence(rng *rand.Rand, n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = rng.IntN(len(toneWords))
	}
	return w
}

func TestCutterCutsOnlyInPauses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := sentence(rng, 24)
	// Pauses between words vary: mostly short (inside a phrase, shorter
	// than Pause), every fourth one a breath.
	a := toneUtterance(rng, words, func(i int) time.Duration {
		if i%4 == 3 {
			return 500 * time.Millisecond
		}
		return 120 * time.Millisecond
	})
	o := StreamOptions{}.withDefaults()
	c := NewCutter(WhisperRate, o)
	var cuts []int
	for i := 0; i < len(a.Samples); i += 320 {
		cuts = append(cuts, c.Write(a.Samples[i:min(i+320, len(a.Samples))])...)
	}
	if len(cuts) < 2 {
		t.Fatalf("%d cuts in %s of speech with breaths every four words; want several", len(cuts), a.Duration())
	}
	prev := 0
	for _, pos := range cuts {
		if pos <= prev {
			t.Fatalf("cuts not increasing: %v", cuts)
		}
		if d := time.Duration(pos-prev) * time.Second / WhisperRate; d < o.MinChunk-frameDur {
			t.Errorf("chunk of %s, shorter than MinChunk %s", d, o.MinChunk)
		}
		// 100 ms either side of the cut must be quiet: it is in a pause.
		lo, hi := max(0, pos-WhisperRate/10), min(len(a.Samples), pos+WhisperRate/10)
		if lv := Measure(Audio{Samples: a.Samples[lo:hi], SampleRate: WhisperRate}); lv.Voiced > 0 {
			t.Errorf("cut at %.2f s is within 100 ms of speech (%s voiced)", float64(pos)/WhisperRate, lv.Voiced)
		}
		prev = pos
	}
}

func TestCutterWithoutPausesCutsByMaxChunk(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	a := toneUtterance(rng, sentence(rng, 60), func(int) time.Duration { return 100 * time.Millisecond })
	o := StreamOptions{MaxChunk: 5 * time.Second}
	c := NewCutter(WhisperRate, o)
	cuts := c.Write(a.Samples)
	if want := int(a.Duration() / o.MaxChunk); len(cuts) < want-1 || len(cuts) > want+1 {
		t.Fatalf("%d cuts in %s without a pause at MaxChunk %s; want about %d", len(cuts), a.Duration(), o.MaxChunk, want)
	}
	prev := 0
	for _, pos := range cuts {
		if d := time.Duration(pos-prev) * time.Second / WhisperRate; d > o.MaxChunk {
			t.Errorf("chunk of %s, longer than MaxChunk", d)
		}
		prev = pos
	}
}

func TestCutterDropsLeadingSilence(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	c := NewCutter(WhisperRate, StreamOptions{})
	cuts := c.Write(noise(rng, 5*WhisperRate, 0.0005))
	if len(cuts) == 0 {
		t.Fatal("5 s of silence was kept as one growing chunk; want it cut away")
	}
}

func TestStreamMatchesOnePass(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 99))
			words := sentence(rng, 8+rng.IntN(30))
			a := toneUtterance(rng, words, func(int) time.Duration {
				return time.Duration(200+rng.IntN(600)) * time.Millisecond
			})
			want := toneTranscribe(a)
			if got := len(strings.Fields(want)); got != len(words) {
				t.Fatalf("the test's own transcriber heard %d of %d words", got, len(words))
			}
			var partials []string
			var mu sync.Mutex
			s := NewStream(context.Background(), StreamOptions{Chunk: toneChunk, Partial: func(p string) {
				mu.Lock()
				partials = append(partials, p)
				mu.Unlock()
			}})
			feed(s, a)
			got, err := s.Finish(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("streamed %q\none pass %q", got, want)
			}
			mu.Lock()
			defer mu.Unlock()
			for i, p := range partials {
				if !strings.HasPrefix(want, p) {
					t.Errorf("partial %d %q is not a prefix of the final text", i, p)
				}
				if i > 0 && len(p) <= len(partials[i-1]) {
					t.Errorf("partial %d %q does not grow on %q", i, p, partials[i-1])
				}
			}
			if a.Duration() > 6*time.Second && len(partials) == 0 {
				t.Errorf("no partial transcript during %s of speech", a.Duration())
			}
		})
	}
}

// At key-up only the tail is left: the chunks before it were transcribed
// while the audio was still coming in.
func TestStreamTranscribesWhileRecording(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	a := toneUtterance(rng, sentence(rng, 20), func(i int) time.Duration {
		return time.Duration(150+350*(i%2)) * time.Millisecond
	})
	var mu sync.Mutex
	var seen []time.Duration
	s := NewStream(context.Background(), StreamOptions{Chunk: func(ctx context.Context, c Audio) (string, error) {
		mu.Lock()
		seen = append(seen, c.Duration())
		mu.Unlock()
		return toneChunk(ctx, c)
	}})
	feed(s, a)
	// Give the worker the time a recording would: chunks complete during
	// capture, long before key-up.
	deadline := time.Now().Add(5 * time.Second)
	for s.Chunks() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	before := s.Chunks()
	if _, err := s.Finish(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if before == 0 {
		t.Fatal("no chunk was transcribed before Finish")
	}
	var sum time.Duration
	for _, d := range seen {
		sum += d
	}
	tail := seen[len(seen)-1]
	if tail > a.Duration()/2 {
		t.Errorf("the tail left for key-up is %s of %s", tail, a.Duration())
	}
	// Every sample was transcribed once: no chunk overlaps another, and
	// the silence chunks skipped without the transcriber are the rest.
	if sum > a.Duration()+frameDur {
		t.Errorf("chunks add up to %s, more than the %s recorded", sum, a.Duration())
	}
}

func TestStreamRefusesSilence(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	a := Audio{Samples: noise(rng, 4*WhisperRate, 0.0005), SampleRate: WhisperRate}
	called := false
	s := NewStream(context.Background(), StreamOptions{Chunk: func(ctx context.Context, a Audio) (string, error) {
		called = true
		return "Thank you.", nil
	}})
	feed(s, a)
	_, err := s.Finish(context.Background(), a)
	if !errors.Is(err, ErrNoSpeech) {
		t.Fatalf("silence gave %v; want ErrNoSpeech", err)
	}
	if called {
		t.Error("silence reached the transcriber")
	}
}

func TestStreamFallsBackToWholeOnChunkError(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	a := toneUtterance(rng, sentence(rng, 16), func(int) time.Duration { return 500 * time.Millisecond })
	boom := errors.New("decoder failed")
	var wholeCalls int
	s := NewStream(context.Background(), StreamOptions{
		Chunk: func(context.Context, Audio) (string, error) { return "", boom },
		Whole: func(ctx context.Context, w Audio) (string, error) {
			wholeCalls++
			if w.Duration() != a.Duration() {
				t.Errorf("whole got %s of %s", w.Duration(), a.Duration())
			}
			return toneChunk(ctx, w)
		},
	})
	feed(s, a)
	got, err := s.Finish(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if want := toneTranscribe(a); got != want || wholeCalls != 1 {
		t.Fatalf("got %q after %d whole passes; want %q after one", got, wholeCalls, want)
	}

	s = NewStream(context.Background(), StreamOptions{Chunk: func(context.Context, Audio) (string, error) { return "", boom }})
	feed(s, a)
	if _, err := s.Finish(context.Background(), a); !errors.Is(err, boom) {
		t.Fatalf("without Whole the chunk's error should come back; got %v", err)
	}
}

func TestStreamCancel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	a := toneUtterance(rng, sentence(rng, 12), func(int) time.Duration { return 400 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 16)
	s := NewStream(context.Background(), StreamOptions{Chunk: func(ctx context.Context, c Audio) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}})
	feed(s, a)
	<-started
	cancel()
	if _, err := s.Finish(ctx, a); !errors.Is(err, context.Canceled) {
		t.Fatalf("Finish after cancel: %v; want context.Canceled", err)
	}
}

// toneWordsChunk gives each word of a tone transcript a probability of its
// own (the first tone word is the unsure one), as whisper's tokens would.
func toneWordsChunk(ctx context.Context, a Audio) (string, []Word, error) {
	text, err := toneChunk(ctx, a)
	if err != nil {
		return "", nil, err
	}
	var ws []Word
	for _, f := range strings.Fields(text) {
		p := 0.95
		if f == toneWords[0].name {
			p = 0.4
		}
		ws = append(ws, Word{Text: f, P: p})
	}
	return text, ws, nil
}

// TestStreamWords: FinishWords joins the chunks' word probabilities in
// the order of the text, one per word, each word keeping its own; a piece
// without probabilities leaves the whole transcript without them, and the
// one-pass fallback gives its own.
func TestStreamWords(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	a := toneUtterance(rng, sentence(rng, 24), func(i int) time.Duration {
		return time.Duration(150+400*(i%3/2)) * time.Millisecond
	})
	want, wantWords, _ := toneWordsChunk(context.Background(), a)

	s := NewStream(context.Background(), StreamOptions{ChunkWords: toneWordsChunk})
	feed(s, a)
	s.Wait()
	chunks := s.Chunks()
	text, words, err := s.FinishWords(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if chunks == 0 {
		t.Fatal("no chunk before Finish: the test streams nothing")
	}
	if text != want {
		t.Fatalf("streamed %q\none pass %q", text, want)
	}
	if len(words) != len(wantWords) {
		t.Fatalf("%d words for %d in the text", len(words), len(wantWords))
	}
	for i, w := range words {
		if w != wantWords[i] {
			t.Errorf("word %d = %+v, want %+v", i, w, wantWords[i])
		}
	}

	calls := 0
	s = NewStream(context.Background(), StreamOptions{ChunkWords: func(ctx context.Context, c Audio) (string, []Word, error) {
		text, ws, err := toneWordsChunk(ctx, c)
		if calls++; calls == 2 {
			ws = nil // this piece has no probabilities
		}
		return text, ws, err
	}})
	feed(s, a)
	if text, words, err := s.FinishWords(context.Background(), a); err != nil || text != want || words != nil {
		t.Fatalf("a piece without probabilities: %q, %d words, %v; want the text and no words", text, len(words), err)
	}

	boom := errors.New("decoder failed")
	s = NewStream(context.Background(), StreamOptions{
		ChunkWords: func(context.Context, Audio) (string, []Word, error) { return "", nil, boom },
		WholeWords: toneWordsChunk,
	})
	feed(s, a)
	if text, words, err := s.FinishWords(context.Background(), a); err != nil || text != want || len(words) != len(wantWords) {
		t.Fatalf("the fallback: %q, %d words, %v", text, len(words), err)
	}
}

//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bw "github.com/ggerganov/whisper.cpp/bindings/go"
	"github.com/hark-sh/hark/speech"
)

// These tests need a whisper model; the weight-less test model of the
// whisper.cpp project is enough (it runs the full compute of tiny.en but
// produces no meaningful text, so no test here checks the words).
func testModel(t testing.TB) string {
	t.Helper()
	path := os.Getenv("HARK_WHISPER_TEST_MODEL")
	if path == "" {
		t.Skip("HARK_WHISPER_TEST_MODEL is not set: point it at a ggml whisper model " +
			"(e.g. models/for-tests-ggml-tiny.en.bin of a whisper.cpp checkout) to run the whisper.cpp tests")
	}
	return path
}

var jfk struct {
	once  sync.Once
	audio speech.Audio
	err   error
}

// jfkAudio is the speech sample shipped with the bindings module (11 s,
// 16 kHz mono), or the WAV file HARK_WHISPER_TEST_AUDIO names.
func jfkAudio(t testing.TB) speech.Audio {
	t.Helper()
	jfk.once.Do(func() {
		path := os.Getenv("HARK_WHISPER_TEST_AUDIO")
		if path == "" {
			out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ggerganov/whisper.cpp/bindings/go").Output()
			if err != nil {
				jfk.err = errors.New("cannot locate the bindings module (go list -m): " + err.Error())
				return
			}
			path = filepath.Join(strings.TrimSpace(string(out)), "samples", "jfk.wav")
		}
		jfk.audio, jfk.err = speech.ReadWAVFile(path)
	})
	if jfk.err != nil {
		t.Fatalf("reading the JFK sample: %v", jfk.err)
	}
	return jfk.audio
}

func newTranscriber(t testing.TB, o Options) *Transcriber {
	t.Helper()
	if o.ModelPath == "" {
		o.ModelPath = testModel(t)
	}
	tr, err := New(o)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// transcribe calls Transcribe with a bound on the wait, so a hang fails the
// test instead of stalling the suite.
func transcribe(t *testing.T, ctx context.Context, tr *Transcriber, a speech.Audio) (string, error) {
	t.Helper()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := tr.Transcribe(ctx, a)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-time.After(2 * time.Minute):
		t.Fatal("Transcribe did not return within 2 minutes")
		return "", nil
	}
}

// okOrNoWords accepts what the weight-less test model can produce: some text,
// or nothing but non-speech, which Transcribe reports as ErrNoSpeech with
// whisper's own reason. Any other error fails.
func okOrNoWords(t *testing.T, text string, err error) {
	t.Helper()
	if err != nil && !(errors.Is(err, speech.ErrNoSpeech) && strings.Contains(err.Error(), "whisper heard no words")) {
		t.Fatalf("Transcribe() error = %v", err)
	}
	t.Logf("transcript: %q (err %v)", text, err)
}

func TestTranscribeJFK(t *testing.T) {
	tr := newTranscriber(t, Options{InitialPrompt: "ls, git, Homebrew"})
	if err := tr.Warm(context.Background()); err != nil {
		t.Fatalf("Warm() error = %v", err)
	}
	loaded := tr.model
	a := jfkAudio(t)
	var runs atomic.Int32
	tr.encoderBegin = func() { runs.Add(1) }
	text, err := transcribe(t, context.Background(), tr, a)
	okOrNoWords(t, text, err)
	if runs.Load() != 1 {
		t.Errorf("whisper.cpp began %d encoder passes for 11 s of audio, want 1", runs.Load())
	}
	// The second request reuses the loaded model.
	text2, err2 := transcribe(t, context.Background(), tr, a)
	okOrNoWords(t, text2, err2)
	if tr.model != loaded {
		t.Error("the model was loaded again for the second transcription")
	}
	if text != text2 {
		t.Errorf("the same audio gave %q, then %q; greedy decoding should repeat itself", text, text2)
	}
}

func TestTranscribeCancelledBeforeStart(t *testing.T) {
	tr := newTranscriber(t, Options{})
	var runs atomic.Int32
	tr.encoderBegin = func() { runs.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := transcribe(t, ctx, tr, jfkAudio(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Transcribe(cancelled ctx) error = %v, want context.Canceled", err)
	}
	if runs.Load() != 0 {
		t.Errorf("whisper.cpp began %d encoder passes on a cancelled context, want 0", runs.Load())
	}
	if tr.model != nil {
		t.Error("a cancelled request loaded the model")
	}
}

// Cancelling while the first 30 s window is being encoded must stop
// whisper.cpp inside that window (through the abort callback), not when the
// next window would begin: with 33 s of audio a second encoder pass would
// show that the abort was only noticed at the encoder-begin callback.
func TestTranscribeCancelMidRun(t *testing.T) {
	tr := newTranscriber(t, Options{})
	one := jfkAudio(t)
	long := speech.Audio{SampleRate: one.SampleRate}
	for range 3 {
		long.Samples = append(long.Samples, one.Samples...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	tr.encoderBegin = func() {
		runs.Add(1)
		cancel()
	}
	_, err := transcribe(t, ctx, tr, long)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Transcribe() error = %v, want context.Canceled", err)
	}
	if runs.Load() != 1 {
		t.Errorf("whisper.cpp began %d encoder passes, want 1: the cancel was not seen inside the first window", runs.Load())
	}
	// The transcriber stays usable after a cancel.
	text, err := transcribe(t, context.Background(), tr, one)
	okOrNoWords(t, text, err)
}

func TestTranscribeCancelWhileWaiting(t *testing.T) {
	tr := newTranscriber(t, Options{})
	a := jfkAudio(t)
	// Hold the one-at-a-time slot so the request has to wait for it.
	busy <- struct{}{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tr.Transcribe(ctx, a)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Transcribe() error = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("a waiting Transcribe ignored its cancelled context")
	}
	release()
}

func TestTranscribeResamples(t *testing.T) {
	tr := newTranscriber(t, Options{Threads: 2})
	a48, err := speech.Resample(jfkAudio(t), 48000)
	if err != nil {
		t.Fatal(err)
	}
	text, err := transcribe(t, context.Background(), tr, a48)
	okOrNoWords(t, text, err)
}

func TestTranscribeNoSpeech(t *testing.T) {
	tr := newTranscriber(t, Options{})
	var runs atomic.Int32
	tr.encoderBegin = func() { runs.Add(1) }
	tests := []struct {
		name  string
		audio speech.Audio
	}{
		{name: "key tap", audio: speech.Audio{Samples: make([]float32, 1600), SampleRate: 16000}},
		{name: "two seconds of silence", audio: speech.Audio{Samples: make([]float32, 32000), SampleRate: 16000}},
		{name: "empty", audio: speech.Audio{SampleRate: 16000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := transcribe(t, context.Background(), tr, tc.audio); !errors.Is(err, speech.ErrNoSpeech) {
				t.Fatalf("Transcribe() error = %v, want speech.ErrNoSpeech", err)
			}
		})
	}
	if runs.Load() != 0 {
		t.Errorf("silence reached whisper.cpp (%d encoder passes)", runs.Load())
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "ggml-base.en.bin")
	if err := os.WriteFile(garbage, []byte("this is not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr []string
	}{
		{name: "missing file", opts: Options{ModelPath: filepath.Join(dir, "ggml-small.bin")}, wantErr: []string{"does not exist", "hark models download small"}},
		{name: "not a model", opts: Options{ModelPath: garbage}, wantErr: []string{"not a ggml whisper model", "hark models download base.en"}},
		{name: "english model asked for german", opts: Options{ModelPath: testModel(t), Language: "de"}, wantErr: []string{"only knows English", `"de"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscriber(t, tc.opts)
			err := tr.Warm(context.Background())
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Warm() error = %v, want one containing %q", err, want)
				}
			}
			if tr.model != nil {
				t.Error("a failed load left a model behind")
			}
		})
	}
}

func TestCloseAbortsAndRefuses(t *testing.T) {
	tr := newTranscriber(t, Options{})
	a := jfkAudio(t)
	started := make(chan struct{})
	var once sync.Once
	tr.encoderBegin = func() { once.Do(func() { close(started) }) }
	done := make(chan error, 1)
	go func() {
		_, err := tr.Transcribe(context.Background(), a)
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the transcription never started")
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("running Transcribe() error = %v, want ErrClosed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not stop the running transcription")
	}
	if _, err := tr.Transcribe(context.Background(), a); !errors.Is(err, ErrClosed) {
		t.Errorf("Transcribe() after Close error = %v, want ErrClosed", err)
	}
	if err := tr.Warm(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Warm() after Close error = %v, want ErrClosed", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close() error = %v", err)
	}
}

// Two transcribers used at once must not crash: the bindings keep their
// callbacks in package maps, which Transcribe guards with one global slot.
func TestConcurrentTranscribers(t *testing.T) {
	a := jfkAudio(t)
	trs := []*Transcriber{newTranscriber(t, Options{Threads: 1}), newTranscriber(t, Options{Threads: 1})}
	var wg sync.WaitGroup
	errs := make([]error, len(trs))
	texts := make([]string, len(trs))
	for i, tr := range trs {
		wg.Go(func() { texts[i], errs[i] = tr.Transcribe(context.Background(), a) })
	}
	wg.Wait()
	for i := range trs {
		okOrNoWords(t, texts[i], errs[i])
	}
}

// A ggml built with GGML_BACKEND_DL (Homebrew's layout) starts with no
// backend; loading a model must first load its CPU plug-in. With built-in
// backends the CPU one is there from the start and nothing is added twice.
func TestModelLoadHasACPUBackend(t *testing.T) {
	tr := newTranscriber(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tr.Warm(ctx); err != nil {
		t.Fatalf("Warm() error = %v", err)
	}
	names := backendNames()
	cpu := 0
	for _, n := range names {
		if n == "CPU" {
			cpu++
		}
	}
	if cpu != 1 {
		t.Fatalf("registered ggml backends %q: want exactly one CPU", names)
	}
	t.Logf("ggml backends: %q", names)
}

// TestFallbackScheduleDecodesPromptOnce counts, with whisper.cpp's own
// counters, the prompt tokens it decodes for one recording whose greedy pass
// fails (the weight-less model's always does): once the prompt under Hark's
// schedule, three times under whisper.cpp's default one.
func TestFallbackScheduleDecodesPromptOnce(t *testing.T) {
	if FallbackStep != 0.5 {
		t.Fatalf("FallbackStep = %v: whisper.cpp uses the prompt below 0.5, so only a step of 0.5 keeps fallbacks and decodes it once", FallbackStep)
	}
	a := jfkAudio(t)
	// Long enough that whisper.cpp decodes it as one batch of 16 or more
	// tokens, which is what its prompt counter counts.
	const vocabulary = "ls, git, Homebrew, kubectl, terraform, Downloads, Documents, main, release-2.4"
	run := func(step *float32) (promptTokens int, c workCounters, encodes int32) {
		tr := newTranscriber(t, Options{InitialPrompt: vocabulary})
		tr.fallbackStep = step
		if err := tr.Warm(context.Background()); err != nil {
			t.Fatalf("Warm() error = %v", err)
		}
		t0, inc, n, asText := tr.schedule()
		if step == nil && (t0 != 0 || inc != 0.5) {
			t.Fatalf("params: temperature %v, step %v; want 0 and 0.5", t0, inc)
		}
		if n < 16 || asText {
			t.Fatalf("the prompt should be set once as tokens, at least 16 of them: %d tokens, also as text: %v", n, asText)
		}
		if _, err := tr.counters(); err != nil {
			t.Fatal(err)
		}
		var runs atomic.Int32
		tr.encoderBegin = func() { runs.Add(1) }
		text, err := transcribe(t, context.Background(), tr, a)
		okOrNoWords(t, text, err)
		c, err = tr.counters()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("step %v, prompt of %d tokens: %+v, %d encoder runs", inc, n, c, runs.Load())
		return n, c, runs.Load()
	}
	step := float32(0.2)
	n, def, _ := run(&step)
	if def.fallbacks == 0 {
		t.Skip("this model's greedy pass did not fail, so there is no fallback to count; the weight-less test model's always does")
	}
	if def.promptTokens < 3*n {
		t.Fatalf("whisper.cpp's own schedule decoded %d prompt tokens, want 3 × %d: the counter does not see what this test is about", def.promptTokens, n)
	}
	_, hark, encodes := run(nil)
	if hark.fallbacks == 0 {
		t.Errorf("Hark's schedule made no fallback where whisper.cpp's made %d: a failed greedy pass must still be retried", def.fallbacks)
	}
	if hark.promptTokens < n || hark.promptTokens >= 2*n {
		t.Errorf("Hark's schedule decoded %d prompt tokens over %d fallbacks, want the %d-token prompt once", hark.promptTokens, hark.fallbacks, n)
	}
	if encodes != 1 {
		t.Errorf("%d encoder runs, want 1: fallbacks reuse the encoding", encodes)
	}
}

// TestTranscribeWords: TranscribeWords gives what Transcribe gives, and the
// token probabilities it reads through the bindings are probabilities. The
// test model's text is empty or noise, so the raw tokens are read too.
func TestTranscribeWords(t *testing.T) {
	tr := newTranscriber(t, Options{})
	a := jfkAudio(t)
	plain, perr := transcribe(t, context.Background(), tr, a)
	text, words, err := tr.TranscribeWords(context.Background(), a)
	okOrNoWords(t, text, err)
	if text != plain || errors.Is(err, speech.ErrNoSpeech) != errors.Is(perr, speech.ErrNoSpeech) {
		t.Fatalf("TranscribeWords = %q, %v; Transcribe = %q, %v", text, err, plain, perr)
	}
	if err != nil && words != nil {
		t.Errorf("words %v with error %v", words, err)
	}
	for _, w := range words {
		if w.P < 0 || w.P > 1 || strings.HasPrefix(w.Text, "[_") || strings.HasPrefix(w.Text, "<|") {
			t.Errorf("word %+v: not a word with a probability", w)
		}
	}
	t.Logf("%d words: %+v", len(words), words)

	var toks []speech.Token
	segments := -1
	_, err = tr.run(context.Background(), a, false, func(m *bw.Context) {
		segments = m.Whisper_full_n_segments()
		for i := 0; i < segments; i++ {
			for j, k := 0, m.Whisper_full_n_tokens(i); j < k; j++ {
				toks = append(toks, speech.Token{Text: m.Whisper_full_get_token_text(i, j), P: float64(m.Whisper_full_get_token_p(i, j))})
			}
		}
	})
	okOrNoWords(t, "", err)
	if segments < 0 {
		t.Fatal("the token reader was never called")
	}
	if segments > 0 && len(toks) == 0 {
		t.Errorf("%d segments but no tokens", segments)
	}
	for _, tok := range toks {
		if tok.P < 0 || tok.P > 1 {
			t.Errorf("token %+v: probability out of [0, 1]", tok)
		}
	}
	// The weight-less test model decodes no segment; a real model (set
	// HARK_WHISPER_TEST_MODEL to one) checks the tokens' probabilities.
	t.Logf("%d segments, %d tokens", segments, len(toks))
}

// TestTranscribeWordsCancelled: a cancelled context ends TranscribeWords
// with ctx.Err() and no words.
func TestTranscribeWordsCancelled(t *testing.T) {
	tr := newTranscriber(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text, words, err := tr.TranscribeWords(ctx, jfkAudio(t))
	if !errors.Is(err, context.Canceled) || text != "" || words != nil {
		t.Fatalf("TranscribeWords on a cancelled context = %q, %v, %v", text, words, err)
	}
}

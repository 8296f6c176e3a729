//go:build whisper && cgo

package whisper

/*
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <whisper.h>

// flags[0] is set when the current transcription's context is cancelled,
// flags[1] when the transcriber is closing. whisper.cpp polls this after every
// encoder pass and decoder step, so a cancel does not wait for the rest of
// the audio window.
static bool hark_abort_requested(void *data) {
	int *flags = (int *)data;
	return __atomic_load_n(&flags[0], __ATOMIC_RELAXED) != 0 ||
	       __atomic_load_n(&flags[1], __ATOMIC_RELAXED) != 0;
}

// The Go bindings do not expose the abort callback, so it is set on their
// params struct here: it is the same C struct from the same header.
static void hark_set_abort(struct whisper_full_params *p, int *flags) {
	p->abort_callback = hark_abort_requested;
	p->abort_callback_user_data = flags;
	// Non-speech tokens are what produce "(music)" and friends on noise.
	p->suppress_nst = true;
}

static void hark_free_prompt(struct whisper_full_params *p) {
	free((void *)p->prompt_tokens);
	p->prompt_tokens = NULL;
	p->prompt_n_tokens = 0;
}

// The prompt goes to whisper.cpp as tokens, made once per model: given as
// text, whisper_full would run its tokenizer (a regular expression over the
// whole prompt) again for every transcription and every chunk of a stream.
static int hark_set_prompt_tokens(struct whisper_context *ctx, struct whisper_full_params *p, const char *text) {
	int n = whisper_tokenize(ctx, text, NULL, 0);
	if (n >= 0) {
		return 0;
	}
	n = -n;
	whisper_token *tokens = malloc(sizeof(whisper_token) * n);
	if (tokens == NULL) {
		return -1;
	}
	if (whisper_tokenize(ctx, text, tokens, n) != n) {
		free(tokens);
		return -1;
	}
	p->prompt_tokens = tokens;
	p->prompt_n_tokens = n;
	return n;
}

// Silero voice activity detection through whisper.cpp's own API. Segments
// come back in centiseconds; n is -1 when detection failed (the caller then
// goes on without it), otherwise the number of segments written to t0/t1.
static struct whisper_vad_context *hark_vad_init(const char *path, int threads) {
	struct whisper_vad_context_params cp = whisper_vad_default_context_params();
	cp.n_threads = threads;
	cp.use_gpu = false;
	return whisper_vad_init_from_file_with_params(path, cp);
}

static int hark_vad_segments(struct whisper_vad_context *vctx, const float *samples, int n, float *t0, float *t1, int max) {
	struct whisper_vad_params vp = whisper_vad_default_params();
	struct whisper_vad_segments *segs = whisper_vad_segments_from_samples(vctx, vp, samples, n);
	if (segs == NULL) {
		return -1;
	}
	int count = whisper_vad_segments_n_segments(segs);
	for (int i = 0; i < count && i < max; i++) {
		t0[i] = whisper_vad_segments_get_segment_t0(segs, i);
		t1[i] = whisper_vad_segments_get_segment_t1(segs, i);
	}
	whisper_vad_free_segments(segs);
	return count < max ? count : max;
}

static int hark_debug_log;

// While hark_capture is set, log lines this thread writes are appended to it
// instead (only hark_counters does that, with busy held). Thread-local, so a
// line ggml logs from another thread meanwhile goes its usual way and never
// into this thread's stack buffer.
static _Thread_local char *hark_capture;
static _Thread_local size_t hark_capture_len, hark_capture_cap;

// whisper.cpp logs every load step to stderr; Hark prints its own messages
// and shows whisper.cpp's only when asked to (HARK_WHISPER_DEBUG=1).
static void hark_log(enum ggml_log_level level, const char *text, void *user_data) {
	if (hark_capture != NULL) {
		size_t n = strlen(text);
		if (hark_capture_len + n < hark_capture_cap) {
			memcpy(hark_capture + hark_capture_len, text, n + 1);
			hark_capture_len += n;
		}
		return;
	}
	if (hark_debug_log) {
		fputs(text, stderr);
	}
}

// hark_counters reads whisper.cpp's work counters since the last reset, from
// the one place its public API shows them (whisper_print_timings), and
// resets them: c[0] passes that failed and fell back (its "p" count; the "h"
// count is per decoder and would count one pass up to five times; neither is
// ever reset), c[1] tokens decoded in batches of 16 or more (what whisper.cpp
// calls prompt time: a prompt shorter than that is not counted), c[2]
// single-token decoder steps, c[3] encoder runs. whisper.cpp prints each count
// of runs as at least 1.
// prompt_ms is the time spent decoding prompts. It returns 0, or -1 when
// the text was not understood.
static int hark_counters(struct whisper_context *ctx, int *c, float *prompt_ms) {
	char buf[4096];
	buf[0] = 0;
	hark_capture = buf;
	hark_capture_len = 0;
	hark_capture_cap = sizeof buf;
	whisper_print_timings(ctx);
	hark_capture = NULL;
	whisper_reset_timings(ctx);
	const char *keys[] = {"fallbacks =", "prompt time =", "decode time =", "encode time ="};
	for (int i = 0; i < 4; i++) {
		const char *at = strstr(buf, keys[i]);
		if (at == NULL) {
			return -1;
		}
		at += strlen(keys[i]);
		float ms;
		int hn = 0;
		if (i == 0 ? sscanf(at, " %d p / %d h", &c[0], &hn) != 2 : sscanf(at, " %f ms / %d runs", &ms, &c[i]) != 2) {
			return -1;
		}
		if (i == 1) {
			*prompt_ms = ms;
		}
	}
	return 0;
}

static void hark_set_log(int debug) {
	hark_debug_log = debug;
	whisper_log_set(hark_log, NULL);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	bw "github.com/ggerganov/whisper.cpp/bindings/go"

	"github.com/hark-sh/hark/speech"
)

func init() {
	debug := 0
	if os.Getenv("HARK_WHISPER_DEBUG") != "" {
		debug = 1
	}
	C.hark_set_log(C.int(debug))
}

// busy is held while a model loads, transcribes or is freed. It is global,
// not per Transcriber, because the bindings keep their callbacks in plain
// package maps that two concurrent whisper_full calls would race on; and
// whisper.cpp already uses every thread it is given, so running two at once
// would gain nothing.
var busy = make(chan struct{}, 1)

func acquire(ctx context.Context) error {
	select {
	case busy <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release() { <-busy }

// Transcriber turns speech into text with one whisper.cpp model, loaded on
// first use (or by Warm) and kept until Close. It is safe for concurrent use;
// transcriptions run one at a time.
type Transcriber struct {
	opts Options

	// flags is C memory (see hark_abort_requested): [0] cancel, [1] closing.
	flags   *C.int
	closing atomic.Bool

	// Guarded by busy.
	model  *bw.Context
	params bw.Params
	closed bool
	vad    *C.struct_whisper_vad_context
	vadErr error // why VAD is off although a model was given

	// encoderBegin, when set by a test, runs each time whisper.cpp is about
	// to encode a 30-second window.
	encoderBegin func()
	// fallbackStep, set by a benchmark before the model loads, replaces
	// FallbackStep: 0 turns fallback off, 0.2 is whisper.cpp's own schedule.
	fallbackStep *float32
	// fallbacksSeen is whisper.cpp's fallback count at the last counters().
	fallbacksSeen int
}

// FallbackStep is the temperature step of Hark's fallback schedule: a greedy
// pass at 0, and only when whisper.cpp judges it failed (low confidence or a
// repetition loop), passes at 0.5 and 1.0. whisper.cpp conditions a pass on
// the vocabulary prompt only below 0.5 and decodes the prompt afresh for each
// such pass, so its own step of 0.2 pays for the prompt three times (0, 0.2,
// 0.4) when the first pass fails; with 0.5 the prompt is decoded once per
// transcription however many fallbacks follow. The trade: two fallback passes
// instead of five, and none of them sees the vocabulary, so a recording whose
// greedy pass fails is retried without it. That costs accuracy on such
// recordings by an amount not measured here (it needs real model weights);
// on everything else, the greedy pass is all that runs.
const FallbackStep = 0.5

// Available reports whether this build can transcribe.
func Available() bool { return true }

// New checks the options. The model is loaded by Warm or the first
// Transcribe, so constructing a Transcriber never blocks the caller and a
// model downloaded later is picked up without a restart.
func New(o Options) (*Transcriber, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	flags := (*C.int)(C.calloc(2, C.size_t(unsafe.Sizeof(C.int(0)))))
	if flags == nil {
		return nil, fmt.Errorf("whisper: out of memory")
	}
	return &Transcriber{opts: o, flags: flags}, nil
}

func (t *Transcriber) flag(i int) *int32 {
	return (*int32)(unsafe.Add(unsafe.Pointer(t.flags), i*int(unsafe.Sizeof(C.int(0)))))
}

// Warm loads the model so the first transcription does not pay for it. It
// blocks until the model is loaded; the app calls it in a goroutine at start.
// If ctx ends first Warm returns, and the load finishes on its own.
func (t *Transcriber) Warm(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		if err := acquire(ctx); err != nil {
			done <- err
			return
		}
		defer release()
		done <- t.loadLocked()
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loadLocked loads the model once; a failure is not remembered, so fixing
// the model file and trying again works. Call with busy held.
func (t *Transcriber) loadLocked() error {
	if t.closed {
		return ErrClosed
	}
	if t.model != nil {
		return nil
	}
	if err := checkModelFile(t.opts.ModelPath); err != nil {
		return err
	}
	if err := loadBackends(); err != nil {
		return err
	}
	m := bw.Whisper_init(t.opts.ModelPath)
	if m == nil {
		return fmt.Errorf("whisper: could not load %s: it is not a ggml whisper model or it is damaged; download it again with `hark models download %s` (HARK_WHISPER_DEBUG=1 shows whisper.cpp's reason)",
			t.opts.ModelPath, modelName(t.opts.ModelPath))
	}
	p, err := t.buildParams(m)
	if err != nil {
		m.Whisper_free()
		return err
	}
	t.model, t.params = m, p
	t.loadVADLocked()
	return nil
}

// loadVADLocked loads the voice activity model if one is configured. A
// model that will not load turns VAD off, not transcription: the loudness
// gate still keeps silence out, and VADProblem says what to do.
func (t *Transcriber) loadVADLocked() {
	path := t.opts.VADModelPath
	if path == "" || t.vad != nil {
		return
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		t.vadErr = fmt.Errorf("whisper: voice activity model %s cannot be read (%v); download it with `hark models download silero-v5`; until then Hark checks loudness only", path, err)
		return
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	v := C.hark_vad_init(cp, C.int(t.opts.Threads))
	if v == nil {
		t.vadErr = fmt.Errorf("whisper: %s is not a Silero VAD model whisper.cpp can load, or it is damaged; download it again with `hark models download silero-v5` (HARK_WHISPER_DEBUG=1 shows why); until then Hark checks loudness only", path)
		return
	}
	t.vad, t.vadErr = v, nil
}

// VADProblem says why voice activity detection is off although a model was
// configured, once the model has loaded (Warm or a transcription); nil when
// it is on or was not asked for.
func (t *Transcriber) VADProblem() error {
	if err := acquire(context.Background()); err != nil {
		return err
	}
	defer release()
	return t.vadErr
}

// SpeechSpans returns where the voice activity model hears speech in a
// (at any rate; it is brought to 16 kHz first), loading the models if
// needed. It fails when no VAD model is configured or it will not load.
func (t *Transcriber) SpeechSpans(ctx context.Context, a speech.Audio) ([]speech.Span, error) {
	a, err := a.To16k()
	if err != nil {
		return nil, err
	}
	if err := acquire(ctx); err != nil {
		return nil, err
	}
	defer release()
	if err := t.loadLocked(); err != nil {
		return nil, err
	}
	if t.vad == nil {
		if t.vadErr != nil {
			return nil, t.vadErr
		}
		return nil, errors.New("whisper: no voice activity model is configured; install one with `hark models download silero-v5`")
	}
	spans, ok := t.speechSpans(a)
	if !ok {
		return nil, errors.New("whisper: voice activity detection failed on this recording (HARK_WHISPER_DEBUG=1 shows why)")
	}
	return spans, nil
}

// maxVADSpans bounds the segments read back; a minute of speech has far
// fewer, and only the first and last matter for trimming.
const maxVADSpans = 256

// speechSpans runs Silero over a (16 kHz). ok is false when detection
// itself failed, and the caller goes on without it. Call with busy held.
func (t *Transcriber) speechSpans(a speech.Audio) (spans []speech.Span, ok bool) {
	if t.vad == nil || len(a.Samples) == 0 {
		return nil, false
	}
	t0 := make([]C.float, maxVADSpans)
	t1 := make([]C.float, maxVADSpans)
	n := C.hark_vad_segments(t.vad, (*C.float)(unsafe.Pointer(&a.Samples[0])), C.int(len(a.Samples)), &t0[0], &t1[0], maxVADSpans)
	if n < 0 {
		return nil, false
	}
	cs := func(v C.float) time.Duration { return time.Duration(float64(v) * float64(10*time.Millisecond)) }
	for i := range int(n) {
		spans = append(spans, speech.Span{Start: cs(t0[i]), End: cs(t1[i])})
	}
	if n == maxVADSpans {
		// More speech than was read back: keep everything after the first.
		spans = append(spans, speech.Span{Start: a.Duration(), End: a.Duration()})
	}
	return spans, true
}

// buildParams builds the decoding parameters once per model: greedy decoding,
// no printing, no carried-over context between requests (each push-to-talk
// request stands alone), the user's language and vocabulary prompt.
func (t *Transcriber) buildParams(m *bw.Context) (bw.Params, error) {
	multilingual := m.Whisper_is_multilingual() != 0
	lang, err := languageChoice(t.opts.Language, multilingual, t.opts.ModelPath)
	if err != nil {
		return bw.Params{}, err
	}
	p := m.Whisper_full_default_params(bw.SAMPLING_GREEDY)
	p.SetTranslate(false)
	p.SetPrintSpecial(false)
	p.SetPrintProgress(false)
	p.SetPrintRealtime(false)
	p.SetPrintTimestamps(false)
	p.SetNoContext(true)
	p.SetThreads(t.opts.Threads)
	if multilingual {
		id := -1 // auto-detect
		if lang != "auto" {
			cl := C.CString(lang)
			id = int(C.whisper_lang_id(cl))
			C.free(unsafe.Pointer(cl))
			if id < 0 {
				return bw.Params{}, fmt.Errorf("whisper: language %q is not one whisper knows; use a two-letter code such as en, de, fr or es, or \"auto\"", lang)
			}
		}
		if err := p.SetLanguage(id); err != nil {
			return bw.Params{}, fmt.Errorf("whisper: language %q: %w", lang, err)
		}
	}
	if prompt := strings.TrimSpace(t.opts.InitialPrompt); prompt != "" {
		cp := C.CString(prompt)
		n := C.hark_set_prompt_tokens((*C.struct_whisper_context)(unsafe.Pointer(m)), (*C.struct_whisper_full_params)(unsafe.Pointer(&p)), cp)
		C.free(unsafe.Pointer(cp))
		if n < 0 {
			return bw.Params{}, errors.New("whisper: the initial prompt could not be tokenized; shorten the initialPrompt setting")
		}
	}
	p.SetTemperature(0)
	step := float32(FallbackStep)
	if t.fallbackStep != nil {
		step = *t.fallbackStep
	}
	p.SetTemperatureFallback(step)
	C.hark_set_abort((*C.struct_whisper_full_params)(unsafe.Pointer(&p)), t.flags)
	return p, nil
}

// schedule reads back what buildParams gave whisper.cpp: the first
// temperature, the fallback step, the prompt's token count and whether the
// prompt was also set as text (which whisper.cpp would tokenize per call).
func (t *Transcriber) schedule() (t0, step float32, promptTokens int, asText bool) {
	p := (*C.struct_whisper_full_params)(unsafe.Pointer(&t.params))
	return float32(p.temperature), float32(p.temperature_inc), int(p.prompt_n_tokens), p.initial_prompt != nil
}

// workCounters is what whisper.cpp did since the last call (see
// hark_counters). Its counts of runs are at least 1, as whisper.cpp prints
// them. Tests and benchmarks use it; call with busy free.
type workCounters struct {
	fallbacks, promptTokens, decodeSteps, encodes int
	promptTime                                    time.Duration // decoding prompts
}

func (t *Transcriber) counters() (workCounters, error) {
	if err := acquire(context.Background()); err != nil {
		return workCounters{}, err
	}
	defer release()
	if t.model == nil {
		return workCounters{}, errors.New("whisper: no model loaded")
	}
	var c [4]C.int
	var promptMs C.float
	if C.hark_counters((*C.struct_whisper_context)(unsafe.Pointer(t.model)), &c[0], &promptMs) != 0 {
		return workCounters{}, errors.New("whisper: whisper_print_timings printed something unexpected")
	}
	// whisper.cpp never resets its count of fallbacks.
	fallbacks := int(c[0]) - t.fallbacksSeen
	t.fallbacksSeen = int(c[0])
	return workCounters{fallbacks, int(c[1]), int(c[2]), int(c[3]), time.Duration(float64(promptMs) * float64(time.Millisecond))}, nil
}

// Transcribe returns what was said in a. Audio at another rate is resampled
// to 16 kHz first. A recording too short or too quiet to hold speech, or one
// in which whisper finds only non-speech (tags such as [BLANK_AUDIO], stock
// phrases on near-silence), gives an error wrapping speech.ErrNoSpeech: the
// caller says "didn't catch that". Cancelling ctx makes whisper.cpp stop at its next check
// (before an encoder window, after an encoder pass or a decoder step), and
// Transcribe then returns ctx.Err().
func (t *Transcriber) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	text, _, err := t.runWords(ctx, a, false)
	return text, err
}

// TranscribeWords is Transcribe with whisper's probability of each word
// (the lowest of its tokens'), so Hark can mark the words it was unsure
// of; it satisfies app.WordTranscriber.
func (t *Transcriber) TranscribeWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	return t.runWords(ctx, a, false)
}

// transcribeChunkWords is TranscribeWords for one piece of a Stream:
// whisper.cpp encodes a window fitted to the piece instead of the full 30
// seconds, which is what makes the tail left at key-up quick to transcribe.
func (t *Transcriber) transcribeChunkWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	return t.runWords(ctx, a, true)
}

func (t *Transcriber) runWords(ctx context.Context, a speech.Audio, fitted bool) (text string, words []speech.Word, err error) {
	text, err = t.run(ctx, a, fitted, func(m *bw.Context) {
		var toks []speech.Token
		for i, n := 0, m.Whisper_full_n_segments(); i < n; i++ {
			for j, k := 0, m.Whisper_full_n_tokens(i); j < k; j++ {
				toks = append(toks, speech.Token{Text: m.Whisper_full_get_token_text(i, j), P: float64(m.Whisper_full_get_token_p(i, j))})
			}
		}
		words = speech.WordsFromTokens(toks)
	})
	if err != nil {
		return "", nil, err
	}
	return text, words, nil
}

// run transcribes a; tokens, when set, reads the decoded tokens while the
// model still holds them.
func (t *Transcriber) run(ctx context.Context, a speech.Audio, fitted bool, tokens func(*bw.Context)) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := a.Validate(); err != nil {
		return "", err
	}
	// Silence and key taps never reach whisper: it would answer them with
	// phantom text an agent might act on.
	a, level, err := speech.Prepare(a)
	if err != nil {
		return "", err
	}
	if err := acquire(ctx); err != nil {
		return "", err
	}
	defer release()
	if t.closing.Load() {
		return "", ErrClosed
	}
	if err := t.loadLocked(); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}

	cancel := t.flag(0)
	atomic.StoreInt32(cancel, 0)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		atomic.StoreInt32(cancel, 1)
		close(fired)
	})
	defer func() {
		// Wait for a cancel already under way, so it cannot reset the next
		// transcription's flag.
		if !stop() {
			<-fired
		}
	}()

	hook := t.encoderBegin
	encoderBegin := func() bool {
		if hook != nil {
			hook()
		}
		return atomic.LoadInt32(cancel) == 0 && !t.closing.Load()
	}
	if spans, ok := t.speechSpans(a); ok {
		// Silero refuses what the loudness gate lets through (music,
		// typing) and trims the silence around the request.
		if a, err = speech.TrimToSpeech(a, spans, speech.SpeechPad); err != nil {
			return "", err
		}
	}
	params := t.params
	if fitted {
		params.SetAudioCtx(fittedAudioCtx(len(a.Samples)))
	}
	runErr := t.model.Whisper_full(params, a.Samples, encoderBegin, nil, nil)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if t.closing.Load() {
		return "", ErrClosed
	}
	if runErr != nil {
		return "", fmt.Errorf("whisper: whisper.cpp could not transcribe the recording (%v); HARK_WHISPER_DEBUG=1 shows its log", runErr)
	}
	var b strings.Builder
	for i, n := 0, t.model.Whisper_full_n_segments(); i < n; i++ {
		b.WriteString(t.model.Whisper_full_get_segment_text(i))
	}
	if tokens != nil {
		tokens(t.model)
	}
	text := speech.CleanTranscript(b.String(), level)
	if text == "" {
		return "", fmt.Errorf("%w: whisper heard no words, only non-speech sounds", speech.ErrNoSpeech)
	}
	return text, nil
}

// Close aborts a running transcription, frees the model and makes further
// calls return ErrClosed. It is safe to call more than once.
func (t *Transcriber) Close() error {
	if t.closing.Swap(true) {
		return nil
	}
	atomic.StoreInt32(t.flag(1), 1)
	busy <- struct{}{}
	defer release()
	t.closed = true
	if t.model != nil {
		C.hark_free_prompt((*C.struct_whisper_full_params)(unsafe.Pointer(&t.params)))
		t.model.Whisper_free()
		t.model = nil
	}
	if t.vad != nil {
		C.whisper_vad_free(t.vad)
		t.vad = nil
	}
	C.free(unsafe.Pointer(t.flags))
	t.flags = nil
	return nil
}

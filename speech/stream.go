package speech

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Transcribing while the user speaks: a Stream receives the recording as it
// grows, cuts it into chunks at pauses between words, and transcribes each
// finished chunk on a goroutine of its own while capture goes on. At key-up
// only the audio after the last cut is left to transcribe, so the wait after
// the user stops speaking no longer grows with the length of the request.
// Chunks end only inside pauses, never inside a word, so the joined text is
// what a transcription of the whole recording would give, give or take the
// context whisper would have carried across a pause.

// ChunkFunc transcribes one piece of a recording at WhisperRate. An error
// wrapping ErrNoSpeech means the piece held no words.
type ChunkFunc func(ctx context.Context, a Audio) (string, error)

// WordsFunc is a ChunkFunc that also gives whisper's probability of each
// word (see WordsFromTokens); words may be nil when it has none.
type WordsFunc func(ctx context.Context, a Audio) (string, []Word, error)

// StreamOptions tune where a Stream cuts. Zero fields mean the defaults.
type StreamOptions struct {
	// MinChunk: no cut before a chunk holds this much audio, so whisper
	// always sees a few words of context (default 2 s).
	MinChunk time.Duration
	// MaxChunk: a chunk that reaches this length without a pause is cut at
	// its quietest frame, well inside whisper's 30 s window (default 20 s).
	MaxChunk time.Duration
	// Pause: this long below the speech level ends a chunk, cut in its
	// middle (default 300 ms: longer than the gaps inside a word).
	Pause time.Duration
	// Gate decides which frames are voiced and whether a chunk is worth
	// transcribing (default DefaultGate).
	Gate Gate
	// Chunk transcribes each chunk, and the tail left at Finish.
	Chunk ChunkFunc
	// ChunkWords, when set, is used instead of Chunk and keeps each
	// chunk's word probabilities, which FinishWords joins.
	ChunkWords WordsFunc
	// Whole, when set, transcribes the entire recording if a chunk failed
	// for any reason other than ErrNoSpeech, so one bad chunk costs time
	// but never words.
	Whole ChunkFunc
	// WholeWords is Whole with word probabilities, used instead of it.
	WholeWords WordsFunc
	// Partial, when set, is called from the Stream's goroutine with the
	// text committed so far, each time a chunk adds to it.
	Partial func(text string)
}

func (o StreamOptions) withDefaults() StreamOptions {
	if o.MinChunk <= 0 {
		o.MinChunk = 2 * time.Second
	}
	if o.MaxChunk <= 0 {
		o.MaxChunk = 20 * time.Second
	}
	o.MaxChunk = max(o.MaxChunk, o.MinChunk)
	if o.Pause <= 0 {
		o.Pause = 300 * time.Millisecond
	}
	if o.Gate == (Gate{}) {
		o.Gate = DefaultGate
	}
	return o
}

// Cutter finds the places where a growing recording may be cut: the middle
// of a pause, after at least MinChunk of audio holding some speech. It only
// looks at 20 ms frame levels, so it is cheap enough to run on every buffer
// the microphone delivers. The zero value is not useful; use NewCutter.
type Cutter struct {
	o        StreamOptions
	rate     int
	frame    int       // samples per frame
	pending  []float32 // samples of the frame being filled
	frames   []float64 // dB of each whole frame since the last cut
	start    int       // sample index of the last cut
	quietRun int       // frames below the speech level, ending at the newest
	voiced   int       // voiced frames since the last cut
}

// NewCutter returns a Cutter for audio at rate samples per second.
func NewCutter(rate int, o StreamOptions) *Cutter {
	o = o.withDefaults()
	return &Cutter{o: o, rate: rate, frame: max(1, rate*int(frameDur/time.Millisecond)/1000)}
}

func (c *Cutter) frames2samples(n int) int { return n * c.frame }

func (c *Cutter) dur(frames int) time.Duration { return time.Duration(frames) * frameDur }

// Write adds samples and returns the sample positions (counted from the
// first sample ever written) where chunks end, oldest first.
func (c *Cutter) Write(samples []float32) []int {
	var cuts []int
	minFrames := int(c.o.MinChunk / frameDur)
	maxFrames := int(c.o.MaxChunk / frameDur)
	pauseFrames := max(1, int(c.o.Pause/frameDur))
	minVoiced := max(1, int(c.o.Gate.MinVoiced/frameDur))
	for len(samples) > 0 {
		take := min(c.frame-len(c.pending), len(samples))
		c.pending = append(c.pending, samples[:take]...)
		samples = samples[take:]
		if len(c.pending) < c.frame {
			break
		}
		var sum float64
		for _, s := range c.pending {
			sum += float64(s) * float64(s)
		}
		c.pending = c.pending[:0]
		db := dbfs(sum / float64(c.frame))
		c.frames = append(c.frames, db)
		if db >= c.o.Gate.SpeechDBFS {
			c.voiced++
			c.quietRun = 0
		} else {
			c.quietRun++
		}
		n := len(c.frames)
		switch {
		case c.quietRun >= pauseFrames && n >= minFrames && c.voiced >= minVoiced:
			// The middle of the pause: half of it ends this chunk, the
			// other half leads into the next, so neither word is clipped.
			cuts = append(cuts, c.cut(n-pauseFrames+pauseFrames/2))
		case c.voiced == 0 && n >= minFrames:
			// Nothing but silence so far: drop it, keeping the last pause
			// as lead-in, so the first chunk does not fill up with it.
			cuts = append(cuts, c.cut(n-pauseFrames/2))
		case n >= maxFrames:
			cuts = append(cuts, c.cut(c.quietest()))
		}
	}
	return cuts
}

// quietest is the frame to cut at when no pause came: the quietest one in
// the second half of the chunk, preferring the latest among equals.
func (c *Cutter) quietest() int {
	best := len(c.frames) - 1
	for i := len(c.frames) - 1; i >= len(c.frames)/2; i-- {
		if c.frames[i] < c.frames[best] {
			best = i
		}
	}
	return max(1, best)
}

// cut ends the chunk after frame index at (relative to the last cut) and
// returns the absolute sample position of the cut.
func (c *Cutter) cut(at int) int {
	pos := c.start + c.frames2samples(at)
	rest := append([]float64(nil), c.frames[at:]...)
	c.frames = rest
	c.start = pos
	c.voiced = 0
	c.quietRun = 0
	for i := len(rest) - 1; i >= 0 && rest[i] < c.o.Gate.SpeechDBFS; i-- {
		c.quietRun++
	}
	for _, db := range rest {
		if db >= c.o.Gate.SpeechDBFS {
			c.voiced++
		}
	}
	return pos
}

// Stream transcribes a recording while it is being made. Write feeds it the
// samples as they arrive; Finish, given the whole recording, transcribes what
// is left and returns the text. Write and Finish are meant for one goroutine
// (the one following the recorder); the transcriptions run on another.
type Stream struct {
	o      StreamOptions
	ctx    context.Context
	cancel context.CancelFunc
	rate   int // of the samples given to Write; 0 until the first Write
	cutter *Cutter
	buf    []float32 // samples since the last cut
	bufAt  int       // absolute position of buf[0]
	cutAt  int       // absolute position of the last cut, in Write's rate

	jobs chan Audio
	done chan struct{}

	mu      sync.Mutex
	settled *sync.Cond // signalled as each job is handled
	texts   []string
	words   [][]Word // texts[i]'s word probabilities; nil where the chunk had none
	failed  error    // first chunk error other than ErrNoSpeech
	chunks  int      // transcribed so far
	queued  int      // jobs sent to the worker
	handled int      // jobs the worker is done with
}

// NewStream starts a Stream whose chunk transcriptions run under ctx.
func NewStream(ctx context.Context, o StreamOptions) *Stream {
	o = o.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{o: o, ctx: ctx, cancel: cancel, jobs: make(chan Audio, 64), done: make(chan struct{})}
	s.settled = sync.NewCond(&s.mu)
	go s.work(s.jobs)
	return s
}

// Write adds samples captured since the previous Write. All of them must
// share one sample rate; a recorder's native rate is fine, each chunk is
// brought to WhisperRate on its own. Write never waits for a transcription.
func (s *Stream) Write(a Audio) {
	if len(a.Samples) == 0 || a.SampleRate <= 0 {
		return
	}
	if s.rate == 0 {
		s.rate = a.SampleRate
		s.cutter = NewCutter(a.SampleRate, s.o)
	}
	if a.SampleRate != s.rate || s.jobs == nil {
		// Finish takes everything after the last cut from the whole
		// recording, so samples ignored here are not lost.
		return
	}
	s.buf = append(s.buf, a.Samples...)
	for _, pos := range s.cutter.Write(a.Samples) {
		chunk := s.buf[:pos-s.bufAt]
		s.buf = append([]float32(nil), s.buf[pos-s.bufAt:]...)
		s.bufAt, s.cutAt = pos, pos
		s.mu.Lock()
		s.queued++
		s.mu.Unlock()
		select {
		case s.jobs <- Audio{Samples: chunk, SampleRate: s.rate}:
		default:
			s.mu.Lock()
			s.queued--
			s.mu.Unlock()
			// The transcriber fell this far behind: stop streaming and
			// let Finish transcribe everything in one pass.
			s.fail(errors.New("speech: chunks arrive faster than they are transcribed"))
		}
	}
}

func (s *Stream) settle() {
	s.mu.Lock()
	s.handled++
	s.settled.Broadcast()
	s.mu.Unlock()
}

// Wait blocks until every chunk cut so far is transcribed: the state at
// key-up when transcription kept pace with the speech. Benchmarks use it to
// time Finish from there.
func (s *Stream) Wait() {
	s.mu.Lock()
	for s.handled < s.queued {
		s.settled.Wait()
	}
	s.mu.Unlock()
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
}

func (s *Stream) work(jobs <-chan Audio) {
	defer close(s.done)
	for a := range jobs {
		s.mu.Lock()
		failed := s.failed != nil
		s.mu.Unlock()
		if failed || s.ctx.Err() != nil {
			s.settle()
			continue
		}
		text, words, err := s.transcribe(s.ctx, a)
		s.mu.Lock()
		s.handled++
		s.settled.Broadcast()
		switch {
		case err != nil:
			if s.failed == nil {
				s.failed = err
			}
		case text != "":
			s.texts = append(s.texts, text)
			s.words = append(s.words, words)
		}
		s.chunks++
		joined := strings.Join(s.texts, " ")
		s.mu.Unlock()
		if err == nil && text != "" && s.o.Partial != nil {
			s.o.Partial(joined)
		}
	}
}

// transcribe runs Chunk (or ChunkWords) on a, skipping a piece with no
// voiced frames at all without waking the transcriber.
func (s *Stream) transcribe(ctx context.Context, a Audio) (string, []Word, error) {
	a16, err := a.To16k()
	if err != nil {
		return "", nil, err
	}
	if s.o.Gate.Measure(a16).Voiced == 0 {
		return "", nil, nil
	}
	var text string
	var words []Word
	if s.o.ChunkWords != nil {
		text, words, err = s.o.ChunkWords(ctx, a16)
	} else {
		text, err = s.o.Chunk(ctx, a16)
	}
	if errors.Is(err, ErrNoSpeech) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(text), words, nil
}

// Finish stops the stream and returns the transcript of all, the complete
// recording at WhisperRate (what the recorder's Stop returned: every sample
// given to Write, then the tail). It waits for the chunks under way,
// transcribes the audio after the last cut, and joins the pieces. A
// recording without speech gives an error wrapping ErrNoSpeech, as a
// one-pass transcription would.
func (s *Stream) Finish(ctx context.Context, all Audio) (string, error) {
	text, _, err := s.FinishWords(ctx, all)
	return text, err
}

// FinishWords is Finish with the word probabilities of the whole
// transcript, the chunks' joined in order: nil unless every piece of the
// text has them (ChunkWords, and WholeWords after a failed chunk), so a
// word is never given another piece's probability.
func (s *Stream) FinishWords(ctx context.Context, all Audio) (string, []Word, error) {
	defer s.cancel()
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	if s.jobs != nil {
		close(s.jobs)
		s.jobs = nil
	}
	a16, err := all.To16k()
	if err != nil {
		<-s.done
		return "", nil, err
	}
	if _, err := s.o.Gate.Check(a16); err != nil {
		s.cancel()
		<-s.done
		return "", nil, err
	}
	from := 0
	if s.rate > 0 {
		from = int(int64(s.cutAt) * int64(a16.SampleRate) / int64(s.rate))
	}
	from = min(from, len(a16.Samples))
	tail := Audio{Samples: a16.Samples[from:], SampleRate: a16.SampleRate}
	<-s.done
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	failed, texts, words := s.failed, s.texts, s.words
	s.mu.Unlock()
	if failed == nil && len(tail.Samples) > 0 {
		text, ws, err := s.transcribe(ctx, tail)
		if err != nil {
			failed = err
		} else if text != "" {
			texts = append(texts, text)
			words = append(words, ws)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	if failed != nil {
		switch {
		case s.o.WholeWords != nil:
			return s.o.WholeWords(ctx, a16)
		case s.o.Whole != nil:
			text, err := s.o.Whole(ctx, a16)
			return text, nil, err
		}
		return "", nil, failed
	}
	text := strings.Join(texts, " ")
	if text == "" {
		return "", nil, fmt.Errorf("%w: whisper heard no words, only non-speech sounds", ErrNoSpeech)
	}
	var joined []Word
	for _, ws := range words {
		if ws == nil {
			return text, nil, nil
		}
		joined = append(joined, ws...)
	}
	return text, joined, nil
}

// Cut reports how much of the recording lies before the last cut: what
// the chunks cover, so Finish is left with the rest.
func (s *Stream) Cut() time.Duration {
	if s.rate == 0 {
		return 0
	}
	return time.Duration(s.cutAt) * time.Second / time.Duration(s.rate)
}

// Chunks reports how many chunks were transcribed before Finish.
func (s *Stream) Chunks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chunks
}

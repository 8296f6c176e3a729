package app

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech"
)

// liveRecorder is a fakeRecorder that can be followed during capture: the
// test decides how much of its audio has been "captured" so far.
type liveRecorder struct {
	*fakeRecorder
	mu       sync.Mutex
	captured int
}

func (r *liveRecorder) CapturedSince(from int) speech.Audio {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.audio.Samples[min(from, r.captured):r.captured]
	return speech.Audio{Samples: s, SampleRate: r.audio.SampleRate}
}

func (r *liveRecorder) capture(upTo int) {
	r.mu.Lock()
	r.captured = upTo
	r.mu.Unlock()
}

// streamingTranscriber answers each chunk with the next of its words, and
// with probs set, with each word's probability as whisper's tokens give it.
type streamingTranscriber struct {
	*fakeTranscriber
	mu     sync.Mutex
	words  []string
	probs  [][]float64 // per chunk, per word; nil: no probabilities
	chunks chan speech.Audio
}

func (f *streamingTranscriber) BeginStream(ctx context.Context, partial func(string)) *speech.Stream {
	return speech.NewStream(ctx, speech.StreamOptions{
		ChunkWords: func(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.chunks <- a
			text := f.words[0]
			f.words = f.words[1:]
			var ws []speech.Word
			if len(f.probs) > 0 {
				for i, w := range strings.Fields(text) {
					ws = append(ws, speech.Word{Text: w, P: f.probs[0][i]})
				}
				f.probs = f.probs[1:]
			}
			return text, ws, nil
		},
		Whole:   f.Transcribe,
		Partial: partial,
	})
}

// phrases is loud speech-like sound for each duration in secs, with 600 ms
// of quiet after each.
func phrases(secs ...float64) (speech.Audio, []int) {
	var out []float32
	var ends []int
	for _, d := range secs {
		for i := range int(d * speech.WhisperRate) {
			t := float64(i) / speech.WhisperRate
			out = append(out, float32(0.3*math.Sin(2*math.Pi*220*t)))
		}
		out = append(out, make([]float32, speech.WhisperRate*6/10)...)
		ends = append(ends, len(out))
	}
	return speech.Audio{Samples: out, SampleRate: speech.WhisperRate}, ends
}

func TestStreamingTurnShowsPartialText(t *testing.T) {
	t.Parallel()
	audio, ends := phrases(2.5, 1)
	rec := &liveRecorder{fakeRecorder: newFakeRecorder()}
	rec.audio = audio
	tr := &streamingTranscriber{fakeTranscriber: newFakeTranscriber("one pass"), words: []string{"list my", "downloads"}, chunks: make(chan speech.Audio, 4)}
	h := start(t, answerAgent("done"), func(o *Options) { o.Recorder, o.Transcriber = rec, tr })

	m := h.views.mark()
	h.app.Post(KeyDown{})
	h.views.waitFrom(t, m, "listening", stateIs(Listening))
	recv(t, "recorder start", rec.started)
	// The first phrase and its pause are captured: the stream cuts there
	// and transcribes it while the key is still held.
	rec.capture(ends[0])
	first := recv(t, "first chunk", tr.chunks)
	if first.Duration() > audio.Duration()*3/4 {
		t.Errorf("first chunk is %s of %s", first.Duration(), audio.Duration())
	}
	v := h.views.waitFrom(t, m, "partial text while listening", func(v View) bool { return v.State == Listening && v.Detail != "" })
	if line := StatusLine(v); line != "Listening: list my" {
		t.Errorf("status line %q, want the partial transcript", line)
	}

	rec.capture(len(audio.Samples))
	h.app.Post(KeyUp{})
	req := recv(t, "agent request", h.agent.calls)
	if req.Text != "list my downloads" {
		t.Errorf("agent got %q, want the chunks joined", req.Text)
	}
	select {
	case <-tr.called:
		t.Error("the one-pass Transcribe ran although the stream had the text")
	default:
	}
}

// TestStreamingTurnMarksUnsureWords: a request transcribed while it was
// spoken marks the words whisper was unsure of in its approval, as a
// one-pass transcription does, and says first when one is what the command
// deletes.
func TestStreamingTurnMarksUnsureWords(t *testing.T) {
	t.Parallel()
	audio, ends := phrases(2.5, 1)
	rec := &liveRecorder{fakeRecorder: newFakeRecorder()}
	rec.audio = audio
	tr := &streamingTranscriber{fakeTranscriber: newFakeTranscriber("one pass"), words: []string{"delete the old", "bills"},
		probs: [][]float64{{0.98, 0.97, 0.9}, {0.31}}, chunks: make(chan speech.Audio, 4)}
	decided := make(chan Decision, 1)
	p := Pending{Command: "rm -r ~/bills", Tier: shell.Confirm,
		Reasons: []shell.Reason{{Category: "delete", Why: "rm: deletes files", Command: "rm -r ~/bills"}}}
	h := start(t, askOnceAgent(p, decided), func(o *Options) { o.Recorder, o.Transcriber = rec, tr })

	h.app.Post(KeyDown{})
	recv(t, "recorder start", rec.started)
	rec.capture(ends[0])
	recv(t, "first chunk", tr.chunks)
	rec.capture(len(audio.Samples))
	h.app.Post(KeyUp{})
	if req := recv(t, "agent request", h.agent.calls); req.Text != "delete the old bills" {
		t.Fatalf("agent got %q: the model gets the words as heard, unmarked", req.Text)
	}
	v := h.views.wait(t, "approval", func(v View) bool { return len(v.Pending) == 1 })
	if got := v.Pending[0].Heard; got != "delete the old [bills?]" {
		t.Errorf("Heard %q, want the unsure word marked", got)
	}
	if doubt := v.Pending[0].HeardDoubt; !strings.Contains(doubt, "bills") {
		t.Errorf("HeardDoubt %q, want it to name the unsure target", doubt)
	}
	select {
	case <-tr.called:
		t.Error("the one-pass Transcribe ran although the stream had the text")
	default:
	}
	h.app.Post(MenuClick{ID: PrefixDeny + v.Pending[0].ID})
	recv(t, "decision", decided)
}

func TestStatusLineDuringTranscription(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40) + "end"
	for _, v := range []View{{State: Listening, Detail: long}, {State: Transcribing, Detail: long}} {
		line := StatusLine(v)
		if !strings.HasSuffix(line, "end") || len([]rune(line)) > statusWidth {
			t.Errorf("%v: %q; want the end of the partial text within %d characters", v.State, line, statusWidth)
		}
	}
}

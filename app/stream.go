package app

import (
	"context"
	"time"

	"github.com/hark-sh/hark/speech"
)

// StreamingTranscriber is implemented by a Transcriber that can decode while
// the user is still speaking (speech.Stream). When the Recorder is also a
// LiveRecorder, listen feeds the stream during capture and shows its partial
// text in the status line; at key-up only the rest is left to transcribe.
type StreamingTranscriber interface {
	BeginStream(ctx context.Context, partial func(text string)) *speech.Stream
}

// LiveRecorder is implemented by a Recorder that can hand out what it has
// captured so far: the mono samples from frame from onwards, at the device's
// rate (which may differ from what Stop returns).
type LiveRecorder interface {
	CapturedSince(from int) speech.Audio
}

// livePoll is how often the recording is passed to the stream: often enough
// that a pause is noticed within a frame or two of its end.
const livePoll = 100 * time.Millisecond

// liveStream follows one recording into a speech.Stream.
type liveStream struct {
	s    *speech.Stream
	quit chan struct{}
	done chan struct{}
}

// beginStream starts streaming for the turn when both adapters can, and
// returns nil otherwise. Partial text goes to the loop as partialHeard.
func (r *turnRun) beginStream() *liveStream {
	st, ok := r.transcriber.(StreamingTranscriber)
	if !ok {
		return nil
	}
	rec, ok := r.recorder.(LiveRecorder)
	if !ok {
		return nil
	}
	l := &liveStream{
		s: st.BeginStream(r.ctx, func(text string) {
			r.loop.post(partialHeard{turn: r.id, text: text})
		}),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(livePoll)
		defer tick.Stop()
		n := 0
		for {
			select {
			case <-l.quit:
				return
			case <-r.ctx.Done():
				return
			case <-tick.C:
				got := rec.CapturedSince(n)
				n += len(got.Samples)
				l.s.Write(got)
			}
		}
	}()
	return l
}

// finish stops following the recorder and transcribes what is left of all,
// the recording Stop returned, with the words' probabilities where every
// chunk had them.
func (l *liveStream) finish(ctx context.Context, all speech.Audio) (string, []speech.Word, error) {
	close(l.quit)
	<-l.done
	return l.s.FinishWords(ctx, all)
}

// abandon ends the stream without a transcript (cancel, a failed recording).
func (l *liveStream) abandon() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _ = l.finish(ctx, speech.Audio{})
}

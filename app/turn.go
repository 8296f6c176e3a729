package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/speech"
)

// inbox is the way into the event loop from any other goroutine. It is
// all a turn knows of the loop, so it can hand events in but never read
// or change what the loop owns.
type inbox struct {
	events chan<- Event
	done   <-chan struct{} // closed when Run returns
}

// post blocks until the loop has taken e and returns false once Run has
// ended.
func (in inbox) post(e Event) bool {
	select {
	case <-in.done:
		return false
	default:
	}
	select {
	case in.events <- e:
		return true
	case <-in.done:
		return false
	}
}

// turnRun is what the goroutine of one turn holds. It has no *App on
// purpose: whatever the loop owns (state, pending approvals, settings,
// the menu) is out of its reach, and the compiler says so. Everything
// here is either the turn's own, a copy taken when the turn started, or
// an adapter safe to call from any goroutine; the turn reports back only
// through loop.
type turnRun struct {
	id   int
	ctx  context.Context // cancelled by the loop (Cancel, Escape, Quit)
	loop inbox

	source string
	text   string // typed or sent text; empty for voice
	// prev is the conversation the last request went to (nil: none, or
	// New conversation since). The loop hands it over and does not read
	// inside it, and the turn that last used it has ended; this turn
	// continues it only if the request reads as a follow-up.
	prev *agent.Conversation
	// retry: the request is the last one again (Say it again, Ask
	// again), so it continues prev however long ago and whatever its
	// words.
	retry bool
	// stop receives the key-up time when the loop ends the recording.
	stop <-chan time.Time

	// Copies of the settings when the turn started.
	noConfirm bool
	// confirmTimeout is the setting when the turn began, so an edit of
	// settings.json applies from the next request on.
	confirmTimeout time.Duration
	maxRecording   time.Duration
	cues           bool

	// keep: no speech model is there yet, so the recording is handed back
	// to the loop (heldVoice) instead of transcribed. kept: a recording
	// so held, to transcribe instead of recording.
	keep bool
	kept *speech.Audio

	agent             Agent
	recorder          Recorder
	transcriber       Transcriber
	cuePlayer         CuePlayer
	confirmer         turnConfirmer
	onTranscribeStart func(sinceKeyUp time.Duration)
	now               func() time.Time
}

// Private events from a turn's goroutine.
type (
	stageEvent struct {
		turn  int
		state State
	}
	agentEvent struct {
		turn int
		ev   agent.Event
	}
	turnDone struct {
		turn      int
		answer    string
		tally     agent.Tally // the agent's own count of the request's commands
		err       error
		cancelled bool
	}
	heard struct {
		turn int
		text string
	}
	// partialHeard is the text transcribed so far while the user speaks.
	partialHeard struct {
		turn int
		text string
	}
	// convChosen is the conversation the turn's request goes to.
	convChosen struct {
		turn int
		conv *agent.Conversation
	}
)

func (stageEvent) isEvent()   {}
func (agentEvent) isEvent()   {}
func (turnDone) isEvent()     {}
func (heard) isEvent()        {}
func (partialHeard) isEvent() {}
func (convChosen) isEvent()   {}

// run is the goroutine of one turn. It reports every stage to the loop
// and always ends with exactly one turnDone.
func (r *turnRun) run() {
	out, err := r.body()
	cancelled := r.ctx.Err() != nil
	r.loop.post(turnDone{turn: r.id, answer: out.Answer, tally: out.Metrics.Tally(), err: err, cancelled: cancelled})
}

func (r *turnRun) body() (agent.Outcome, error) {
	text := r.text
	var words []speech.Word
	if r.source == "voice" {
		var err error
		text, words, err = r.listen()
		if err != nil || text == "" {
			return agent.Outcome{}, err
		}
		r.loop.post(heard{turn: r.id, text: text})
		r.loop.post(stageEvent{turn: r.id, state: Thinking})
	}
	if r.agent == nil {
		return agent.Outcome{}, errors.New("no agent is configured; see the status line")
	}
	noConfirm := r.noConfirm
	c := r.confirmer
	if r.source == "voice" {
		// The model gets the words as heard; the approvals show which
		// of them whisper was unsure of.
		c.heard = speech.MarkUnsure(text, words)
		c.unsure = speech.Unsure(text, words)
		c.again = true
	}
	// Which conversation a request belongs to depends on its words, so a
	// spoken one is placed only now that they are known, never at
	// key-down.
	conv := r.prev
	if !r.retry || conv == nil {
		conv, _ = agent.ConversationFor(r.prev, text, r.now())
	}
	r.loop.post(convChosen{turn: r.id, conv: conv})
	return r.agent.RunWith(r.ctx, conv, text, agent.RequestOptions{
		Confirmer:      c,
		NoConfirm:      &noConfirm,
		ConfirmTimeout: r.confirmTimeout,
		OnEvent:        func(ev agent.Event) { r.loop.post(agentEvent{turn: r.id, ev: ev}) },
	})
}

// listen records until the loop sends on r.stop (key-up), the maximum
// length passes, or the turn is cancelled, then transcribes; words are nil
// unless the transcriber gives them.
func (r *turnRun) listen() (text string, words []speech.Word, err error) {
	if r.kept != nil {
		return r.transcribe(nil, *r.kept)
	}
	if err := r.recorder.Start(r.ctx); err != nil {
		return "", nil, fmt.Errorf("could not start recording: %w", err)
	}
	var live *liveStream
	if !r.keep {
		live = r.beginStream()
	}
	if live != nil {
		defer func() {
			if live != nil {
				live.abandon()
			}
		}()
	}
	// The cue follows the start of the recording, never the reverse: the
	// first word is spoken as the key goes down.
	playCue(r.cuePlayer, r.loop, r.cues, speech.CueStart)
	max := r.maxRecording
	if max <= 0 {
		max = time.Minute
	}
	timer := time.NewTimer(max)
	defer timer.Stop()
	var keyUp time.Time
	select {
	case keyUp = <-r.stop:
	case <-timer.C:
		// The recorder stops itself at the maximum; tell the loop we moved on.
		r.loop.post(stageEvent{turn: r.id, state: Transcribing})
	case <-r.ctx.Done():
		_, _ = r.recorder.Stop()
		return "", nil, r.ctx.Err()
	}
	audio, err := r.recorder.Stop()
	if r.ctx.Err() != nil {
		return "", nil, r.ctx.Err()
	}
	// After the tail, so the cue is not in the recording.
	playCue(r.cuePlayer, r.loop, r.cues, speech.CueStop)
	if err != nil {
		return "", nil, fmt.Errorf("recording failed: %w", err)
	}
	if audio.Duration() < MinRecording {
		return "", nil, errDidntCatch
	}
	if r.keep {
		return "", nil, &heldVoice{audio: audio}
	}
	if f := r.onTranscribeStart; f != nil && !keyUp.IsZero() {
		f(r.now().Sub(keyUp))
	}
	l := live
	live = nil
	return r.transcribe(l, audio)
}

// transcribe turns audio into words: through live, the stream that
// followed the recording, when there is one.
func (r *turnRun) transcribe(live *liveStream, audio speech.Audio) (text string, words []speech.Word, err error) {
	if live != nil {
		text, words, err = live.finish(r.ctx, audio)
	} else if wt, ok := r.transcriber.(WordTranscriber); ok {
		text, words, err = wt.TranscribeWords(r.ctx, audio)
	} else {
		text, err = r.transcriber.Transcribe(r.ctx, audio)
	}
	if r.ctx.Err() != nil {
		return "", nil, r.ctx.Err()
	}
	if errors.Is(err, speech.ErrNoSpeech) {
		return "", nil, err
	}
	if err != nil {
		return "", nil, fmt.Errorf("transcription failed: %w", err)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", nil, errDidntCatch
	}
	return text, words, nil
}

var errDidntCatch = errors.New("didn't catch that — hold the hotkey while you speak, then release it")

package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/speech"
)

// WordTranscriber is implemented by a Transcriber that can say how sure it
// was of each word (whisper's token probabilities). Hark then marks the
// words it was unsure of where a transcript is shown, and a spoken answer
// heard with doubt runs nothing.
type WordTranscriber interface {
	TranscribeWords(ctx context.Context, a speech.Audio) (text string, words []speech.Word, err error)
}

// answerRec is a spoken answer being recorded for one approval. The loop
// owns it; its goroutine reports back with answerHeard.
type answerRec struct {
	pendingID string
	cancel    context.CancelFunc
	stop      chan time.Time // capacity 1: key-up ends the recording
	stopped   bool
}

// answerHeard is what the answer's goroutine transcribed.
type answerHeard struct {
	pendingID string
	text      string
	words     []speech.Word
	err       error
}

func (answerHeard) isEvent() {}

// voiceAnswerable says whether the hotkey answers an approval now, and if
// not while one waits, why (for the status line).
func (a *App) voiceAnswerable() (ok bool, why string) {
	if a.answer != nil || a.state != AwaitingApproval || len(a.pending) == 0 || a.turn == nil || a.turn.cancelling {
		return false, ""
	}
	switch {
	case !a.settings.VoiceAnswers:
		return false, "answering by voice is off (voiceAnswers in Settings…) — answer in this menu"
	case a.cantListen() != "":
		return false, "voice input is not available — answer in this menu"
	case len(a.pending) > 1:
		// Which one a "yes" meant is a guess; a click names it.
		return false, fmt.Sprintf("%d approvals wait — answer each in this menu", len(a.pending))
	case a.pending[0].turn == externalTurn:
		// Another program's command was never described to the speaker
		// of this turn: a word meant as a new request must not answer it.
		return false, "this approval is from another program — answer it in this menu"
	}
	return true, ""
}

// startAnswer records a spoken answer to the one waiting approval. The
// turn is blocked in its confirmation, so the microphone is free.
func (a *App) startAnswer(ctx context.Context) {
	e := a.pending[0]
	actx, cancel := context.WithCancel(ctx)
	rec := &answerRec{pendingID: e.p.ID, cancel: cancel, stop: make(chan time.Time, 1)}
	a.answer = rec
	a.note = ""
	a.syncEscape()
	a.renderNow()
	recorder, transcriber, loop := a.o.Recorder, a.o.Transcriber, a.loop
	cues, player, max := a.settings.SoundCues, a.o.Cues, a.settings.MaxRecording.D()
	if max <= 0 || max > 15*time.Second {
		max = 15 * time.Second // an answer is a few words
	}
	a.turns.Add(1)
	go func() {
		defer a.turns.Done()
		defer cancel()
		text, words, err := recordAnswer(actx, rec.stop, max, recorder, transcriber, func(c speech.Cue) { playCue(player, loop, cues, c) })
		loop.post(answerHeard{pendingID: rec.pendingID, text: text, words: words, err: err})
	}()
}

// recordAnswer records until stop (key-up), max or ctx, then transcribes,
// with per-word probabilities where the transcriber has them.
func recordAnswer(ctx context.Context, stop <-chan time.Time, max time.Duration, rec Recorder, tr Transcriber, cue func(speech.Cue)) (string, []speech.Word, error) {
	if err := rec.Start(ctx); err != nil {
		return "", nil, fmt.Errorf("could not start recording: %w", err)
	}
	cue(speech.CueStart)
	timer := time.NewTimer(max)
	defer timer.Stop()
	select {
	case <-stop:
	case <-timer.C:
	case <-ctx.Done():
		_, _ = rec.Stop()
		return "", nil, ctx.Err()
	}
	audio, err := rec.Stop()
	if ctx.Err() != nil {
		return "", nil, ctx.Err()
	}
	cue(speech.CueStop)
	if err != nil {
		return "", nil, fmt.Errorf("recording failed: %w", err)
	}
	if audio.Duration() < MinRecording {
		return "", nil, errDidntCatch
	}
	var text string
	var words []speech.Word
	if wt, ok := tr.(WordTranscriber); ok {
		text, words, err = wt.TranscribeWords(ctx, audio)
	} else {
		text, err = tr.Transcribe(ctx, audio)
	}
	if ctx.Err() != nil {
		return "", nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, speech.ErrNoSpeech) {
		return "", nil, fmt.Errorf("transcription failed: %w", err)
	}
	return strings.TrimSpace(text), words, nil
}

// stopAnswer ends the answer's recording (key-up, or the press that ends
// a latched one).
func (a *App) stopAnswer() {
	r := a.answer
	if r == nil || r.stopped {
		return
	}
	r.stopped = true
	r.stop <- a.o.now()
	a.syncEscape()
	a.renderNow()
}

// dropAnswer abandons a spoken answer in progress: Escape, or its turn
// ended.
func (a *App) dropAnswer() {
	if r := a.answer; r != nil {
		r.cancel()
		a.answer = nil
		a.syncEscape()
	}
}

// answerHeardText applies a spoken answer to the approval it was spoken
// for, if that approval still waits. Anything but an answer leaves it
// waiting, and the status line says what was heard and the words that
// work.
func (a *App) answerHeardText(e answerHeard) {
	if a.answer != nil && a.answer.pendingID == e.pendingID {
		a.answer = nil
		a.syncEscape()
	}
	var entry *pendingEntry
	for _, p := range a.pending {
		if p.p.ID == e.pendingID {
			entry = p
		}
	}
	if entry == nil {
		// Answered another way, timed out, or its request was cancelled
		// while the person spoke: a spoken answer never moves to another
		// approval.
		a.renderNow()
		return
	}
	switch {
	case errors.Is(e.err, context.Canceled):
		a.note = ""
		a.renderNow()
		return
	case e.err != nil:
		a.note = e.err.Error() + " — the approval still waits"
		a.renderNow()
		return
	case e.text == "":
		a.note = "didn't catch an answer — " + SpokenHelp
		a.renderNow()
		return
	}
	d, ok, why := spokenDecision(entry.p, e.text, e.words)
	if ok && (d.Approved || d.Trash) && a.cutShort(e.pendingID) {
		// The hotkey stopped the description before its end: the yes
		// may be to something the person never heard.
		ok, why = false, "the description was stopped before its end — say no, or answer with a click"
	}
	if !ok {
		a.log.Info("spoken answer not taken", "pending", e.pendingID, "heard", e.text, "why", why)
		a.note = why
		a.say(why)
		a.renderNow()
		return
	}
	a.log.Info("spoken answer", "pending", e.pendingID, "heard", e.text, "approved", d.Approved, "trash", d.Trash)
	a.decide(d)
	a.note = "heard “" + clip(Visible(e.text), 40) + "” — " + spokenOutcome(d)
	a.renderNow()
}

func spokenOutcome(d Decision) string {
	switch {
	case d.Trash:
		return "moving to the Trash"
	case d.Approved:
		return "running it"
	case d.Reason != "":
		return "denied; the model is told why"
	}
	return "denied"
}

// sayAgain drops the request whose approval id waits (it is cancelled,
// so nothing of it runs) and listens for it again as soon as the turn has
// let go of everything; the recording is latched, so the next press of
// the hotkey ends it.
func (a *App) sayAgain(id string) {
	found := false
	for _, e := range a.pending {
		// Only the turn's own: another program's approval was never
		// spoken, and dropping it must not cancel the turn under way.
		found = found || (e.p.ID == id && a.turn != nil && e.turn == a.turn.id && e.p.SayAgain)
	}
	if !found || a.turn == nil || a.o.Recorder == nil || a.o.Transcriber == nil {
		return
	}
	a.bargeIn()
	a.dropAnswer()
	a.relisten = true
	a.cancel()
}

// relistenNow starts the recording Say it again asked for.
func (a *App) relistenNow(ctx context.Context) {
	a.relisten = false
	a.retrying = true
	a.startVoice(ctx)
	a.retrying = false
	if a.listening() {
		a.keyMachine().latched = true
		a.renderNow()
	}
}

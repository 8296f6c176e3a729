package main

import (
	"context"
	"sync"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/whisper"
)

// switchingTranscriber is whisper for a Hark that started without a speech
// model (or the voice activity model) and downloads it from the menu: use
// puts what was just downloaded in place without a restart. A model put
// where the first one looked needs no switch, since whisper loads its
// model at first use and tries again after a failure.
type switchingTranscriber struct {
	mu   sync.Mutex
	opts whisper.Options
	cur  *generation
}

// generation is one whisper.Transcriber and the calls still in it: the
// one a switch replaces is closed once they have returned, so a request
// under way is never aborted by the switch.
type generation struct {
	t     *whisper.Transcriber
	calls sync.WaitGroup
}

func newSwitchingTranscriber(o whisper.Options) (*switchingTranscriber, error) {
	t, err := whisper.New(o)
	if err != nil {
		return nil, err
	}
	return &switchingTranscriber{opts: o, cur: &generation{t: t}}, nil
}

func (s *switchingTranscriber) enter() *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.cur
	g.calls.Add(1)
	return g
}

// use switches to m, installed at path: a whisper model becomes the model,
// a voice activity model the VAD.
func (s *switchingTranscriber) use(m models.Model, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.opts
	if models.IsVAD(m) {
		o.VADModelPath = path
	} else {
		o.ModelPath = path
	}
	if o == s.opts {
		return nil
	}
	t, err := whisper.New(o)
	if err != nil {
		return err
	}
	old := s.cur
	s.opts, s.cur = o, &generation{t: t}
	go func() {
		old.calls.Wait()
		old.t.Close()
	}()
	return nil
}

func (s *switchingTranscriber) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	g := s.enter()
	defer g.calls.Done()
	return g.t.Transcribe(ctx, a)
}

func (s *switchingTranscriber) TranscribeWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	g := s.enter()
	defer g.calls.Done()
	return g.t.TranscribeWords(ctx, a)
}

// BeginStream starts a stream on the model in use. A switch while the
// stream runs (a download finishing mid-sentence) ends the stream's
// model; that request then fails and says so, and the next one uses the
// new model.
func (s *switchingTranscriber) BeginStream(ctx context.Context, partial func(string)) *speech.Stream {
	g := s.enter()
	defer g.calls.Done()
	return g.t.BeginStream(ctx, partial)
}

func (s *switchingTranscriber) Warm(ctx context.Context) error {
	g := s.enter()
	defer g.calls.Done()
	return g.t.Warm(ctx)
}

func (s *switchingTranscriber) VADProblem() error {
	g := s.enter()
	defer g.calls.Done()
	return g.t.VADProblem()
}

func (s *switchingTranscriber) SpeechSpans(ctx context.Context, a speech.Audio) ([]speech.Span, error) {
	g := s.enter()
	defer g.calls.Done()
	return g.t.SpeechSpans(ctx, a)
}

func (s *switchingTranscriber) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.t.Close()
}

// speechModels lets the menu download the speech models tr lacks; nil
// when tr is not one that can take them (no whisper.cpp, or nothing was
// missing at start).
func speechModels(st settings.Settings, paths settings.Paths, tr app.Transcriber) *app.SpeechModels {
	s, ok := tr.(*switchingTranscriber)
	if !ok {
		return nil
	}
	return &app.SpeechModels{
		Downloader: models.Downloader{BaseURL: st.ModelBaseURL, Dir: paths.Models},
		Use:        s.use,
	}
}

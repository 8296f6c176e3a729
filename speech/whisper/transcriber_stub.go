//go:build !whisper || !cgo

package whisper

import (
	"context"

	"github.com/hark-sh/hark/speech"
)

// Transcriber is the stand-in of a build without whisper.cpp: it keeps the
// API so callers compile the same way, and says how to get the real one.
type Transcriber struct {
	opts Options
}

// Available reports whether this build can transcribe.
func Available() bool { return false }

// New checks the options. It does not load anything.
func New(o Options) (*Transcriber, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Transcriber{opts: o}, nil
}

// Warm returns ErrUnavailable.
func (t *Transcriber) Warm(ctx context.Context) error { return ErrUnavailable }

// Transcribe returns ErrUnavailable.
func (t *Transcriber) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	return "", ErrUnavailable
}

// Close does nothing; there is nothing to release.
func (t *Transcriber) Close() error { return nil }

func (t *Transcriber) transcribeChunkWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	return "", nil, ErrUnavailable
}

// VADProblem returns nil: this build runs no voice activity detection.
func (t *Transcriber) VADProblem() error { return nil }

// SpeechSpans returns ErrUnavailable.
func (t *Transcriber) SpeechSpans(ctx context.Context, a speech.Audio) ([]speech.Span, error) {
	return nil, ErrUnavailable
}

// TranscribeWords returns ErrUnavailable.
func (t *Transcriber) TranscribeWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	return "", nil, ErrUnavailable
}

// loadedBackends has nothing to load without whisper.cpp.
func loadedBackends() ([]string, error) { return nil, ErrUnavailable }

//go:build !cgo

package portaudio

import (
	"context"

	"github.com/hark-sh/hark/speech"
)

// Init would initialise PortAudio; without cgo it returns ErrUnavailable.
func Init() error { return ErrUnavailable }

// Terminate balances Init; without cgo there is nothing to release.
func Terminate() error { return nil }

// Devices would list input devices; without cgo it returns ErrUnavailable.
func Devices() ([]Device, error) { return nil, ErrUnavailable }

// Recorder is the stand-in of builds without cgo: every call fails with
// ErrUnavailable, so the app can say why voice input is off.
type Recorder struct{}

// NewRecorder returns a Recorder that cannot record.
func NewRecorder(Options) *Recorder { return &Recorder{} }

// Start returns ErrUnavailable.
func (r *Recorder) Start(context.Context) error { return ErrUnavailable }

// Stop returns ErrUnavailable.
func (r *Recorder) Stop() (speech.Audio, error) { return speech.Audio{}, ErrUnavailable }

// CapturedSince returns nothing: there is no recording.
func (r *Recorder) CapturedSince(int) speech.Audio { return speech.Audio{} }

// FirstSample returns a channel that never closes.
func (r *Recorder) FirstSample() <-chan struct{} { return nil }

// Stats returns zero Stats.
func (r *Recorder) Stats() Stats { return Stats{} }

// Close does nothing.
func (r *Recorder) Close() error { return nil }

package app

import (
	"context"
	"errors"

	"github.com/hark-sh/hark/speech"
)

// ErrMicDenied is what a recording reports when the user (or a profile)
// refused Hark the microphone.
var ErrMicDenied = errors.New("microphone access is denied: allow Hark in System Settings › Privacy & Security › Microphone " +
	"(if it is already on there, run `tccutil reset Microphone sh.hark.Hark` and start Hark again)")

// ErrMicJustAnswered is what the press that was held while the permission
// prompt was open reports: its audio is gone, the next press records.
var ErrMicJustAnswered = errors.New("microphone access allowed — hold the hotkey again and speak")

// MicPermission is the answer to the OS's microphone permission question,
// asked once at startup (macOS shows its prompt then, not in the middle of
// the first press).
type MicPermission struct {
	done    chan struct{}
	granted bool
	err     error
}

// AskMicPermission starts ask in the background; ask returns once the user
// has answered, prompting if the question is still open.
func AskMicPermission(ask func() (bool, error)) *MicPermission {
	p := &MicPermission{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.granted, p.err = ask()
	}()
	return p
}

// MicGatedRecorder starts recording only once the microphone permission is
// answered: while the prompt is open the OS records silence, which would
// read as a denial. A press that had to wait reports ErrMicJustAnswered
// rather than a clipped recording.
type MicGatedRecorder struct {
	Recorder
	Permission *MicPermission
}

// Start waits for the permission answer (or ctx), then starts recording.
func (g MicGatedRecorder) Start(ctx context.Context) error {
	select {
	case <-g.Permission.done:
	default:
		select {
		case <-g.Permission.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if g.Permission.err == nil && g.Permission.granted {
			return ErrMicJustAnswered
		}
	}
	if g.Permission.err != nil {
		// The question could not be asked: record anyway; silence
		// detection still catches a denial.
		return g.Recorder.Start(ctx)
	}
	if !g.Permission.granted {
		return ErrMicDenied
	}
	return g.Recorder.Start(ctx)
}

// Stop is the recorder's.
func (g MicGatedRecorder) Stop() (speech.Audio, error) { return g.Recorder.Stop() }

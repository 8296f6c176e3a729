package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

type countingRecorder struct{ starts int }

func (r *countingRecorder) Start(context.Context) error { r.starts++; return nil }
func (r *countingRecorder) Stop() (speech.Audio, error) { return speech.Audio{}, nil }

// The first press must not race the permission prompt: while it is open
// nothing records, the press that waited says to press again, and after
// the answer presses record (allowed) or say how to allow it (denied).
func TestMicGatedRecorder(t *testing.T) {
	t.Parallel()
	t.Run("prompt open during the press", func(t *testing.T) {
		t.Parallel()
		answer := make(chan bool)
		rec := &countingRecorder{}
		g := MicGatedRecorder{Recorder: rec, Permission: AskMicPermission(func() (bool, error) { return <-answer, nil })}
		res := make(chan error, 1)
		go func() { res <- g.Start(context.Background()) }()
		select {
		case err := <-res:
			t.Fatalf("Start returned %v while the prompt was open", err)
		case <-time.After(50 * time.Millisecond):
		}
		answer <- true
		if err := <-res; !errors.Is(err, ErrMicJustAnswered) {
			t.Fatalf("the press that waited: %v, want ErrMicJustAnswered", err)
		}
		if rec.starts != 0 {
			t.Fatalf("recorded %d times during the prompt", rec.starts)
		}
		if err := g.Start(context.Background()); err != nil || rec.starts != 1 {
			t.Fatalf("next press: %v, %d starts; want it to record", err, rec.starts)
		}
	})
	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		rec := &countingRecorder{}
		p := AskMicPermission(func() (bool, error) { return false, nil })
		<-p.done
		err := MicGatedRecorder{Recorder: rec, Permission: p}.Start(context.Background())
		if !errors.Is(err, ErrMicDenied) || rec.starts != 0 {
			t.Fatalf("denied: %v, %d starts", err, rec.starts)
		}
		for _, want := range []string{"Privacy & Security › Microphone", "tccutil reset Microphone sh.hark.Hark"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
	})
	t.Run("question failed: record, silence detection decides", func(t *testing.T) {
		t.Parallel()
		rec := &countingRecorder{}
		p := AskMicPermission(func() (bool, error) { return false, errors.New("no AVFoundation") })
		<-p.done
		if err := (MicGatedRecorder{Recorder: rec, Permission: p}).Start(context.Background()); err != nil || rec.starts != 1 {
			t.Fatalf("%v, %d starts", err, rec.starts)
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		t.Parallel()
		block := make(chan bool)
		defer close(block)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := MicGatedRecorder{Recorder: &countingRecorder{}, Permission: AskMicPermission(func() (bool, error) { return <-block, nil })}.Start(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v, want context.Canceled", err)
		}
	})
}

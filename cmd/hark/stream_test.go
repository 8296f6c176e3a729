package main

import (
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/speech/portaudio"
	"github.com/hark-sh/hark/speech/whisper"
)

// The app streams only when the adapters main wires in offer it; a wrapper
// or a changed signature would silently bring back the one-pass wait.
func TestVoiceAdaptersStream(t *testing.T) {
	var tr app.Transcriber = &whisper.Transcriber{}
	if _, ok := tr.(app.StreamingTranscriber); !ok {
		t.Error("*whisper.Transcriber is not an app.StreamingTranscriber")
	}
	var rec app.Recorder = portaudio.NewRecorder(portaudio.Options{})
	if _, ok := rec.(app.LiveRecorder); !ok {
		t.Error("*portaudio.Recorder is not an app.LiveRecorder")
	}
}

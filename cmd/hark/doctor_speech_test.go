package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/whisper"
)

// TestDoctorTimesSpeechOnlyWithWhisper: the Speech speed line is there
// exactly when this build has whisper.cpp, and never required; without a
// model it says it has nothing to time and leaves the fix to the Whisper
// model line.
func TestDoctorTimesSpeechOnlyWithWhisper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := settings.Paths{Settings: dir + "/settings.json", Models: dir + "/models"}
	found := false
	for _, c := range doctorChecks(paths, settings.Defaults(), nil, doctorOptions{whisper: whisper.Available()}) {
		if c.Name == "Speech speed" {
			found = true
			if c.Required {
				t.Error("Speech speed is required, yet voice input is optional")
			}
		}
	}
	if found != whisper.Available() {
		t.Errorf("Speech speed line there: %v, whisper.cpp in this build: %v", found, whisper.Available())
	}
	_, err := probeSpeechSpeed(context.Background(), "base.en", dir+"/models")
	var pe *speech.ProbeError
	if !errors.As(err, &pe) || !pe.Limited() || !strings.Contains(pe.Problem, "no whisper model to time") {
		t.Errorf("without a model: %v", err)
	}
}

//go:build whisper && cgo

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech"
)

func TestTranscribeWithWhisper(t *testing.T) {
	model := os.Getenv("HARK_WHISPER_TEST_MODEL")
	if model == "" {
		t.Skip("HARK_WHISPER_TEST_MODEL is not set: point it at a ggml whisper model to run `hark transcribe` against whisper.cpp")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ggerganov/whisper.cpp/bindings/go").Output()
	if err != nil {
		t.Fatalf("locating the bindings module for its JFK sample: %v", err)
	}
	jfk := filepath.Join(strings.TrimSpace(string(out)), "samples", "jfk.wav")
	silent := filepath.Join(t.TempDir(), "silent.wav")
	if err := speech.WriteWAVFile(silent, speech.Audio{Samples: make([]float32, 48000), SampleRate: 48000}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HARK_HOME", t.TempDir())
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		// The test model has no weights, so the words cannot be checked:
		// either some text or whisper's own "no words" answer shows the
		// whole path ran.
		{name: "jfk with timings", args: []string{"-v", "--model", model, jfk}, wantErr: []string{"vocabulary (", "bytes): ls, cd, grep", "load ", "resample ", "transcribe "}},
		{name: "jfk with unsure words marked", args: []string{"--unsure", "--model", model, jfk}},
		{name: "silence", args: []string{"--model", model, silent}, wantCode: exitError, wantErr: []string{"didn't catch that"}},
		{name: "model not downloaded", args: []string{"--model", "tiny", jfk}, wantCode: exitError, wantErr: []string{"hark models download tiny"}},
		{name: "not a wav", args: []string{"--model", model, model}, wantCode: exitError, wantErr: []string{"WAV"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTranscribeCmd(t, tc.args...)
			noWords := code == exitError && strings.Contains(stderr, "didn't catch that: whisper heard no words")
			if code != tc.wantCode && !(tc.wantCode == exitOK && noWords) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d", code, stdout, stderr, tc.wantCode)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not contain %q", stderr, want)
				}
			}
			t.Logf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		})
	}
}

//go:build !whisper || !cgo

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// In a build without whisper.cpp, `hark transcribe` must say how to get one
// before anything else, and print no transcript.
func TestTranscribeWithoutWhisper(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	code, stdout, stderr := runTranscribeCmd(t, "--model", "base.en", filepath.Join(t.TempDir(), "speech.wav"))
	if code != exitError || stdout != "" {
		t.Fatalf("hark transcribe = %d, stdout %q; want %d and no transcript", code, stdout, exitError)
	}
	for _, want := range []string{"hark transcribe: this hark was built without whisper.cpp", "cmake --install", "make build"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not contain %q", stderr, want)
		}
	}
}

// hark ask --wav says the same, in the same words, and asks nothing.
func TestAskWavWithoutWhisper(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	wav := filepath.Join(t.TempDir(), "speech.wav")
	_, _, want := runTranscribeCmd(t, wav)
	r := runAgentCLI(t, "", false, "ask", "--wav", wav)
	if r.code != exitError || r.stdout != "" || r.stderr != strings.Replace(want, "hark transcribe:", "hark ask:", 1) {
		t.Fatalf("hark ask --wav = %d, stdout %q, stderr %q; want %d and hark transcribe's message %q", r.code, r.stdout, r.stderr, exitError, want)
	}
}

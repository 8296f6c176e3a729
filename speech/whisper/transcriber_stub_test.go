//go:build !whisper || !cgo

package whisper

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech"
)

func TestStubSaysHowToGetWhisper(t *testing.T) {
	t.Parallel()
	if Available() {
		t.Fatal("Available() = true in a build without whisper.cpp")
	}
	tr, err := New(Options{ModelPath: "/nowhere/ggml-base.en.bin"})
	if err != nil {
		t.Fatalf("New() error = %v; the stub must construct so callers can report the real problem later", err)
	}
	defer tr.Close()
	audio := speech.Audio{Samples: make([]float32, 16000), SampleRate: 16000}
	_, terr := tr.Transcribe(context.Background(), audio)
	werr := tr.Warm(context.Background())
	for name, err := range map[string]error{"Transcribe": terr, "Warm": werr} {
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s() error = %v, want ErrUnavailable", name, err)
			continue
		}
		hints := []string{"cmake --install", "make build", "PKG_CONFIG_PATH"}
		if runtime.GOOS == "darwin" {
			hints = []string{"brew install whisper-cpp", "make build"}
		}
		for _, hint := range hints {
			if !strings.Contains(err.Error(), hint) {
				t.Errorf("%s() error %q does not mention %q", name, err, hint)
			}
		}
	}
}

func TestStubNewChecksOptions(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "hark models download") {
		t.Fatalf("New(Options{}) error = %v, want the missing-model hint", err)
	}
}

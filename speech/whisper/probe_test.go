package whisper

import (
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech"
)

func TestProbeBuild(t *testing.T) {
	t.Parallel()
	if d, err := probeBuild(true, "linux"); err != nil || !strings.Contains(d, "whisper.cpp") {
		t.Errorf("built with whisper: %q, %v", d, err)
	}
	for goos, fix := range map[string]string{"darwin": "brew install whisper-cpp", "linux": "libwhisper"} {
		_, err := probeBuild(false, goos)
		var pe *speech.ProbeError
		if !errors.As(err, &pe) || !strings.Contains(pe.Error(), "no whisper.cpp") || !strings.Contains(pe.Fix(), fix) {
			t.Errorf("%s without whisper: %v", goos, err)
		}
	}
}

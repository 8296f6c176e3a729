package whisper

import (
	"strings"
	"testing"
)

// TestUnavailableTextPerOS: each OS gets its own steps, and Linux is not
// told to run brew or to install a package name some distributions lack.
func TestUnavailableTextPerOS(t *testing.T) {
	t.Parallel()
	linux, mac := unavailableText("linux", ""), unavailableText("darwin", "")
	if strings.Contains(linux, "brew") || strings.Contains(linux, "macOS") || strings.Contains(linux, "libwhisper-dev") {
		t.Errorf("Linux text has macOS steps or a made-up package: %q", linux)
	}
	if !strings.Contains(linux, "cmake --install") || !strings.Contains(linux, "make build") {
		t.Errorf("Linux text lacks the build steps: %q", linux)
	}
	if !strings.Contains(mac, "brew install whisper-cpp") || strings.Contains(mac, "Linux") {
		t.Errorf("macOS text = %q", mac)
	}
	// The command make found for this system, when it found one.
	for _, hint := range []string{"sudo apt-get install libwhisper-dev", "make whisper"} {
		if got := unavailableText("linux", hint); !strings.Contains(got, "`"+hint+"`, then run `make build`") || strings.Contains(got, "brew") {
			t.Errorf("Linux text with %q = %q", hint, got)
		}
	}
}

// TestNoBackendTextPerOS: a ggml that finds no CPU plug-in at run time is
// not fixed on Linux with a Homebrew command.
func TestNoBackendTextPerOS(t *testing.T) {
	t.Parallel()
	if linux := noBackendText("linux"); strings.Contains(linux, "brew") || !strings.Contains(linux, "GGML_BACKEND_PATH") {
		t.Errorf("Linux text = %q", linux)
	}
	if mac := noBackendText("darwin"); !strings.Contains(mac, "brew reinstall ggml") {
		t.Errorf("macOS text = %q", mac)
	}
}

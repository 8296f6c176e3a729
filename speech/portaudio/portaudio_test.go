package portaudio

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

func TestDeniedPermission(t *testing.T) {
	t.Parallel()
	silence := speech.Audio{Samples: make([]float32, 8000), SampleRate: speech.WhisperRate}
	quietRoom := speech.Audio{Samples: make([]float32, 8000), SampleRate: speech.WhisperRate}
	quietRoom.Samples[4000] = 1e-5
	short := speech.Audio{Samples: make([]float32, 1000), SampleRate: speech.WhisperRate}
	cases := []struct {
		name   string
		goos   string
		a      speech.Audio
		denied bool
	}{
		{"macOS, exact zeros", "darwin", silence, true},
		{"macOS, a quiet room", "darwin", quietRoom, false},
		{"macOS, too short to tell", "darwin", short, false},
		{"Linux, exact zeros (muted input)", "linux", silence, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := deniedPermission(tc.goos, "MacBook Pro Microphone", tc.a)
			if got := errors.Is(err, ErrPermission); got != tc.denied {
				t.Fatalf("denied = %v (%v), want %v", got, err, tc.denied)
			}
			if tc.denied {
				for _, w := range []string{"System Settings → Privacy & Security → Microphone", "lid is closed", "unplugged", "System Settings → Sound"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("message lacks %q: %v", w, err)
					}
				}
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.withDefaults()
	if o.Tail != 300*time.Millisecond || o.MaxLength != 60*time.Second || o.Stall <= 0 {
		t.Fatalf("defaults %+v", o)
	}
	if o := (Options{Tail: -1}).withDefaults(); o.Tail != 0 {
		t.Fatalf("negative tail gives %s, want none", o.Tail)
	}
}

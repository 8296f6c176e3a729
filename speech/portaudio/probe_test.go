package portaudio

import (
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech"
)

func TestProbeMicrophone(t *testing.T) {
	t.Parallel()
	devs := func(d ...Device) func() ([]Device, error) { return func() ([]Device, error) { return d, nil } }
	failing := func() ([]Device, error) { return nil, errors.New("PortAudio: no host API") }
	usb := Device{Name: "USB Mic"}
	builtin := Device{Name: "Built-in", Default: true}
	cases := []struct {
		name       string
		list       func() ([]Device, error)
		configured string
		goos       string
		ok         bool
		detail     string
		fix        string
		limited    bool
	}{
		{"default present", devs(usb, builtin), "", "linux", true, `default "Built-in" (2 input devices)`, "", false},
		{"configured present", devs(usb, builtin), "USB Mic", "linux", true, `"USB Mic" (from settings`, "", false},
		{"one device", devs(builtin), "", "linux", true, "(1 input device)", "", false},
		{"configured absent", devs(builtin), "USB Mic", "linux", false, "not connected", `"microphone"`, false},
		{"none", devs(), "", "darwin", false, "no input device", "Privacy & Security", false},
		{"no default", devs(usb), "", "linux", false, "no default", "sound settings", true},
		{"listing fails", failing, "", "linux", false, "no host API", "muted", false},
		{"build without audio", func() ([]Device, error) { return nil, ErrUnavailable }, "", "linux", false, "cannot record", "portaudio19-dev", false},
		{"build without audio on macOS", func() ([]Device, error) { return nil, ErrUnavailable }, "", "darwin", false, "cannot record", "brew install portaudio", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			detail, err := probeMicrophone(c.list, c.configured, c.goos)
			if c.ok {
				if err != nil || !strings.Contains(detail, c.detail) {
					t.Errorf("got %q, %v; want %q", detail, err, c.detail)
				}
				return
			}
			var pe *speech.ProbeError
			if !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.detail) || !strings.Contains(pe.Fix(), c.fix) || pe.Limited() != c.limited {
				t.Errorf("got %q, %#v; want %q, fix %q, limited %v", detail, err, c.detail, c.fix, c.limited)
			}
		})
	}
}

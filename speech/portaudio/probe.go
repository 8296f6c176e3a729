package portaudio

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/hark-sh/hark/speech"
)

// ProbeMicrophone is the microphone's line in `hark doctor`: an input
// device exists, which one is the default, and that configured (the
// "microphone" setting; "" for the system default) is connected.
func ProbeMicrophone(_ context.Context, configured string) (string, error) {
	return probeMicrophone(Devices, configured, runtime.GOOS)
}

func probeMicrophone(list func() ([]Device, error), configured, goos string) (string, error) {
	devs, err := list()
	if errors.Is(err, ErrUnavailable) {
		return "", &speech.ProbeError{Problem: "this build of Hark cannot record (built without cgo/PortAudio)", Next: buildFix(goos)}
	}
	if err != nil {
		return "", &speech.ProbeError{Problem: "cannot list microphones: " + err.Error(), Next: micFix(goos)}
	}
	if len(devs) == 0 {
		return "", &speech.ProbeError{Problem: "no input device found", Next: micFix(goos)}
	}
	count := fmt.Sprintf("%d input %s", len(devs), map[bool]string{true: "device", false: "devices"}[len(devs) == 1])
	def := ""
	for _, d := range devs {
		if d.Default {
			def = d.Name
		}
	}
	if configured != "" {
		for _, d := range devs {
			if d.Name == configured {
				return fmt.Sprintf("%q (from settings; %s)", configured, count), nil
			}
		}
		return "", &speech.ProbeError{Problem: fmt.Sprintf("the microphone %q in settings is not connected", configured),
			Next: "plug it in, or set \"microphone\" to \"\" (system default) or a name from `hark devices`"}
	}
	if def == "" {
		return "", &speech.ProbeError{Problem: count + " but no default one",
			Next: "choose a default input in the sound settings, or set \"microphone\" to a name from `hark devices`", Minor: true}
	}
	return fmt.Sprintf("default %q (%s)", def, count), nil
}

func micFix(goos string) string {
	if goos == "darwin" {
		return "connect a microphone, and allow Hark in System Settings › Privacy & Security › Microphone"
	}
	return "connect a microphone and check it is not muted (pactl list short sources; alsamixer)"
}

func buildFix(goos string) string {
	if goos == "darwin" {
		return "brew install portaudio pkgconf, then `make build`"
	}
	return "sudo apt-get install portaudio19-dev pkg-config, then `make build`"
}

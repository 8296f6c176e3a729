// Package portaudio records from a microphone through PortAudio
// (github.com/gordonklaus/portaudio, cgo). A Recorder starts quickly, keeps a
// short tail after Stop so the last word is not clipped, stops by itself at a
// maximum length, and turns every failure (no device, a device unplugged
// mid-recording, a denied microphone permission) into an error that says how
// to fix it, leaving the Recorder ready for the next Start.
//
// Without cgo the package still builds: every call returns ErrUnavailable.
package portaudio

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/hark-sh/hark/speech"
)

// Errors callers branch on. Each is wrapped with details and the fix.
var (
	// ErrUnavailable: this build of Hark has no PortAudio (built without cgo).
	ErrUnavailable = errors.New("microphone capture is not available in this build (built without cgo); build Hark with cgo and PortAudio installed (macOS: brew install portaudio; Debian/Ubuntu: apt install portaudio19-dev)")
	// ErrNoDevice: no input device, or none with the requested name.
	ErrNoDevice = errors.New("no microphone found")
	// ErrDeviceLost: the device stopped delivering audio mid-recording.
	ErrDeviceLost = errors.New("the microphone stopped delivering audio")
	// ErrPermission: the OS gave Hark only silence, which on macOS is how a
	// denied microphone permission shows itself.
	ErrPermission = errors.New("microphone access is denied")
	// ErrBusy: Start was called while a recording is running.
	ErrBusy = errors.New("already recording")
	// ErrNotRecording: Stop was called without a running recording.
	ErrNotRecording = errors.New("not recording")
)

// permissionFix is the advice attached to errors a missing permission can cause.
func permissionFix() string {
	if runtime.GOOS == "darwin" {
		return "allow Hark (or the terminal you run it from) in System Settings → Privacy & Security → Microphone, then try again"
	}
	return "check that the input device exists, is not muted, and that your user may use audio devices (e.g. member of the audio group, PulseAudio/PipeWire running)"
}

// Options configure a Recorder. Zero values pick the defaults.
type Options struct {
	// Device is an input device name as `hark devices` lists it; "" is the
	// system default. An exact match wins, otherwise a unique
	// case-insensitive substring.
	Device string
	// Tail is how long capture continues after Stop (default 300 ms);
	// negative means none.
	Tail time.Duration
	// MaxLength stops capture by itself (default 60 s).
	MaxLength time.Duration
	// OnAutoStop, if set, is called (from another goroutine) when capture
	// ends without Stop: the maximum length was reached (err nil), the
	// context was cancelled, or the device was lost. The caller still calls
	// Stop to collect the audio.
	OnAutoStop func(err error)
	// Stall is how long the device may deliver nothing before it counts as
	// lost (default 2 s after the first samples, 5 s before them).
	Stall time.Duration
}

func (o Options) withDefaults() Options {
	if o.Tail == 0 {
		o.Tail = 300 * time.Millisecond
	}
	if o.Tail < 0 {
		o.Tail = 0
	}
	if o.MaxLength <= 0 {
		o.MaxLength = 60 * time.Second
	}
	if o.Stall <= 0 {
		o.Stall = 2 * time.Second
	}
	return o
}

// Device describes one input device.
type Device struct {
	Name       string
	HostAPI    string
	Channels   int     // maximum input channels
	SampleRate float64 // the device's default rate
	Default    bool    // the system's default input
}

// Stats describe the last recording, for `hark record -v` and the logs.
type Stats struct {
	Device      string
	DeviceRate  int           // rate the stream was opened at
	Channels    int           // channels the stream was opened with
	StartDelay  time.Duration // Start call → Start returned
	FirstSample time.Duration // Start call → first samples delivered
	Captured    time.Duration // audio captured, tail included
	Overflows   int           // input overflows (samples lost to a busy CPU; not fatal)
	StoppedBy   string        // "stop", "max-length", "cancel", "device-lost"
}

// deniedPermission recognises how macOS answers an app that may not use the
// microphone: the stream opens, then delivers exact zeros. A microphone that
// is there but disconnected (a closed lid, an unplugged headset) looks the
// same, so the message names both. Real microphones
// always carry some noise, so a quarter second of digital silence on macOS
// means the permission is missing. Elsewhere silence is just silence (a
// muted input), and the speech gate deals with it.
func deniedPermission(goos, device string, a speech.Audio) error {
	if goos != "darwin" || a.Duration() < 250*time.Millisecond {
		return nil
	}
	for _, v := range a.Samples {
		if v != 0 {
			return nil
		}
	}
	return fmt.Errorf("%q delivered only digital silence: either %w (allow Hark, or the terminal you run it from, in System Settings → Privacy & Security → Microphone), "+
		"or the microphone is off: a MacBook's built-in microphone is disconnected while its lid is closed, and a headset or USB microphone may have been unplugged "+
		"(choose another input in System Settings → Sound); then try again", device, ErrPermission)
}

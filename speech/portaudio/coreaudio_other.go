//go:build !(darwin && cgo)

package portaudio

// systemDefaultInput cannot say on this system: PortAudio's own default
// (PulseAudio's, on Linux, which follows the desktop) stands.
func systemDefaultInput() (uint32, bool) { return 0, false }

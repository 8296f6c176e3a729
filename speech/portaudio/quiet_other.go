//go:build cgo && !linux

package portaudio

// quietStderr does nothing where PortAudio's host APIs are quiet.
func quietStderr() func() { return func() {} }

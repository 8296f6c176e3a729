//go:build cgo && linux

package portaudio

import (
	"os"
	"syscall"
)

// quietStderr silences file descriptor 2 while PortAudio probes its host
// APIs: on Linux, ALSA and JACK print dozens of lines about devices and
// servers that do not exist ("ALSA lib pcm.c: Unknown PCM…", "jack server is
// not running…"), which would bury Hark's own messages. HARK_AUDIO_DEBUG=1
// keeps them. It returns the function that restores stderr.
func quietStderr() func() {
	if os.Getenv("HARK_AUDIO_DEBUG") != "" {
		return func() {}
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	saved, err := syscall.Dup(2)
	if err != nil {
		null.Close()
		return func() {}
	}
	if err := syscall.Dup3(int(null.Fd()), 2, 0); err != nil {
		syscall.Close(saved)
		null.Close()
		return func() {}
	}
	null.Close()
	return func() {
		syscall.Dup3(saved, 2, 0)
		syscall.Close(saved)
	}
}

//go:build darwin && cgo

package portaudio

/*
#cgo LDFLAGS: -framework CoreAudio
#include <CoreAudio/CoreAudio.h>

static OSStatus harkDefaultInput(AudioObjectID *id) {
	AudioObjectPropertyAddress a = {
		kAudioHardwarePropertyDefaultInputDevice,
		kAudioObjectPropertyScopeGlobal,
		kAudioObjectPropertyElementMain,
	};
	UInt32 size = sizeof(*id);
	return AudioObjectGetPropertyData(kAudioObjectSystemObject, &a, 0, NULL, &size, id);
}
*/
import "C"

// systemDefaultInput is CoreAudio's default input device now, which
// PortAudio's own default does not follow after it initialises.
func systemDefaultInput() (uint32, bool) {
	var id C.AudioObjectID
	if C.harkDefaultInput(&id) != 0 {
		return 0, false
	}
	return uint32(id), true
}

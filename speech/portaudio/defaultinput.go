package portaudio

// defaultTracker notices that the system's default input has moved since
// PortAudio last listed the devices. PortAudio fixes its device list and
// its default at initialise, so AirPods or a USB headset connected after
// Hark started, and made the default by macOS, were never used: Hark kept
// recording from the microphone it saw first.
type defaultTracker struct {
	id    uint32 // the system's default input at the last scan
	known bool
}

// changed reports whether id (ok false: the system cannot say) differs
// from the default at the last scan. The first answer only records it.
func (t *defaultTracker) changed(id uint32, ok bool) bool {
	if !ok {
		return false
	}
	if !t.known {
		t.id, t.known = id, true
		return false
	}
	return id != t.id
}

// scanned records the default the devices were listed with.
func (t *defaultTracker) scanned(id uint32, ok bool) {
	if ok {
		t.id, t.known = id, true
	}
}

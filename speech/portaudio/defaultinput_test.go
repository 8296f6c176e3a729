package portaudio

import "testing"

// A rescan is due once the system's default input moves, and only then: a
// rescan that could not run (a stream was open) leaves it due, and a
// system that cannot say never asks for one.
func TestDefaultTrackerAsksForRescans(t *testing.T) {
	t.Parallel()
	var tr defaultTracker
	if tr.changed(71, true) {
		t.Error("the first look asked for a rescan")
	}
	if tr.changed(71, true) {
		t.Error("an unchanged default asked for a rescan")
	}
	if !tr.changed(95, true) { // AirPods connected and made the default
		t.Fatal("a new default did not ask for a rescan")
	}
	// The rescan could not run: still due next time.
	if !tr.changed(95, true) {
		t.Error("a rescan that did not happen is no longer due")
	}
	tr.scanned(95, true)
	if tr.changed(95, true) {
		t.Error("a rescan with the new default is still due")
	}
	if tr.changed(0, false) {
		t.Error("a system that cannot name its default asked for a rescan")
	}
}

package main

import "testing"

// App Nap is held off from the start of a turn to its end, once per turn
// however often the core repeats itself, and let back in at the end.
func TestEscapeProxyHoldsOffAppNapDuringATurn(t *testing.T) {
	t.Parallel()
	begun, ended := 0, 0
	p := &escapeProxy{begin: func(string) func() { begun++; return func() { ended++ } }}
	p.SetGrabbed(false) // idle at start: nothing to end
	for _, on := range []bool{true, true, false, false, true, false} {
		p.SetGrabbed(on)
	}
	if begun != 2 || ended != 2 {
		t.Errorf("began %d, ended %d activities over two turns; want 2 and 2", begun, ended)
	}
	p.SetGrabbed(true)
	if begun != 3 || ended != 2 {
		t.Errorf("a third turn: began %d, ended %d; want 3 and 2 (held while it runs)", begun, ended)
	}
}

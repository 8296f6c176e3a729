//go:build cgo

package portaudio

import (
	"testing"

	pa "github.com/gordonklaus/portaudio"
)

// TestCallbackOverflowNotFatal drives the audio callback directly: a buffer
// flagged InputOverflowed is counted and kept, the recording goes on, and
// nothing is stored beyond the maximum length plus tail.
func TestCallbackOverflowNotFatal(t *testing.T) {
	t.Parallel()
	c := &capture{limit: 10, tail: 2, target: 10, first: make(chan struct{}), reached: make(chan struct{}, 1)}
	buf := []float32{0.1, 0.2, 0.3, 0.4}
	c.callback(buf, pa.StreamCallbackTimeInfo{}, 0)
	select {
	case <-c.first:
	default:
		t.Fatal("first samples not signalled")
	}
	c.callback(buf, pa.StreamCallbackTimeInfo{}, pa.InputOverflow)
	if c.overflows != 1 || len(c.buf) != 8 {
		t.Fatalf("after an overflow: %d overflows, %d samples; want 1 and 8", c.overflows, len(c.buf))
	}
	c.callback(buf, pa.StreamCallbackTimeInfo{}, 0)
	if len(c.buf) != 10 {
		t.Fatalf("%d samples stored, want the 10 of the maximum length", len(c.buf))
	}
	select {
	case <-c.reached:
	default:
		t.Fatal("maximum length not signalled")
	}

	// After Stop at sample 4 the tail of 2 is kept, and nothing more.
	c = &capture{limit: 10, tail: 2, target: 10, first: make(chan struct{}), reached: make(chan struct{}, 1)}
	c.callback(buf, pa.StreamCallbackTimeInfo{}, 0)
	c.target = len(c.buf) + c.tail
	c.callback(buf, pa.StreamCallbackTimeInfo{}, 0)
	if len(c.buf) != 6 {
		t.Fatalf("%d samples stored after Stop, want 4 + the tail of 2", len(c.buf))
	}
}

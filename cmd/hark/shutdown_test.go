package main

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// The AppKit quit path (logout, Activity Monitor, `quit app "Hark"`) ends
// in exit() right after onExit, so shutdown must do all of it: cancel the
// core, wait for it, run the closers exactly once however often close is
// reached, and not hang on a core that does not stop.
func TestShutdownStopsTheCoreThenCloses(t *testing.T) {
	t.Parallel()
	t.Run("the core stops", func(t *testing.T) {
		t.Parallel()
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		var order []string
		go func() { // the core: ends when its context does
			<-ctx.Done()
			order = append(order, "core stopped")
			close(done)
		}()
		w := &wiring{}
		closed := 0
		w.onClose(func() { closed++; order = append(order, "closed") })
		// A grace no loaded machine can run out of: the core stops as soon
		// as it is cancelled.
		if !shutdown(stop, done, time.Hour, w.close, slog.New(slog.DiscardHandler)) {
			t.Error("shutdown reported a core that stopped as late")
		}
		w.close() // runApp's defer, after the tray returned
		if closed != 1 {
			t.Errorf("closers ran %d times, want once", closed)
		}
		if len(order) != 2 || order[0] != "core stopped" || order[1] != "closed" {
			t.Errorf("order %q, want the core stopped before the closers ran", order)
		}
	})
	t.Run("the core hangs", func(t *testing.T) {
		t.Parallel()
		stopped := false
		w := &wiring{}
		closed := 0
		w.onClose(func() { closed++ })
		never := make(chan struct{})
		if shutdown(func() { stopped = true }, never, time.Millisecond, w.close, slog.New(slog.DiscardHandler)) {
			t.Error("shutdown reported a core that never stopped as stopped")
		}
		if !stopped || closed != 1 {
			t.Errorf("stopped %v, closers ran %d times; want cancelled and closed once anyway", stopped, closed)
		}
	})
}

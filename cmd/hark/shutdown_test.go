package main

import (
	"context"
	"log/slog"
	"sync/atomic"
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
		killed := 0
		if !shutdown(stop, done, time.Hour, func() int { killed++; return 0 }, w.close, slog.New(slog.DiscardHandler)) {
			t.Error("shutdown reported a core that stopped as late")
		}
		if killed != 0 {
			t.Error("shutdown killed the commands of a core that stopped in time")
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
		// A command that ignores SIGTERM holds the core past the grace:
		// its group gets SIGKILL before the closers, the last thing before
		// AppKit's exit().
		var order []string
		w.onClose(func() { order = append(order, "closed") })
		kill := func() int { order = append(order, "killed"); return 1 }
		if shutdown(func() { stopped = true }, never, time.Millisecond, kill, w.close, slog.New(slog.DiscardHandler)) {
			t.Error("shutdown reported a core that never stopped as stopped")
		}
		if !stopped || closed != 1 {
			t.Errorf("stopped %v, closers ran %d times; want cancelled and closed once anyway", stopped, closed)
		}
		if len(order) != 2 || order[0] != "killed" || order[1] != "closed" {
			t.Errorf("order %q, want the running commands killed, then the closers", order)
		}
	})
}

// mainThread models macOS's main thread: one goroutine that runs what is
// posted to it, one at a time. While it runs onExit nothing else posted to
// it runs, which is where AppKit's quit calls shutdown.
type mainThread chan func()

func (m mainThread) loop() {
	for f := range m {
		f()
	}
}

// needsMain is a closer like the Carbon hotkey's unregistering or the
// tray's last render: it posts its work to the main thread and waits for it.
func (m mainThread) needsMain(ran *atomic.Int32) func() {
	return func() {
		done := make(chan struct{})
		m <- func() { ran.Add(1); close(done) }
		<-done
	}
}

// Quitting from outside (AppKit's terminate calls onExit on the main
// thread) and the menu's Quit (close runs on the main goroutine after the
// event loop stopped) must both finish every closer without the main
// thread: one that needs it is posted and not waited for.
func TestShutdownNeverWaitsOnTheMainThread(t *testing.T) {
	t.Parallel()
	main := make(mainThread, 8)
	go main.loop()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { <-ctx.Done(); close(done) }()
	w := &wiring{mainBound: true}
	var order []string
	var hotkey, menu atomic.Int32
	w.onClose(func() { order = append(order, "log") })
	w.onCloseMain(main.needsMain(&menu))
	w.onClose(func() { order = append(order, "notifications") })
	w.onCloseMain(main.needsMain(&hotkey))
	exited := make(chan bool, 1)
	main <- func() { // AppKit's applicationWillTerminate
		exited <- shutdown(stop, done, time.Hour, func() int { return 0 }, w.close, slog.New(slog.DiscardHandler))
	}
	select {
	case ok := <-exited:
		if !ok {
			t.Error("shutdown reported the core late")
		}
	case <-time.After(time.Minute): // a failure detector, not a bound
		t.Fatal("onExit never returned: a closer waited for the main thread it was blocking")
	}
	if len(order) != 2 || order[0] != "notifications" || order[1] != "log" {
		t.Errorf("closers that need no main thread ran %q, want notifications then log", order)
	}
	// Once onExit returns the main thread is free again and what was posted
	// runs (on a Mac the process may exit first; Carbon keys die with it).
	give := time.After(time.Minute) // a failure detector, not a bound
	for hotkey.Load() == 0 || menu.Load() == 0 {
		select {
		case <-give:
			t.Fatalf("posted closers never ran once the main thread was free: hotkey %d, menu %d", hotkey.Load(), menu.Load())
		case <-time.After(time.Millisecond):
		}
	}
	w.close() // runApp's defer: nothing runs twice
	if hotkey.Load() != 1 || menu.Load() != 1 || len(order) != 2 {
		t.Errorf("closers ran again on the second close: %q, hotkey %d, menu %d", order, hotkey.Load(), menu.Load())
	}
}

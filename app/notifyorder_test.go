package app

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// slowNotifier holds the first post until the second one arrives or a
// moment passes, and records the order the server saw.
type slowNotifier struct {
	mu     sync.Mutex
	order  []string
	second chan struct{}
	done   chan struct{}
}

func (s *slowNotifier) Notify(title, _ string) error {
	if title == "Model downloaded" {
		select {
		case <-s.second: // overtaken
		case <-time.After(300 * time.Millisecond):
		}
	} else {
		close(s.second)
	}
	s.mu.Lock()
	s.order = append(s.order, title)
	done := len(s.order) == 2
	s.mu.Unlock()
	if done {
		close(s.done)
	}
	return nil
}

// Notifications reach the desktop in the order the app posted them: a
// slow server must not let "the answer" overtake "the model is ready,
// Hark now transcribes what you said" (nor any later post an earlier
// one), whatever the scheduler does.
func TestNotificationsKeepTheirOrder(t *testing.T) {
	n := &slowNotifier{second: make(chan struct{}), done: make(chan struct{})}
	a := &App{o: Options{Notifier: n}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a.notify("Model downloaded", "base.en is ready.")
	a.notify("Answer", "you have 3 downloads")
	<-n.done
	if n.order[0] != "Model downloaded" || n.order[1] != "Answer" {
		t.Fatalf("the desktop saw %q", n.order)
	}
}

package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInotifySeesEverySave: each way an editor saves settings.json —
// in place, rename over, delete — is a file event; a file beside it that
// is not watched is not.
func TestInotifySeesEverySave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := fileEvents(ctx, []string{path}, slog.New(slog.DiscardHandler))
	if events == nil {
		t.Skip("inotify is not available here (the periodic look is the fallback)")
	}
	// drain takes what is waiting, so each save is judged by itself.
	drain := func() {
		for {
			select {
			case <-events:
			case <-time.After(50 * time.Millisecond):
				return
			}
		}
	}
	saves := []struct {
		name string
		do   func() error
	}{
		{"in place", func() error { return os.WriteFile(path, []byte(`{"speak": true}`), 0o600) }},
		{"rename over", func() error {
			if err := os.WriteFile(path+".tmp", []byte(`{"speak": false}`), 0o600); err != nil {
				return err
			}
			return os.Rename(path+".tmp", path)
		}},
		{"delete", func() error { return os.Remove(path) }},
	}
	for _, s := range saves {
		drain()
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-events:
		case <-time.After(waitTimeout):
			t.Fatalf("%s: no file event", s.name)
		}
	}
	drain()
	if err := os.WriteFile(filepath.Join(dir, "other.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-events:
		t.Error("a file that is not watched gave an event")
	case <-time.After(200 * time.Millisecond):
	}
}

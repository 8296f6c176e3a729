package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/logs"
	"github.com/hark-sh/hark/app/settings"
)

type recordingNotifier struct {
	mu    sync.Mutex
	notes []string
	got   chan struct{}
}

func (r *recordingNotifier) Notify(title, body string) error {
	r.mu.Lock()
	r.notes = append(r.notes, title+": "+body)
	r.mu.Unlock()
	r.got <- struct{}{}
	return nil
}

// A second launch, as macOS starts it (stderr unseen), must leave a trace:
// the running app posts "Hark is already running", and the refused launch
// writes why to the log file before it exits 1.
func TestSecondLaunchNotifiesTheFirstAndLogs(t *testing.T) {
	base, err := os.MkdirTemp("", "hk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	t.Setenv("HARK_HOME", base)
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(base, "xdg"))
	paths, err := settings.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(paths.Logs, 0o700); err != nil {
		t.Fatal(err)
	}

	// The running app: the lock, and its control socket with the notice.
	release, err := control.AcquireInstanceLock(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	n := &recordingNotifier{got: make(chan struct{}, 1)}
	srv.OnAnotherLaunch(alreadyRunningNotice(n, slog.New(slog.DiscardHandler)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, func(app.Event) bool { return true })

	var stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr}
	if code := runApp(ctx, e, nil); code != exitError {
		t.Fatalf("second launch exit %d, want %d", code, exitError)
	}
	select {
	case <-n.got:
	case <-time.After(5 * time.Second):
		t.Fatal("the running app posted no notification")
	}
	if want := "Already running: Look for its icon in "; !strings.HasPrefix(n.notes[0], want) {
		t.Errorf("notification %q, want it to start %q", n.notes[0], want)
	}
	if !strings.Contains(stderr.String(), "already running") {
		t.Errorf("stderr %q does not say Hark is already running", stderr.String())
	}
	log, err := os.ReadFile(logs.File(paths))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "another launch refused") || !strings.Contains(string(log), "pid="+strconv.Itoa(os.Getpid())) {
		t.Errorf("log file lacks the refusal with the running pid:\n%s", log)
	}

	// With the lock held but no socket answering, the log still says so.
	srv.Close()
	stderr.Reset()
	if code := runApp(ctx, e, nil); code != exitError {
		t.Fatalf("second launch without a socket: exit %d, want %d", code, exitError)
	}
	log, _ = os.ReadFile(logs.File(paths))
	if !strings.Contains(string(log), "did not answer on its control socket") {
		t.Errorf("log file lacks the unanswered announcement:\n%s", log)
	}
}

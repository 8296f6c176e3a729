package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/hotkey"
)

// escapeProxy is the core's EscapeGrabber before the Escape key exists:
// the core is built before the tray is up, and the key can only be
// prepared from the tray's ready callback. It remembers the last wish and
// hands it on once the key is attached.
type escapeProxy struct {
	mu   sync.Mutex
	key  *hotkey.EscapeKey
	want bool
	// begin holds off App Nap while Escape is wanted, which is while a
	// turn runs (listening, transcribing, thinking): desktop.BeginActivity
	// on macOS, nil in tests that do not care. end lets it back in.
	begin func(reason string) (end func())
	end   func()
}

func (p *escapeProxy) SetGrabbed(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.want = on
	if p.key != nil {
		p.key.SetGrabbed(on)
	}
	switch {
	case on && p.end == nil && p.begin != nil:
		p.end = p.begin("Hark is answering a spoken request")
	case !on && p.end != nil:
		p.end()
		p.end = nil
	}
}

func (p *escapeProxy) attach(k *hotkey.EscapeKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key = k
	k.SetGrabbed(p.want)
}

// runEscape prepares Escape and turns its presses into app.Escape until
// ctx ends. Without it Hark still works; Cancel in the menu remains.
func runEscape(ctx context.Context, proxy *escapeProxy, core *app.App, log *slog.Logger) {
	key, err := hotkey.NewEscapeKey(func(err error) { log.Warn("escape key", "err", err) })
	if err != nil {
		log.Info("Escape will not cancel", "err", err)
		return
	}
	defer key.Close()
	proxy.attach(key)
	log.Info("escape key ready")
	for {
		select {
		case ev, ok := <-key.Events():
			if !ok {
				return
			}
			if ev.Kind == hotkey.Down && !core.Post(app.Escape{}) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// cuePlayer renders the cues into Hark's cache folder: under HARK_HOME
// when it is set (so a test or a second profile keeps to itself),
// otherwise the OS cache folder.
func cuePlayer() *desktop.CuePlayer {
	dir := filepath.Join(os.TempDir(), "hark-cues")
	if h := os.Getenv("HARK_HOME"); h != "" {
		dir = filepath.Join(h, "cache")
	} else if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "hark")
	}
	return &desktop.CuePlayer{Dir: dir}
}

// speaker finds the system's speech program for the speak setting; nil
// (Hark stays silent, and says why in the log) when there is none. The
// setting may be switched on later, so the program is looked for even
// while it is off.
func speaker(language string, log *slog.Logger) app.Speaker {
	s, err := desktop.FindSpeaker(runtime.GOOS, language, exec.LookPath, os.Getenv)
	if err != nil {
		log.Info("spoken replies are unavailable", "err", err)
		return nil
	}
	return s
}

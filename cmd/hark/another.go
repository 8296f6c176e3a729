package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/logs"
	"github.com/hark-sh/hark/app/settings"
)

// announceTimeout bounds how long a refused launch waits for the running
// app to acknowledge it; the answer only decides what the log says.
const announceTimeout = 3 * time.Second

// anotherLaunch is what a launch does when another Hark app already holds
// the instance lock. Started from Finder, the Dock or `open`, its stderr
// goes nowhere, so it tells the running app (which posts "Hark is already
// running") and writes the refusal to the log file before exiting.
func anotherLaunch(ctx context.Context, e *env, paths settings.Paths, verbose bool) int {
	log, closeLog, err := logs.Setup(paths, verbose)
	if err != nil {
		log = slog.New(logs.NewHandler(e.stderr, slog.LevelInfo))
		closeLog = io.NopCloser(nil)
	}
	defer closeLog.Close()
	holder := lockHolder(paths.Runtime)
	actx, cancel := context.WithTimeout(ctx, announceTimeout)
	defer cancel()
	if err := control.Announce(actx, paths.Runtime); err != nil {
		log.Warn("another launch refused: Hark is already running, but it did not answer on its control socket",
			"pid", holder, "err", err)
	} else {
		log.Info("another launch refused: Hark is already running and was asked to say so", "pid", holder)
	}
	fmt.Fprintln(e.stderr, "hark:", control.ErrAlreadyRunning)
	return exitError
}

// lockHolder is the pid the running app wrote into its lock file, or ""
// when it cannot be read (the lock itself is the flock, not this text).
func lockHolder(runtimeDir string) string {
	b, err := os.ReadFile(filepath.Join(runtimeDir, "hark.lock"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// alreadyRunningNotice is what the running app does when another launch
// announces itself: a notification where the user looks (the launch came
// from a click) and a log line.
func alreadyRunningNotice(n app.Notifier, log *slog.Logger) func() {
	return func() {
		log.Info("another launch of Hark was refused; this one keeps running")
		if n == nil {
			return
		}
		if err := n.Notify("Already running", alreadyRunningBody()); err != nil {
			log.Warn("could not post the already-running notification", "err", err)
		}
	}
}

func alreadyRunningBody() string {
	msg := control.ErrAlreadyRunning.Error()
	if _, rest, ok := strings.Cut(msg, " — "); ok {
		return strings.ToUpper(rest[:1]) + rest[1:] + "."
	}
	return msg
}

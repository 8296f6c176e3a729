//go:build !linux

package app

import (
	"context"
	"log/slog"
)

// fileEvents is nil where Hark has no file-change notification: the
// periodic look sees every change.
func fileEvents(context.Context, []string, *slog.Logger) <-chan struct{} { return nil }

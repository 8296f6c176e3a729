//go:build darwin && cgo

package tray

import "context"

// Check reports whether a tray can be shown: the macOS menu bar always can
// in a cgo build.
func Check() error { return nil }

// ProbeHost is the tray's line in `hark doctor`: the macOS menu bar is
// always the host.
func ProbeHost(context.Context) (string, error) { return "macOS menu bar", nil }

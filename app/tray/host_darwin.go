//go:build darwin && cgo

package tray

// Check reports whether a tray can be shown: the macOS menu bar always can
// in a cgo build.
func Check() error { return nil }

// HostProblem is always empty on macOS: the menu bar is the host.
func HostProblem() string { return "" }

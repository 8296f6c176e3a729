//go:build !linux

package shell

// scratchDetail adds nothing on macOS: the disk quota is the disk watch's
// there (see docs/safety.md).
func scratchDetail() string { return "" }

//go:build !unix

package sandbox

// HardenProcess does nothing where Hark does not run commands through a
// Unix shell.
func HardenProcess(int) {}

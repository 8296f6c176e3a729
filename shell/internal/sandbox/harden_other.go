//go:build unix && !linux

package sandbox

import (
	"syscall"
)

// HardenProcess is called once at the start of Hark. Every descriptor above
// from that the process inherited is marked close-on-exec, so none reaches
// a command. macOS has no close_range, so the low range is walked; Hark's
// own descriptors are opened close-on-exec by Go.
func HardenProcess(from int) {
	for fd := from; fd < 1024; fd++ {
		syscall.CloseOnExec(fd)
	}
}

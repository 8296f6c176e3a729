//go:build unix && !linux

package shell

import "golang.org/x/sys/unix"

// pinOpen is how a folder is opened to be held. macOS has no O_PATH, so a
// folder that cannot be read cannot be held there: it is refused, never
// run in by its path.
const pinOpen = unix.O_RDONLY

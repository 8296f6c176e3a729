//go:build linux

package shell

import "golang.org/x/sys/unix"

// pinOpen is how a folder is opened to be held: O_PATH asks only to search
// it, not to read it, so a folder the user may enter but not list (mode
// 0711, as many home folders are) is held like any other. The command
// starts in it through /proc/self/fd, which O_PATH leaves usable.
const pinOpen = unix.O_PATH

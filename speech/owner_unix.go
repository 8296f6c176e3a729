//go:build unix

package speech

import (
	"os"
	"syscall"
)

// ownedByMe reports whether fi belongs to the user Hark runs as.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

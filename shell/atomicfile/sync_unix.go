//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// Some filesystems refuse fsync on a directory; durability is then best effort.
func isSyncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}

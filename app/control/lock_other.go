//go:build !unix

package control

import "errors"

// AcquireInstanceLock is only implemented for macOS and Linux.
func AcquireInstanceLock(runtimeDir string) (release func(), err error) {
	return nil, errors.New("the Hark app runs on macOS and Linux only")
}

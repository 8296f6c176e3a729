//go:build !linux && !darwin

package control

import (
	"errors"
	"net"
)

// peerUID cannot tell who connected on this OS, so every connection is
// refused rather than trusted.
func peerUID(c *net.UnixConn) (int, error) {
	return -1, errors.New("checking who connected to the control socket is not supported on this OS")
}

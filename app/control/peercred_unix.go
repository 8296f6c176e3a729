//go:build linux || darwin

package control

import "net"

// peerUID is the user id of the process at the other end of c, as the kernel
// recorded it at connect time (fdPeerUID asks it the OS's own way).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = fdPeerUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, credErr
}

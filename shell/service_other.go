//go:build !unix

package shell

import (
	"errors"
	"net"
)

// Service is a long-lived sandboxed program; Hark confines nothing on
// this OS, so none starts.
type Service struct{}

// StartService fails: there is no sandbox here.
func (*Runner) StartService([]string) (*Service, error) { return nil, errors.ErrUnsupported }

// Conn is nil: no service runs.
func (*Service) Conn() net.Conn { return nil }

// Done is closed: there is nothing to wait for.
func (*Service) Done() <-chan struct{} { c := make(chan struct{}); close(c); return c }

// Close has nothing to end.
func (*Service) Close() {}

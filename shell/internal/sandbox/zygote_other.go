//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"io"
	"time"
)

// Zygote stands in for Linux's long-lived command runner; only Linux has
// one, so elsewhere commands start directly.
type Zygote struct{}

// ZygoteFor always fails: there is no zygote on this OS.
func ZygoteFor(string, func() []string) (*Zygote, error) {
	return nil, errors.ErrUnsupported
}

// MountsZygoteFor always fails: there is no zygote on this OS.
func MountsZygoteFor(string, func() []string) (*Zygote, error) {
	return nil, errors.ErrUnsupported
}

// Run never reaches a zygote.
func (*Zygote) Run(context.Context, Spec, io.Writer, io.Writer) (Outcome, bool) {
	return Outcome{}, false
}

// PID is 0: no process serves.
func (*Zygote) PID() int { return 0 }

// Done is closed: there is nothing to wait for.
func (*Zygote) Done() <-chan struct{} { return closed }

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// StopZygote has nothing to stop.
func StopZygote(string, time.Duration) error { return nil }

//go:build darwin && !cgo

package tray

import (
	"context"
	"fmt"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/doctor"
)

// New returns a Tray whose drawing goes nowhere: without cgo there is no
// menu bar on macOS. Run reports why.
func New(o Options) *Tray { return newTray(nullBackend{}, o) }

// Run fails at once: the macOS menu bar needs cgo (AppKit).
func Run(onReady, onExit func()) error {
	return fmt.Errorf("%w: this build of Hark was made without cgo, which the macOS menu bar needs; rebuild with CGO_ENABLED=1 (make build)", ErrUnavailable)
}

// Quit does nothing without a tray.
func Quit() {}

type nullBackend struct{}

type nullHandle struct{}

// closed makes forwarding goroutines end at once.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (nullHandle) Clicked() <-chan struct{} { return closed }

func (nullBackend) reset()                                        {}
func (nullBackend) add(parent handle, it app.MenuItem) handle     { return nullHandle{} }
func (nullBackend) separator(parent handle)                       {}
func (nullBackend) update(h handle, it app.MenuItem)              {}
func (nullBackend) hide(h handle)                                 {}
func (nullBackend) show(h handle)                                 {}
func (nullBackend) setIcon(name string, regular, template []byte) {}
func (nullBackend) setTooltip(s string)                           {}
func (nullBackend) setTitle(s string)                             {}

// Check fails: the macOS menu bar needs cgo.
func Check() error { return Run(nil, nil) }

// ProbeHost says why there is no menu bar item in this build.
func ProbeHost(context.Context) (string, error) {
	return "", &doctor.Problem{Detail: Check().Error(),
		Next: "rebuild with cgo: `make build` (install a C compiler first with `xcode-select --install`)"}
}

//go:build !(linux || freebsd || netbsd || openbsd)

package hotkey

import "time"

// PortalOptions configure RegisterPortal; the portal is a freedesktop
// service, so elsewhere there is none.
type PortalOptions struct {
	Cancel       Combo
	Answer       time.Duration
	RepeatWindow time.Duration
}

// PortalListener is never made here.
type PortalListener struct{}

// RegisterPortal is ErrNoPortal off the freedesktop systems.
func RegisterPortal(c Combo, o PortalOptions) (*PortalListener, error) { return nil, ErrNoPortal }

func (l *PortalListener) Events() <-chan Event     { return nil }
func (l *PortalListener) Trigger(id string) string { return "" }
func (l *PortalListener) Changed() <-chan struct{} { return nil }
func (l *PortalListener) Close() error             { return nil }

// PortalAvailable is false off the freedesktop systems.
func PortalAvailable() error { return ErrNoPortal }

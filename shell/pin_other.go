//go:build !unix

package shell

import (
	"errors"
	"os"
)

// DirPin is a working directory held from approval; only Unix systems have
// one (see pin_unix.go).
type DirPin struct{ Path string }

// PinDir is unsupported here: Hark runs commands only on macOS and Linux.
func PinDir(dir string) (*DirPin, error) {
	return nil, errors.New("pinning a folder needs macOS or Linux")
}

func (p *DirPin) Changed() string { return "" }
func (p *DirPin) Close()          {}
func (p *DirPin) check() string   { return "" }
func (p *DirPin) dirPath() string { return p.Path }
func (p *DirPin) file() *os.File  { return nil }

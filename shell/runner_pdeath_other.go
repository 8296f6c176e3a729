//go:build !linux

package shell

import (
	"os/exec"
	"syscall"
)

// dieWithHark does nothing: only Linux has a parent-death signal, so
// elsewhere a command that is running when Hark is killed by SIGKILL keeps
// running (see docs/mcp.md). Any other way Hark ends stops it.
func dieWithHark(*exec.Cmd, syscall.Signal) {}

func lockThread() func() { return func() {} }

// ownMounts does nothing: only Linux's helper mounts a scratch file system.
func ownMounts(*exec.Cmd) {}

func holdMounts(*exec.Cmd) bool { return false }

// KeepsInside says whether a scope can keep a place inside one of its
// writable folders without closing that folder: Seatbelt denies a path
// inside an allowed one directly.
func KeepsInside() bool { return true }

package shell

import (
	"os/exec"
	"runtime"
	"syscall"

	"github.com/hark-sh/hark/shell/internal/sandbox"
)

// dieWithHark asks the kernel to send the process sig when Hark dies, even
// by SIGKILL, which nothing can catch: the helper gets SIGTERM and stops
// every descendant (see sandbox.HelperMain), a shell run directly gets
// SIGKILL. Linux sends it when the thread that forked the process ends, not
// the process, so the caller's goroutine keeps its thread (see lockThread)
// from before Start until Wait returns. Call it after setProcessGroup.
func dieWithHark(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.SysProcAttr.Pdeathsig = sig
}

// ownMounts starts the sandbox helper in a mount namespace of its own,
// where it can give the command a scratch file system of exactly the disk
// quota (see sandbox.CanMountScratch); only where that can work, since a
// start that fails is not retried.
func ownMounts(cmd *exec.Cmd) {
	if sandbox.CanMountScratch() {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNS
	}
}

// lockThread pins the calling goroutine to its thread, so that the thread a
// command was forked from lives as long as the command; the returned func
// undoes it.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// holdMounts starts the helper where it can hold a scope's kept places by
// read-only mounts (see sandbox.HoldMounts), and says whether it will.
func holdMounts(cmd *exec.Cmd) bool {
	if !sandbox.CanHoldMounts() {
		return false
	}
	sandbox.HoldMounts(cmd.SysProcAttr)
	return true
}

// KeepsInside says whether a scope can keep a place inside one of its
// writable folders without closing that folder (scope.Input.NoMounts):
// on Linux where the helper can hold mounts.
func KeepsInside() bool { return sandbox.CanHoldMounts() }

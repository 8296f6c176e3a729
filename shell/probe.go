package shell

import (
	"context"
	"runtime"
)

// ProbeSandbox is the sandbox's line in `hark doctor`: whether read-only
// commands run inside the OS sandbox. Hark runs without one (a Limited
// problem), but then commands that can run code from their configuration
// ask first, and the fix says how to get one.
func ProbeSandbox(context.Context) (string, error) {
	return probeSandbox(func() (bool, string) {
		ok, detail := SandboxStatus()
		if ok {
			detail += scratchDetail()
		}
		return ok, detail
	}, runtime.GOOS)
}

func probeSandbox(status func() (bool, string), goos string) (string, error) {
	ok, detail := status()
	if ok {
		return detail, nil
	}
	const asks = "without a sandbox, commands that can run code from their configuration (git, interpreters, package managers) ask before they run, and other read-only ones run unconfined"
	fix := asks + "; use a kernel with Landlock (Linux 5.13+, lsm=landlock) on x86-64 or arm64 to confine them"
	if goos == "darwin" {
		fix = asks + "; /usr/bin/sandbox-exec should exist on every macOS — check your PATH and SIP"
	}
	return "", &ProbeError{Problem: detail, Next: fix, Minor: true}
}

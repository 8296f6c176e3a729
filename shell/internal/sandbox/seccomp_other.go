//go:build linux && !amd64

package sandbox

// deniedArchSyscalls is empty: arm64, the other architecture with a filter,
// has only the system calls that deniedSyscalls already names.
var deniedArchSyscalls []uintptr

// metaArchSyscalls is empty for the same reason.
var metaArchSyscalls []uintptr

//go:build linux && amd64

package abitest

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Int80 makes the 32-bit system call nr with three arguments and returns
// the kernel's raw result (a negative errno on failure). On a kernel built
// without 32-bit emulation, or booted with ia32_emulation=0, int $0x80 is
// a general-protection fault: call it only after Supported says yes.
func Int80(nr, a1, a2, a3 uintptr) int64

// Supported reports whether this kernel takes 32-bit system calls. It is a
// probe, not a build fact: the same x86-64 binary meets kernels with and
// without the entry. The probe makes one harmless call (getpid) on a locked
// thread with faults turned into panics, so a kernel without the entry
// costs a recovered panic rather than the process.
var Supported = sync.OnceValue(func() (ok bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return Int80(I386Getpid, 0, 0, 0) > 0
})

package abitest

import (
	"os"
	"testing"
)

// The probe answers on every kernel without taking the process down (a
// kernel without the entry turns int $0x80 into a fault, which the probe
// must absorb), and where it says yes the 32-bit table really answers:
// getpid through it is this process's pid.
func TestSupportedProbe(t *testing.T) {
	if !Supported() {
		t.Log("this kernel takes no 32-bit system calls (or this is not x86-64 Linux); the probe survived the fault")
		return
	}
	if got := Int80(I386Getpid, 0, 0, 0); got != int64(os.Getpid()) {
		t.Fatalf("32-bit getpid = %d, want %d", got, os.Getpid())
	}
}

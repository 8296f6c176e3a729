// Package abitest makes system calls through the other ABIs an x86-64
// Linux kernel accepts, so that the sandbox's tests can show those routes
// are closed: the 32-bit one (int $0x80, whose numbers and audit
// architecture differ) and x32 (native numbers with bit 30 set). Imported
// only by tests.
package abitest

// X32Bit marks an x32 system-call number.
const X32Bit = 0x40000000

// I386Socket is socket(2)'s number in the 32-bit table.
const I386Socket = 359

// I386Getpid is getpid(2)'s number in the 32-bit table.
const I386Getpid = 20

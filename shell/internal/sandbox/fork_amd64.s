//go:build linux && amd64

#include "textflag.h"

// func rawVfork(c unsafe.Pointer, stack uintptr) (pid, errno uintptr)
//
// clone(CLONE_VM|CLONE_VFORK|SIGCHLD, stack): the parent returns the child's
// PID once the child has executed a program or exited; the child starts on
// the given stack and calls childConfine(c), which never returns. R12 keeps
// c across the system call (the kernel preserves it) for the child.
TEXT ·rawVfork(SB),NOSPLIT|NOFRAME,$0-32
	MOVQ	c+0(FP), R12
	MOVQ	stack+8(FP), SI
	MOVQ	$0x4111, DI	// CLONE_VM (0x100) | CLONE_VFORK (0x4000) | SIGCHLD (17)
	XORQ	DX, DX		// parent_tid
	XORQ	R10, R10	// child_tid
	XORQ	R8, R8		// tls
	MOVQ	$56, AX		// SYS_clone
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	parent
	NEGQ	AX
	MOVQ	$0, pid+16(FP)
	MOVQ	AX, errno+24(FP)
	RET
parent:
	MOVQ	AX, pid+16(FP)
	MOVQ	$0, errno+24(FP)
	RET
child:
	// SP is the top of the child's own stack. The argument goes where an
	// ABI0 callee reads it, above the return address CALL pushes.
	SUBQ	$16, SP
	MOVQ	R12, 0(SP)
	CALL	·childConfine(SB)
exit:
	MOVQ	$127, DI
	MOVQ	$231, AX	// SYS_exit_group
	SYSCALL
	JMP	exit

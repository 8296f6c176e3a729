package sandbox

import (
	"os"

	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runFilter interprets the classic BPF subset the filter uses against one
// system call, as the kernel would, and returns the action.
func runFilter(t *testing.T, prog []unix.SockFilter, arch uint32, nr uintptr, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte // struct seccomp_data: nr, arch, ip, args[6]
	le32 := func(off int, v uint32) {
		data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	le32(0, uint32(nr))
	le32(4, arch)
	for i, a := range args {
		le32(16+8*i, uint32(a))
		le32(20+8*i, uint32(a>>32))
	}
	var acc, x uint32
	var mem [16]uint32
	for pc, steps := 0, 0; pc < len(prog); steps++ {
		if steps > len(prog) {
			t.Fatal("the filter loops")
		}
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			k := int(in.K)
			acc = uint32(data[k]) | uint32(data[k+1])<<8 | uint32(data[k+2])<<16 | uint32(data[k+3])<<24
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_ALU | unix.BPF_RSH | unix.BPF_K:
			acc >>= in.K
		case unix.BPF_ALU | unix.BPF_LSH | unix.BPF_X:
			acc <<= x
		case unix.BPF_LD | unix.BPF_IMM:
			acc = in.K
		case unix.BPF_LD | unix.BPF_MEM:
			acc = mem[in.K]
		case unix.BPF_ST:
			mem[in.K] = acc
		case unix.BPF_MISC | unix.BPF_TAX:
			x = acc
		case unix.BPF_MISC | unix.BPF_TXA:
			acc = x
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.K)
		case bpfJeq, bpfJge, bpfJset:
			taken := map[uint16]bool{bpfJeq: acc == in.K, bpfJge: acc >= in.K, bpfJset: acc&in.K != 0}[in.Code]
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
		pc++
	}
	t.Fatal("the filter fell off its end")
	return 0
}

// The filter, interpreted: every listed call gets its refusal, the checked
// ones depend on their arguments as documented, and everything else is
// allowed.
func TestSeccompFilterDecisions(t *testing.T) {
	t.Parallel()
	arch := nativeAuditArch()
	if arch == 0 {
		t.Skip("no filter for this architecture")
	}
	prog := buildSandboxFilter(arch, false)
	if len(prog) > 200 { // its length is paid on every sandboxed command (see buildSandboxFilter)
		t.Fatalf("%d instructions", len(prog))
	}
	eperm, eacces, enotty, enosys := seccompErrno(unix.EPERM), seccompErrno(unix.EACCES), seccompErrno(unix.ENOTTY), seccompErrno(unix.ENOSYS)
	for _, nr := range append(deniedSyscalls, deniedArchSyscalls...) {
		if got := runFilter(t, prog, arch, nr); got != eperm {
			t.Errorf("syscall %d: %#x, want EPERM", nr, got)
		}
	}
	const other = 12345
	tests := []struct {
		name string
		arch uint32
		nr   uintptr
		args []uint64
		want uint32
	}{
		{"read", arch, unix.SYS_READ, nil, seccompAllow},
		{"execve", arch, unix.SYS_EXECVE, nil, seccompAllow},
		{"openat", arch, unix.SYS_OPENAT, nil, seccompAllow},
		{"foreign architecture", 0x40000003, unix.SYS_READ, nil, eperm},
		{"x32 read", arch, x32SyscallBit | unix.SYS_READ, nil, eperm},
		{"socket", arch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, eacces},
		{"clone3", arch, unix.SYS_CLONE3, nil, enosys},
		{"fallocate", arch, unix.SYS_FALLOCATE, []uint64{3, 0, 0, 10 << 30}, seccompErrno(unix.EOPNOTSUPP)},
		{"fallocate keeping the size", arch, unix.SYS_FALLOCATE, []uint64{3, unix.FALLOC_FL_KEEP_SIZE, 0, 10 << 30}, seccompErrno(unix.EOPNOTSUPP)},
		{"clone, a thread", arch, unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD}, seccompAllow},
		{"clone, a new user namespace", arch, unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
		{"clone, a new network namespace", arch, unix.SYS_CLONE, []uint64{unix.CLONE_NEWNET}, eperm},
		{"socketpair stream", arch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, seccompAllow},
		{"socketpair datagram", arch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, eacces},
		{"socketpair seqpacket", arch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET | unix.SOCK_CLOEXEC}, seccompAllow},
		{"ioctl TCGETS", arch, unix.SYS_IOCTL, []uint64{1, unix.TCGETS}, seccompAllow},
		{"ioctl TIOCGWINSZ", arch, unix.SYS_IOCTL, []uint64{1, unix.TIOCGWINSZ}, seccompAllow},
		{"ioctl TIOCSTI", arch, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, enotty},
		{"ioctl TIOCSTI with high bits", arch, unix.SYS_IOCTL, []uint64{0, 0xffffffff00000000 | unix.TIOCSTI}, enotty},
		{"ioctl TIOCLINUX", arch, unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX}, enotty},
		{"ioctl FS_IOC_SETFLAGS", arch, unix.SYS_IOCTL, []uint64{3, unix.FS_IOC_SETFLAGS}, enotty},
		{"ioctl FS_IOC_GETFLAGS", arch, unix.SYS_IOCTL, []uint64{3, unix.FS_IOC_GETFLAGS}, seccompAllow},
		{"prlimit on itself", arch, unix.SYS_PRLIMIT64, []uint64{0, unix.RLIMIT_NOFILE, 0x1000, 0}, seccompAllow},
		{"prlimit, reading another's", arch, unix.SYS_PRLIMIT64, []uint64{other, unix.RLIMIT_NOFILE, 0, 0x1000}, seccompAllow},
		{"prlimit, setting another's", arch, unix.SYS_PRLIMIT64, []uint64{other, unix.RLIMIT_NOFILE, 0x1000, 0}, eperm},
		{"prlimit, another's with a high pid word", arch, unix.SYS_PRLIMIT64, []uint64{1 << 32, unix.RLIMIT_NOFILE, 0x1000, 0}, eperm},
		{"setpriority on itself", arch, unix.SYS_SETPRIORITY, []uint64{unix.PRIO_PROCESS, 0, 5}, seccompAllow},
		{"setpriority on another", arch, unix.SYS_SETPRIORITY, []uint64{unix.PRIO_PROCESS, other, 19}, eperm},
		{"setpriority on every process of the user", arch, unix.SYS_SETPRIORITY, []uint64{unix.PRIO_USER, 0, 19}, eperm},
		{"setpriority on the process group", arch, unix.SYS_SETPRIORITY, []uint64{unix.PRIO_PGRP, 0, 19}, eperm},
		{"ioprio_set on another", arch, unix.SYS_IOPRIO_SET, []uint64{1, other, 0}, eperm},
		{"sched_setaffinity on itself", arch, unix.SYS_SCHED_SETAFFINITY, []uint64{0, 8, 0x1000}, seccompAllow},
		{"sched_setaffinity on another", arch, unix.SYS_SCHED_SETAFFINITY, []uint64{other, 8, 0x1000}, eperm},
		{"sched_setscheduler on another", arch, unix.SYS_SCHED_SETSCHEDULER, []uint64{other}, eperm},
		{"setsockopt SO_SNDBUF", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_SNDBUF}, eperm},
		{"setsockopt SO_RCVBUF", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_RCVBUF}, eperm},
		{"setsockopt SO_SNDBUFFORCE", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE}, eperm},
		{"setsockopt SO_RCVBUFFORCE", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE}, eperm},
		{"setsockopt SO_PASSCRED", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_PASSCRED}, seccompAllow},
		{"setsockopt another level's option 7", arch, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_TCP, unix.SO_SNDBUF}, seccompAllow},
	}
	for _, tt := range tests {
		if got := runFilter(t, prog, tt.arch, tt.nr, tt.args...); got != tt.want {
			t.Errorf("%s: %#x, want %#x", tt.name, got, tt.want)
		}
	}
	// Numbers near the special ones but not listed stay allowed, which
	// checks the tree's boundaries.
	listed := map[uintptr]bool{}
	for _, nr := range append(append(deniedSyscalls, deniedArchSyscalls...), unix.SYS_SOCKET, unix.SYS_CLONE3, unix.SYS_CLONE, unix.SYS_SOCKETPAIR, unix.SYS_IOCTL, unix.SYS_FALLOCATE, unix.SYS_SETSOCKOPT) {
		listed[nr] = true
	}
	for _, so := range selfOnly {
		listed[so.nr] = true
	}
	for nr := uintptr(0); nr < 470; nr++ {
		if !listed[nr] {
			if got := runFilter(t, prog, arch, nr); got != seccompAllow {
				t.Errorf("unlisted syscall %d: %#x, want allow", nr, got)
			}
		}
	}
}

// The small filters, interpreted: setsid refused where asked, and for a run
// whose memory no cgroup counts, memfd_create and every shared anonymous
// mapping refused, while private, file-backed and other calls pass.
func TestSmallFilterDecisions(t *testing.T) {
	t.Parallel()
	arch := nativeAuditArch()
	if arch == 0 {
		t.Skip("no filter for this architecture")
	}
	eperm, enosys := seccompErrno(unix.EPERM), seccompErrno(unix.ENOSYS)
	const anon, shared, private, validate = unix.MAP_ANONYMOUS, unix.MAP_SHARED, unix.MAP_PRIVATE, 0x03
	calls := []struct {
		name string
		nr   uintptr
		args []uint64
		// the action with setsid refused and uncounted memory refused
		setsid, uncounted uint32
	}{
		{"setsid", unix.SYS_SETSID, nil, eperm, seccompAllow},
		{"memfd_create", unix.SYS_MEMFD_CREATE, []uint64{0x1000, 0}, seccompAllow, enosys},
		{"mmap shared anonymous", unix.SYS_MMAP, []uint64{0, 1 << 30, 3, anon | shared, ^uint64(0), 0}, seccompAllow, eperm},
		{"mmap shared anonymous, populated", unix.SYS_MMAP, []uint64{0, 1 << 30, 3, anon | shared | unix.MAP_POPULATE, ^uint64(0), 0}, seccompAllow, eperm},
		{"mmap shared_validate anonymous", unix.SYS_MMAP, []uint64{0, 1 << 30, 3, anon | validate, ^uint64(0), 0}, seccompAllow, eperm},
		{"mmap shared anonymous, flags with high bits", unix.SYS_MMAP, []uint64{0, 1 << 30, 3, 0xffffffff00000000 | anon | shared, ^uint64(0), 0}, seccompAllow, eperm},
		{"mmap private anonymous", unix.SYS_MMAP, []uint64{0, 1 << 30, 3, anon | private, ^uint64(0), 0}, seccompAllow, seccompAllow},
		{"mmap private anonymous, fixed", unix.SYS_MMAP, []uint64{0x10000, 4096, 3, anon | private | unix.MAP_FIXED, ^uint64(0), 0}, seccompAllow, seccompAllow},
		{"mmap shared file", unix.SYS_MMAP, []uint64{0, 4096, 1, shared, 3, 0}, seccompAllow, seccompAllow},
		{"mmap private file", unix.SYS_MMAP, []uint64{0, 4096, 1, private, 3, 0}, seccompAllow, seccompAllow},
		{"read", unix.SYS_READ, nil, seccompAllow, seccompAllow},
		{"munmap", unix.SYS_MUNMAP, nil, seccompAllow, seccompAllow},
	}
	for _, f := range []struct{ setsid, uncounted bool }{{true, false}, {true, true}, {false, true}} {
		prog := buildSmallFilter(arch, f.setsid, f.uncounted)
		for _, c := range calls {
			want := uint32(seccompAllow)
			if f.setsid && c.setsid != seccompAllow {
				want = c.setsid
			}
			if f.uncounted && c.uncounted != seccompAllow {
				want = c.uncounted
			}
			if got := runFilter(t, prog, arch, c.nr, c.args...); got != want {
				t.Errorf("setsid %v, uncounted %v: %s: %#x, want %#x", f.setsid, f.uncounted, c.name, got, want)
			}
		}
		if got := runFilter(t, prog, 0x40000003, unix.SYS_READ); got != eperm {
			t.Errorf("a foreign architecture: %#x", got)
		}
	}
}

// The launcher's ruleset cache reuses a ruleset only for the very folder it
// was made for: the same path made anew gets a new one.
func TestRulesetCache(t *testing.T) {
	if ok, _ := Status(); !ok {
		t.Skip("no Landlock here")
	}
	var c rulesetCache
	dir := t.TempDir() + "/run"
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fd1, _, err := c.get(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fd2, _, _ := c.get(dir); fd2 != fd1 {
		t.Errorf("the same folder got a second ruleset (%d, %d)", fd1, fd2)
	}
	os.Remove(dir)
	// Another folder under the same path: hold the old inode so it cannot
	// come back.
	hold, _ := os.Create(t.TempDir() + "/hold")
	defer hold.Close()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fd3, _, err := c.get(dir)
	if err != nil || len(c.entries) != 1 {
		t.Fatalf("fd %d, %v, %d entries", fd3, err, len(c.entries))
	}
	var st unix.Stat_t
	unix.Stat(dir, &st)
	if c.entries[0].ino != st.Ino {
		t.Errorf("the cache kept the old folder's inode")
	}
	for i := range maxCachedRulesets + 2 {
		d := t.TempDir()
		if _, _, err := c.get(d); err != nil {
			t.Fatal(err, i)
		}
	}
	if len(c.entries) != maxCachedRulesets {
		t.Errorf("%d entries, want at most %d", len(c.entries), maxCachedRulesets)
	}
}

// An approved run's filter, interpreted: the read-only filter's refusals,
// but metadata may change, and sockets open only as its scope grants: the
// network's families with the network, Unix sockets with the ssh agent.
func TestScopedFilterDecisions(t *testing.T) {
	t.Parallel()
	arch := nativeAuditArch()
	if arch == 0 {
		t.Skip("no filter for this architecture")
	}
	eperm, eacces := seccompErrno(unix.EPERM), seccompErrno(unix.EACCES)
	for _, c := range []struct {
		net, agent bool
		nr         uintptr
		args       []uint64
		want       uint32
	}{
		{false, false, unix.SYS_FCHMODAT, []uint64{0, 0, 0o755}, seccompAllow},
		{false, false, unix.SYS_UTIMENSAT, nil, seccompAllow},
		{false, false, unix.SYS_FCHOWNAT, nil, seccompAllow},
		{false, false, unix.SYS_PTRACE, nil, eperm},
		{false, false, unix.SYS_MOUNT, nil, eperm},
		{false, false, unix.SYS_SOCKET, []uint64{unix.AF_INET}, eacces},
		{false, false, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, eacces},
		{true, false, unix.SYS_SOCKET, []uint64{unix.AF_INET}, seccompAllow},
		{true, false, unix.SYS_SOCKET, []uint64{unix.AF_INET6}, seccompAllow},
		{true, false, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, eacces},
		{true, false, unix.SYS_SOCKET, []uint64{unix.AF_PACKET}, eacces},
		{true, true, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, seccompAllow},
		{false, true, unix.SYS_SOCKET, []uint64{unix.AF_INET}, eacces},
		{true, false, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_SNDBUF}, seccompAllow},
		{false, false, unix.SYS_SETSOCKOPT, []uint64{3, unix.SOL_SOCKET, unix.SO_RCVBUF}, seccompAllow},
	} {
		f := scopedFilter(c.net, c.agent)
		prog := unsafe.Slice(f.Filter, f.Len)
		if got := runFilter(t, prog, arch, c.nr, c.args...); got != c.want {
			t.Errorf("network %v, agent %v, syscall %d %v: %#x, want %#x", c.net, c.agent, c.nr, c.args, got, c.want)
		}
	}
	if got := runFilter(t, buildSandboxFilter(arch, false), arch, unix.SYS_FCHMODAT); got != eperm {
		t.Errorf("the read-only filter lets metadata change: %#x", got)
	}
}

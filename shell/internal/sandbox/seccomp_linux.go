//go:build linux

package sandbox

import (
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// nativeAuditArch is the seccomp architecture of this build, or 0 where Hark
// has no filter for it. Without a filter the sandbox is incomplete, so
// Status reports none and nothing runs unasked.
func nativeAuditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// The seccomp filter of a sandboxed command. Landlock confines files, TCP,
// signals and abstract sockets; everything else a read-only command must
// not do is refused here, by system call and, where a call is harmless on
// the command itself but not on others, by its arguments:
//
//   - no sockets but a stream socketpair (nothing outside to connect to: a
//     datagram pair could still sendto(2) a path such as /dev/log), whose
//     buffers keep their default size, and no io_uring, which opens
//     sockets and files past these checks;
//   - nothing that reaches the kernel's or other processes' state: ptrace,
//     process_vm_*, pidfd_getfd, kcmp, bpf, perf_event_open, keyrings, the
//     mount family, namespaces, clocks, host names, modules, kexec, swap,
//     reboot, accounting, quotas, userfaultfd;
//   - resource and scheduling calls only on the calling process itself
//     (pid 0), so no command can lower another's limits or priority;
//   - no changes of metadata (mode, owner, times, extended attributes)
//     anywhere, since Landlock does not cover them; inode flags (chattr) go
//     through ioctl, which only a short list of read-only requests passes;
//   - no fallocate(2) (EOPNOTSUPP), which would take disk space at once,
//     past the disk quota's watch, and with FALLOC_FL_KEEP_SIZE past
//     RLIMIT_FSIZE too;
//   - no System V IPC or POSIX message queues, which reach other processes
//     by key rather than by path;
//   - no setsid(2), so every process of a run stays in the run's session and
//     can be found and stopped even if the zygote that started it died;
//   - clone3 answers ENOSYS (its flags sit in memory a filter cannot read),
//     so libc falls back to clone, whose flags are checked: no namespaces;
//   - any other system-call ABI (32-bit x86, x32) is refused whole, since it
//     reaches the same calls through other numbers.
const (
	seccompAllow = unix.SECCOMP_RET_ALLOW
	// x32 system calls are the native numbers with this bit set.
	x32SyscallBit = 0x40000000
	// cloneNamespaces are the clone(2) flags that create namespaces.
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME
)

// AuditArch is nativeAuditArch, for tests outside the package that skip
// where there is no filter.
func AuditArch() uint32 { return nativeAuditArch() }

func seccompErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// deniedSyscalls are refused with EPERM whatever their arguments. The
// architecture's own list (deniedArchSyscalls) adds the calls that exist on
// one architecture only.
var deniedSyscalls = []uintptr{
	// other processes and the kernel's memory
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_PROCESS_MADVISE, unix.SYS_KCMP, unix.SYS_MOVE_PAGES, unix.SYS_MIGRATE_PAGES,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	// memory no cap counts: locked away from the kernel itself
	unix.SYS_MEMFD_SECRET,
	// the system
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME,
	unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX, unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
	unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD, unix.SYS_VHANGUP, unix.SYS_LOOKUP_DCOOKIE,
	unix.SYS_FANOTIFY_INIT, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_LSM_SET_SELF_ATTR,
	// mounts and namespaces
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
	unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR, unix.SYS_UNSHARE, unix.SYS_SETNS,
	// metadata
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT, unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
	// IPC by key
	unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL, unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV,
	unix.SYS_MSGCTL, unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMTIMEDOP, unix.SYS_SEMCTL,
	unix.SYS_MQ_OPEN, unix.SYS_MQ_UNLINK, unix.SYS_MQ_TIMEDSEND, unix.SYS_MQ_TIMEDRECEIVE, unix.SYS_MQ_NOTIFY,
	unix.SYS_MQ_GETSETATTR,
	// leaving the run's session
	unix.SYS_SETSID,
}

// selfOnly are calls allowed only when their target is the calling process:
// the argument at index arg is 0, and for those with a "which" argument at
// index which, that argument selects a single process (value whichProcess),
// not a process group or every process of the user.
var selfOnly = []struct {
	nr                  uintptr
	arg, which          int // which < 0: no such argument
	whichProcess        uint32
	allowIfArgZeroAtIdx int // another argument whose zero makes the call a query (prlimit's new limit); -1: none
}{
	{unix.SYS_PRLIMIT64, 0, -1, 0, 2},
	{unix.SYS_SETPRIORITY, 1, 0, unix.PRIO_PROCESS, -1},
	{unix.SYS_IOPRIO_SET, 1, 0, 1 /* IOPRIO_WHO_PROCESS */, -1},
	{unix.SYS_SCHED_SETAFFINITY, 0, -1, 0, -1},
	{unix.SYS_SCHED_SETSCHEDULER, 0, -1, 0, -1},
	{unix.SYS_SCHED_SETPARAM, 0, -1, 0, -1},
	{unix.SYS_SCHED_SETATTR, 0, -1, 0, -1},
}

// allowedIoctls are the only ioctl requests a sandboxed command may make:
// the terminal and descriptor queries that ordinary tools issue to format
// their output, and the read-only inode queries of lsattr, du and cp. Every
// other request (TIOCSTI and TIOCLINUX, which type into a terminal; inode
// flag and project changes; file-system specific requests such as btrfs
// snapshots) fails with ENOTTY, which programs read as "not supported".
var allowedIoctls = []uint32{
	unix.TCGETS, unix.TCGETS2, unix.TIOCGWINSZ, unix.TIOCGPGRP, unix.TIOCGSID, unix.TIOCGPTN,
	unix.TIOCINQ /* FIONREAD */, ioctlFIONBIO, ioctlFIOCLEX, ioctlFIONCLEX, ioctlFIOASYNC,
	unix.FS_IOC_GETFLAGS, ioctlFSIOC32GetFlags, ioctlFSIOCGetVersion, ioctlFSIOCFSGetXattr,
	ioctlFIGETBSZ, ioctlFSIOCFiemap, unix.BLKGETSIZE64, unix.BLKSSZGET,
}

// Request numbers that golang.org/x/sys does not name; the same on x86-64
// and arm64 (the generic ioctl encoding).
const (
	ioctlFIONBIO         = 0x5421
	ioctlFIONCLEX        = 0x5450
	ioctlFIOCLEX         = 0x5451
	ioctlFIOASYNC        = 0x5452
	ioctlFIGETBSZ        = 0x2
	ioctlFSIOC32GetFlags = 0x80046601
	ioctlFSIOCGetVersion = 0x80087601
	ioctlFSIOCFSGetXattr = 0x801c581f
	ioctlFSIOCFiemap     = 0xc020660b
)

// The filters are built once: they depend only on the architecture.
// sandboxFilter is the whole filter a command installs itself.
// launcherFilter is the same but for setsid, for the zygote's launcher
// thread (see launcher): a child forked there inherits it, starts its new
// session, and then installs only noSetsidFilter, a few instructions that
// the kernel compiles in a fraction of the time the whole filter takes.
//
// noMemfdFilter (on top of sandboxFilter) and noSetsidNoMemfdFilter (in
// place of noSetsidFilter) also refuse memfd_create (ENOSYS) and shared
// anonymous mappings (EPERM), for a run with a memory cap but no memory
// cgroup: nothing else would count such memory once no process holds it
// or maps more than a page of it (a memfd parked in a socket, a shared
// mapping cut down to one page). ENOSYS, as on a kernel without the call,
// so programs fall back to a temporary file, which the scratch file system
// or the disk watch bounds.
var (
	sandboxFilter         = sync.OnceValue(func() *unix.SockFprog { return fprog(buildSandboxFilter(nativeAuditArch(), false)) })
	launcherFilter        = sync.OnceValue(func() *unix.SockFprog { return fprog(buildSandboxFilter(nativeAuditArch(), true)) })
	noSetsidFilter        = sync.OnceValue(func() *unix.SockFprog { return fprog(buildSmallFilter(nativeAuditArch(), true, false)) })
	noSetsidNoMemfdFilter = sync.OnceValue(func() *unix.SockFprog { return fprog(buildSmallFilter(nativeAuditArch(), true, true)) })
	noMemfdFilter         = sync.OnceValue(func() *unix.SockFprog { return fprog(buildSmallFilter(nativeAuditArch(), false, true)) })
)

func fprog(prog []unix.SockFilter) *unix.SockFprog {
	if prog == nil {
		return nil
	}
	return &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
}

// buildSmallFilter refuses setsid(2) (EPERM) and, with uncounted, the two
// ways to make memory that outlives every mapping of it but one:
// memfd_create(2) (ENOSYS) and shared anonymous mmap(2) (EPERM; written,
// then unmapped but for a page, its pages stay in memory that no process
// shows). Everything else is allowed. It is only ever installed on top of
// a filter that has checked the architecture already, and checks it again
// only to read the right table.
func buildSmallFilter(arch uint32, setsid, uncounted bool) []unix.SockFilter {
	if arch == 0 {
		return nil
	}
	prog := []unix.SockFilter{
		ldAbs(offArch),
		{Code: bpfJeq, K: arch, Jt: 1},
		ret(seccompErrno(unix.EPERM)),
		ldAbs(offNr),
	}
	if setsid {
		prog = append(prog, unix.SockFilter{Code: bpfJeq, K: uint32(unix.SYS_SETSID), Jf: 1}, ret(seccompErrno(unix.EPERM)))
	}
	if uncounted {
		prog = append(prog,
			unix.SockFilter{Code: bpfJeq, K: uint32(unix.SYS_MEMFD_CREATE), Jf: 1}, ret(seccompErrno(unix.ENOSYS)),
			// mmap's flags are its fourth argument; all of them sit in
			// the low 32 bits. Anonymous and not private (MAP_SHARED or
			// MAP_SHARED_VALIDATE) is refused.
			unix.SockFilter{Code: bpfJeq, K: uint32(unix.SYS_MMAP), Jf: 6},
			ldAbs(argLo(3)),
			unix.SockFilter{Code: bpfJset, K: unix.MAP_ANONYMOUS, Jf: 2},
			unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: mapType},
			unix.SockFilter{Code: bpfJeq, K: unix.MAP_PRIVATE, Jf: 1},
			ret(seccompAllow),
			ret(seccompErrno(unix.EPERM)),
		)
	}
	return append(prog, ret(seccompAllow))
}

// mapType is MAP_TYPE, the bits of mmap's flags that say shared or private.
const mapType = 0x0f

// buildSandboxFilter assembles the classic BPF program: the architecture
// checks; the calls with their own action or argument checks, one test
// each; then the calls refused with EPERM, found in a bitmap, 32 system-call
// numbers to a word, each word one test. The kernel compiles the program
// every time a command installs it, so its length is part of every
// sandboxed command's cost: about 150 instructions, where one comparison
// per refused call took over 400.
func buildSandboxFilter(arch uint32, allowSetsid bool) []unix.SockFilter {
	return buildFilter(arch, filterOpts{allowSetsid: allowSetsid})
}

// filterOpts are what an approved run's filter (scopedFilter) allows
// beyond a read-only run's.
type filterOpts struct {
	allowSetsid bool
	// meta: mode, owner, times and extended attributes may change (chmod
	// +x, touch, cp -a); Landlock does not cover them, so this reaches
	// every file the user owns (docs/safety.md says so).
	meta bool
	// inet: IPv4, IPv6 and netlink sockets (Spec.Scope.Network); local:
	// Unix sockets too (Spec.Scope.Agent: the ssh agent).
	inet, local bool
	// buffers: a socket's buffers may be resized (SO_SNDBUF, SO_RCVBUF).
	// A read-only run's sockets keep the system's default size, which is
	// what the memory cap counts for each one it holds (see runMemory).
	buffers bool
}

// metaSyscalls are the metadata calls of deniedSyscalls and
// deniedArchSyscalls that an approved run may make.
var metaSyscalls = map[uintptr]bool{
	unix.SYS_FCHMOD: true, unix.SYS_FCHMODAT: true, unix.SYS_FCHMODAT2: true, unix.SYS_FCHOWN: true,
	unix.SYS_FCHOWNAT: true, unix.SYS_UTIMENSAT: true, unix.SYS_SETXATTR: true, unix.SYS_LSETXATTR: true,
	unix.SYS_FSETXATTR: true, unix.SYS_SETXATTRAT: true, unix.SYS_REMOVEXATTR: true, unix.SYS_LREMOVEXATTR: true,
	unix.SYS_FREMOVEXATTR: true, unix.SYS_REMOVEXATTRAT: true,
}

func init() {
	for _, nr := range metaArchSyscalls {
		metaSyscalls[nr] = true
	}
}

// scopedFilters are the filters of approved runs, one for each way their
// sockets may go (see scopedFilter).
var scopedFilters = func() (out [4]func() *unix.SockFprog) {
	for i := range out {
		out[i] = sync.OnceValue(func() *unix.SockFprog {
			return fprog(buildFilter(nativeAuditArch(), filterOpts{meta: true, inet: i&1 != 0, local: i&2 != 0, buffers: true}))
		})
	}
	return out
}()

// scopedFilter is the whole filter of an approved run: the read-only
// run's, but metadata may change, and sockets open as its scope says.
func scopedFilter(network, agent bool) *unix.SockFprog {
	i := 0
	if network {
		i |= 1
	}
	if agent {
		i |= 2
	}
	return scopedFilters[i]()
}

func buildFilter(arch uint32, o filterOpts) []unix.SockFilter {
	if arch == 0 {
		return nil
	}
	allowSetsid := o.allowSetsid
	eperm, eacces, enotty, enosys := seccompErrno(unix.EPERM), seccompErrno(unix.EACCES), seccompErrno(unix.ENOTTY), seccompErrno(unix.ENOSYS)

	special := map[uint32][]unix.SockFilter{}
	special[uint32(unix.SYS_SOCKET)] = socketRule(o.inet, o.local)
	special[uint32(unix.SYS_CLONE3)] = []unix.SockFilter{ret(enosys)}
	// fallocate: refused, since it takes disk space faster than any watch
	// can look, and with FALLOC_FL_KEEP_SIZE past any file size limit too.
	// "Not supported" makes posix_fallocate write instead, which the
	// limits on writing hold.
	special[uint32(unix.SYS_FALLOCATE)] = []unix.SockFilter{ret(seccompErrno(unix.EOPNOTSUPP))}
	// clone: no namespace flags (the flags are the first argument on both
	// architectures; all of them sit in the low 32 bits).
	special[uint32(unix.SYS_CLONE)] = []unix.SockFilter{
		ldAbs(argLo(0)),
		{Code: bpfJset, K: cloneNamespaces, Jf: 1},
		ret(eperm),
		ret(seccompAllow),
	}
	// socketpair: AF_UNIX stream and sequenced-packet pairs only, which
	// are connected to each other and reach nothing else (Rust's process
	// spawning passes a pidfd through a sequenced-packet pair). The type's
	// low four bits are the socket type; the rest are SOCK_CLOEXEC and
	// SOCK_NONBLOCK.
	special[uint32(unix.SYS_SOCKETPAIR)] = []unix.SockFilter{
		ldAbs(argLo(0)),
		{Code: bpfJeq, K: unix.AF_UNIX, Jf: 4},
		ldAbs(argLo(1)),
		{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0xf},
		{Code: bpfJeq, K: unix.SOCK_STREAM, Jt: 2},
		{Code: bpfJeq, K: unix.SOCK_SEQPACKET, Jt: 1},
		ret(eacces),
		ret(seccompAllow),
	}
	if !o.buffers {
		// setsockopt: no socket's buffers made larger than the default
		// (level and option are its second and third arguments).
		special[uint32(unix.SYS_SETSOCKOPT)] = []unix.SockFilter{
			ldAbs(argLo(1)),
			{Code: bpfJeq, K: unix.SOL_SOCKET, Jf: 5},
			ldAbs(argLo(2)),
			{Code: bpfJeq, K: unix.SO_SNDBUF, Jt: 4},
			{Code: bpfJeq, K: unix.SO_RCVBUF, Jt: 3},
			{Code: bpfJeq, K: unix.SO_SNDBUFFORCE, Jt: 2},
			{Code: bpfJeq, K: unix.SO_RCVBUFFORCE, Jt: 1},
			ret(seccompAllow),
			ret(eperm),
		}
	}
	// ioctl: only the listed requests. The request is an unsigned int in
	// the kernel, so only the low 32 bits count, as they do here.
	ioctl := []unix.SockFilter{ldAbs(argLo(1))}
	for i, req := range allowedIoctls {
		ioctl = append(ioctl, unix.SockFilter{Code: bpfJeq, K: req, Jt: uint8(len(allowedIoctls) - i)})
	}
	special[uint32(unix.SYS_IOCTL)] = append(ioctl, ret(enotty), ret(seccompAllow))
	for _, so := range selfOnly {
		var body []unix.SockFilter
		if so.allowIfArgZeroAtIdx >= 0 { // a query of any process's limits changes nothing
			q := so.allowIfArgZeroAtIdx
			body = append(body,
				ldAbs(argLo(q)), unix.SockFilter{Code: bpfJeq, K: 0, Jf: 3},
				ldAbs(argHi(q)), unix.SockFilter{Code: bpfJeq, K: 0, Jf: 1},
				ret(seccompAllow))
		}
		if so.which >= 0 {
			body = append(body, ldAbs(argLo(so.which)), unix.SockFilter{Code: bpfJeq, K: so.whichProcess, Jf: 5})
		}
		body = append(body,
			ldAbs(argLo(so.arg)), unix.SockFilter{Code: bpfJeq, K: 0, Jf: 3},
			ldAbs(argHi(so.arg)), unix.SockFilter{Code: bpfJeq, K: 0, Jf: 1},
			ret(seccompAllow),
			ret(eperm))
		special[uint32(so.nr)] = body
	}
	nrs := make([]uint32, 0, len(special))
	for nr := range special {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)

	p := []unix.SockFilter{
		ldAbs(offArch),
		{Code: bpfJeq, K: arch, Jt: 1},
		ret(eperm), // a foreign system-call ABI
		ldAbs(offNr),
		{Code: bpfJge, K: x32SyscallBit, Jf: 1},
		ret(eperm),
	}
	for _, nr := range nrs {
		// The body runs only on a match and always returns, so on a miss
		// the accumulator still holds the number.
		body := special[nr]
		p = append(p, unix.SockFilter{Code: bpfJeq, K: nr, Jf: uint8(len(body))})
		p = append(p, body...)
	}

	// The bitmap: word nr/32, bit nr%32. M[0] keeps the word's index; X
	// gets the bit's mask.
	var words []uint32
	for _, nr := range append(deniedSyscalls, deniedArchSyscalls...) {
		if allowSetsid && nr == unix.SYS_SETSID || o.meta && metaSyscalls[nr] {
			continue
		}
		for int(nr/32) >= len(words) {
			words = append(words, 0)
		}
		words[nr/32] |= 1 << (nr % 32)
	}
	p = append(p,
		unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_RSH | unix.BPF_K, K: 5},
		unix.SockFilter{Code: unix.BPF_ST, K: 0},
		ldAbs(offNr),
		unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 31},
		unix.SockFilter{Code: unix.BPF_MISC | unix.BPF_TAX},
		unix.SockFilter{Code: unix.BPF_LD | unix.BPF_IMM, K: 1},
		unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_LSH | unix.BPF_X},
		unix.SockFilter{Code: unix.BPF_MISC | unix.BPF_TAX},
		unix.SockFilter{Code: unix.BPF_LD | unix.BPF_MEM, K: 0},
	)
	for w, mask := range words {
		if mask == 0 {
			continue
		}
		p = append(p,
			unix.SockFilter{Code: bpfJeq, K: uint32(w), Jf: 4},
			unix.SockFilter{Code: unix.BPF_MISC | unix.BPF_TXA},
			unix.SockFilter{Code: bpfJset, K: mask, Jf: 1},
			ret(eperm),
			ret(seccompAllow))
	}
	return append(p, ret(seccompAllow))
}

// socketRule is the body of the socket(2) check: the families allowed by
// inet (IPv4, IPv6, netlink) and local (Unix), EACCES for the rest.
func socketRule(inet, local bool) []unix.SockFilter {
	var fams []uint32
	if inet {
		fams = append(fams, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK)
	}
	if local {
		fams = append(fams, unix.AF_UNIX)
	}
	if len(fams) == 0 {
		return []unix.SockFilter{ret(seccompErrno(unix.EACCES))}
	}
	out := []unix.SockFilter{ldAbs(argLo(0))}
	for i, f := range fams {
		out = append(out, unix.SockFilter{Code: bpfJeq, K: f, Jt: uint8(len(fams) - i)})
	}
	return append(out, ret(seccompErrno(unix.EACCES)), ret(seccompAllow))
}

const (
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	offNr   = 0 // offsets in struct seccomp_data
	offArch = 4
)

func ldAbs(off uint32) unix.SockFilter {
	return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
}

func ret(action uint32) unix.SockFilter {
	return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: action}
}

// The low and high 32 bits of argument i in struct seccomp_data, on the
// little-endian architectures this filter is built for.
func argLo(i int) uint32 { return uint32(16 + 8*i) }
func argHi(i int) uint32 { return uint32(20 + 8*i) }

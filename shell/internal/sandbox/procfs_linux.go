//go:build linux

package sandbox

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// procFS reads what the memory watch asks of /proc every memPoll (which
// processes exist, each one's session, resident size and open files) into
// buffers it keeps, so that a watch running for minutes allocates nothing
// per look however many processes the machine runs. Linux has no call
// that lists a session's members, so a look still reads every process's
// stat line; what it no longer does is copy the whole table into fresh
// strings and slices each time. Its zero value is ready; it is not safe
// for concurrent use.
type procFS struct {
	path  []byte // the NUL-terminated path being opened
	buf   []byte // the file just read
	dents []byte // directory entries just read
	link  []byte // a link's target
	st    unix.Stat_t
	fd    [32]byte // "/proc/PID/fd/N" for openFile.path
}

// procLine is what a /proc/PID/stat line says of a process.
type procLine struct {
	state                  byte
	ppid, pgid, sid, start int64
}

// setPath makes p.path "/proc/PID" + leaf, NUL-terminated, or "/proc"
// for pid 0.
func (p *procFS) setPath(pid int, leaf string) {
	p.path = append(p.path[:0], "/proc"...)
	if pid > 0 {
		p.path = append(p.path, '/')
		p.path = appendInt(p.path, int64(pid))
	}
	p.path = append(append(p.path, leaf...), 0)
}

func appendInt(b []byte, n int64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// open opens /proc/PID/LEAF (pid 0: /proc itself) with flags, or returns -1.
func (p *procFS) open(pid int, leaf string, flags int) int {
	p.setPath(pid, leaf)
	return p.openPath(flags)
}

// openPath opens p.path as it stands, or returns -1.
func (p *procFS) openPath(flags int) int {
	cwd := unix.AT_FDCWD
	fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(&p.path[0])), uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
	if e != 0 {
		return -1
	}
	return int(fd)
}

// read reads /proc/PID/LEAF, up to 64 KiB, into p.buf; nil when it cannot.
func (p *procFS) read(pid int, leaf string) []byte {
	p.setPath(pid, leaf)
	return p.readPath()
}

// readPath is read of p.path as it stands.
func (p *procFS) readPath() []byte {
	fd := p.openPath(0)
	if fd < 0 {
		return nil
	}
	defer unix.Close(fd)
	if cap(p.buf) < 4096 {
		p.buf = make([]byte, 4096)
	}
	n := 0
	for {
		if n == cap(p.buf) {
			if n >= 64<<10 {
				break
			}
			p.buf = append(p.buf[:n], make([]byte, n)...)
		}
		m, err := unix.Read(fd, p.buf[n:cap(p.buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil && n == 0 {
			return nil
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return p.buf[:n]
}

// entries calls fn with the name of each entry of the open directory fd
// but . and ..; the name is valid only during the call.
func (p *procFS) entries(fd int, fn func(name []byte)) {
	if cap(p.dents) < 8192 {
		p.dents = make([]byte, 8192)
	}
	for {
		n, err := unix.Getdents(fd, p.dents[:cap(p.dents)])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		// struct linux_dirent64: inode (8), offset (8), record length
		// (2), type (1), then the NUL-terminated name.
		for b := p.dents[:n]; len(b) >= 19; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if reclen < 19 || reclen > len(b) {
				return
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if !(len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.') {
				fn(name)
			}
			b = b[reclen:]
		}
	}
}

// pids calls fn with every process in /proc.
func (p *procFS) pids(fn func(pid int)) {
	fd := p.open(0, "", unix.O_DIRECTORY)
	if fd < 0 {
		return
	}
	defer unix.Close(fd)
	p.entries(fd, func(name []byte) {
		if pid, ok := digits(name); ok {
			fn(int(pid))
		}
	})
}

// digits reads a name of decimal digits only.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// stat reads /proc/PID/stat. Its fields are counted after the command
// name, which may hold spaces and parentheses and so ends at the line's
// last ')': 0 = state, 1 = parent, 2 = process group, 3 = session,
// 19 = start time.
func (p *procFS) stat(pid int) (procLine, bool) {
	b := p.read(pid, "/stat")
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procLine{}, false
	}
	var l procLine
	b = b[i+2:]
	for k := 0; k <= 19; k++ {
		j := bytes.IndexByte(b, ' ')
		if j < 0 {
			j = len(b)
		}
		f := b[:j]
		switch k {
		case 0:
			if len(f) != 1 {
				return procLine{}, false
			}
			l.state = f[0]
		case 1, 2, 3, 19:
			n, ok := signedDigits(f)
			if !ok {
				return procLine{}, false
			}
			switch k {
			case 1:
				l.ppid = n
			case 2:
				l.pgid = n
			case 3:
				l.sid = n
			case 19:
				l.start = n
			}
		}
		if j == len(b) && k < 19 {
			return procLine{}, false
		}
		b = b[min(j+1, len(b)):]
	}
	return l, true
}

// signedDigits is digits with an optional minus sign (a process group or
// session of -1 never occurs in stat, but a negative field must not read
// as a positive one).
func signedDigits(b []byte) (int64, bool) {
	if len(b) > 0 && b[0] == '-' {
		n, ok := digits(b[1:])
		return -n, ok
	}
	return digits(b)
}

// resident is a process's resident set from /proc/PID/statm (its second
// field, in pages), in bytes, or 0 when it is gone.
func (p *procFS) resident(pid int) int64 {
	b := p.read(pid, "/statm")
	_, rest, ok := bytes.Cut(b, []byte(" "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(rest, ' '); i >= 0 {
		rest = rest[:i]
	}
	n, _ := digits(rest)
	return n * pageSize
}

// swapped is how much of pid's memory the kernel has moved to swap, in
// bytes: VmSwap in /proc/PID/status. Pages there are in no resident set,
// and a run whose pages were pushed out would otherwise shrink under its
// cap while it keeps them.
func (p *procFS) swapped(pid int) int64 {
	return statusSwap(p.read(pid, "/status"))
}

// statusSwap reads VmSwap out of a /proc/PID/status text, in bytes; 0
// where there is none (a kernel thread, a kernel without swap support).
func statusSwap(b []byte) int64 {
	const key = "\nVmSwap:"
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0
	}
	v := bytes.TrimLeft(b[i+len(key):], " \t")
	if j := bytes.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	n, _ := digits(v)
	return n << 10
}

// openFile is one open file of a process, as openFiles reports it; valid
// during the call only.
type openFile struct {
	p      *procFS
	pid    int
	name   []byte // the descriptor's number, as in /proc/PID/fd
	target []byte // where its link points
	st     *unix.Stat_t
}

// path is the descriptor's /proc path, for a call that takes one (a new
// string each time: for what is seldom asked).
func (f openFile) path() string {
	b := appendInt(append(f.p.fd[:0], "/proc/"...), int64(f.pid))
	return string(append(append(b, "/fd/"...), f.name...))
}

// openFiles calls fn with each descriptor of pid that names a file by path
// (not a pipe, socket or anonymous inode), with the file's stat; and
// buffer, where not nil, with the inode of each socket and pipe.
func (p *procFS) openFiles(pid int, fn func(f openFile), buffer func(kind bufferKind, ino uint64)) {
	dir := p.open(pid, "/fd", unix.O_DIRECTORY)
	if dir < 0 {
		return
	}
	defer unix.Close(dir)
	if cap(p.link) < unix.PathMax {
		p.link = make([]byte, unix.PathMax)
	}
	var name [24]byte
	p.entries(dir, func(n []byte) {
		if len(n) >= len(name) {
			return
		}
		copy(name[:], n)
		name[len(n)] = 0
		// Pipes, sockets and anonymous inodes read as "pipe:[…]" and
		// the like: no file behind them to stat.
		l, _, e := unix.Syscall6(unix.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&p.link[0])), uintptr(len(p.link)), 0, 0)
		if e != 0 || l == 0 {
			return
		}
		if p.link[0] != '/' {
			if buffer != nil {
				if kind, ino, ok := bufferLink(p.link[:l]); ok {
					buffer(kind, ino)
				}
			}
			return
		}
		if fstatat(dir, &name[0], &p.st) != nil {
			return
		}
		fn(openFile{p: p, pid: pid, name: n, target: p.link[:l], st: &p.st})
	})
}

// bufferKind tells the two kinds of descriptor whose buffers hold kernel
// memory: a socket and a pipe.
type bufferKind int

const (
	bufferSocket bufferKind = iota
	bufferPipe
)

// bufferLink reads a descriptor's link, "socket:[INODE]" or "pipe:[INODE]".
func bufferLink(b []byte) (bufferKind, uint64, bool) {
	var kind bufferKind
	switch {
	case bytes.HasPrefix(b, []byte("socket:[")):
		kind, b = bufferSocket, b[len("socket:["):]
	case bytes.HasPrefix(b, []byte("pipe:[")):
		kind, b = bufferPipe, b[len("pipe:["):]
	default:
		return 0, 0, false
	}
	if len(b) < 2 || b[len(b)-1] != ']' {
		return 0, 0, false
	}
	n, ok := digits(b[:len(b)-1])
	return kind, uint64(n), ok
}

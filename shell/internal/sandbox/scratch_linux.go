//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// A disk quota that is only watched can be overshot: the watch looks every
// 50 ms, and in that time eight writers in parallel, each under the size
// limit of one file, take what they like. Where it can, the zygote gives
// each sandboxed run a file system of its own as its temporary folder, a
// tmpfs of exactly the quota: the kernel then refuses every write past it
// (ENOSPC), at the call, whatever the number of files, sparse or not.
//
// Mounting takes CAP_SYS_ADMIN and a mount namespace that is the zygote's
// alone, so that no mount is seen by Hark, by the user or by another
// zygote: as root the runner starts the zygote in a new one (see
// startZygote, and the per-command helper, the fallback), and each checks
// at start that it is in one (privateMounts) before it mounts anything.
// Unprivileged, a scratch maker in a user namespace makes the file system
// instead (see scratch_userns_linux.go). Where neither can be had, runs
// keep the folder on the disk as it is, and the quota is what RLIMIT_FSIZE
// (no file larger than the quota), the refusal of fallocate and the
// runner's disk watch make of it.
//
// The folder's pages are memory: a run may hold its quota of scratch
// space in RAM on top of its memory cap.

// scratchInodes bounds the files one scratch file system may hold, since
// each costs kernel memory that the size limit does not count.
const scratchInodes = 1 << 16

// CanMountScratch says whether this process could give a command runner a
// mount namespace of its own and mount there: root with CAP_SYS_ADMIN (a
// container's root often lacks it). Read once.
var CanMountScratch = sync.OnceValue(func() bool {
	if os.Geteuid() != 0 {
		return false
	}
	var caps [2]unix.CapUserData
	if unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &caps[0]) != nil {
		return false
	}
	return caps[0].Effective&(1<<unix.CAP_SYS_ADMIN) != 0
})

// privateMounts says whether this process is in a mount namespace of its
// own, not its parent's, and may mount there. It first makes every mount
// there a slave of its parent's: mounts made outside still appear inside
// (a disk plugged in later), and none made inside ever appears outside.
// Called once, before anything is mounted.
func privateMounts() bool {
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	parent, err2 := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt")
	if err1 != nil || err2 != nil || self == parent {
		return false
	}
	return unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, "") == nil
}

// mountScratch mounts a tmpfs of size bytes on dir, owned by this process's
// user with mode 0700 as the folder was. It reports whether it did.
func mountScratch(dir string, size int64) bool {
	opts := "size=" + strconv.FormatInt(size, 10) + ",nr_inodes=" + strconv.Itoa(scratchInodes) +
		",mode=0700,uid=" + strconv.Itoa(os.Geteuid()) + ",gid=" + strconv.Itoa(os.Getegid())
	return unix.Mount("hark-scratch", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts) == nil
}

// unmountScratch removes the scratch file system from dir; a process of the
// run that is somehow still alive keeps its detached copy until it ends.
func unmountScratch(dir string) {
	_ = unix.Unmount(dir, unix.MNT_DETACH)
}

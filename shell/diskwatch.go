package shell

import (
	"sync"
	"time"
)

// diskPoll is how often watchDisk looks at the free space.
const diskPoll = 50 * time.Millisecond

// watchDisk calls over once when the file system that holds dir has lost
// more than quota bytes of free space since the watch began, looking every
// interval until stop is called. A sandboxed command can write only in its
// temporary folder, and RLIMIT_FSIZE bounds each file but not how many
// there are: without a bound a command classified safe could fill the disk
// before its timeout. Free space is what counts, not a walk of the folder,
// because a walk misses files deleted while still open; the price is that
// another program writing as much at the same moment stops the command too.
//
// The watch is a timer, not a goroutine: most commands end before its first
// look, and then it has cost one statfs and a timer that never fired.
func watchDisk(dir string, quota int64, every time.Duration, over func()) (stop func()) {
	start, ok := freeBytes(dir)
	if !ok {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	mu.Lock()
	t = time.AfterFunc(every, func() {
		if now, ok := freeBytes(dir); ok && start-now > quota {
			over()
			return
		}
		mu.Lock()
		if !stopped {
			t.Reset(every)
		}
		mu.Unlock()
	})
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}

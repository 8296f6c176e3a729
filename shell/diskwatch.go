package shell

import (
	"context"
	"time"
)

// diskPoll is how often watchDisk looks at the free space.
const diskPoll = 50 * time.Millisecond

// watchDisk calls over once, and returns, when the file system that holds
// dir has lost more than quota bytes of free space since the watch began,
// or returns when ctx ends. A sandboxed command can write only in its
// temporary folder, and RLIMIT_FSIZE bounds each file but not how many
// there are: without a bound a command classified safe could fill the disk
// before its timeout. Free space is what counts, not a walk of the folder,
// because a walk misses files deleted while still open; the price is that
// another program writing as much at the same moment stops the command too.
func watchDisk(ctx context.Context, dir string, quota int64, every time.Duration, over func()) {
	start, ok := freeBytes(dir)
	if !ok {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if now, ok := freeBytes(dir); ok && start-now > quota {
			over()
			return
		}
	}
}

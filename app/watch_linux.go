package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileEvents tells of changes to paths through inotify. It watches the
// folders that hold them, so a save that replaces a file (a rename over
// it, or delete and create) is seen as well as a write in place. Only
// finished writes count (close after writing, a rename into place, a
// deletion): a file read in the middle of a write would show an error
// that is not there. Nil when
// inotify is unavailable; the periodic look then does the work.
func fileEvents(ctx context.Context, paths []string, log *slog.Logger) <-chan struct{} {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		log.Warn("no inotify; settings changes are seen within seconds", "err", err)
		return nil
	}
	names := map[int32][]string{}
	for _, p := range paths {
		dir := filepath.Dir(p)
		wd, err := unix.InotifyAddWatch(fd, dir, unix.IN_CLOSE_WRITE|unix.IN_MOVED_TO|unix.IN_DELETE)
		if err != nil {
			log.Info("cannot watch a folder for changes; looking every few seconds instead", "dir", dir, "err", err)
			continue
		}
		if !slices.Contains(names[int32(wd)], filepath.Base(p)) {
			names[int32(wd)] = append(names[int32(wd)], filepath.Base(p))
		}
	}
	if len(names) == 0 {
		unix.Close(fd)
		return nil
	}
	// Non-blocking and through os.File, so the read waits in Go's poller
	// and Close ends it.
	f := os.NewFile(uintptr(fd), "inotify")
	out := make(chan struct{}, 1)
	go func() {
		<-ctx.Done()
		f.Close()
	}()
	go func() {
		defer close(out)
		buf := make([]byte, 64*1024)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			hit := false
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				nameLen := int(ev.Len)
				name := ""
				if nameLen > 0 {
					raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
					for i, c := range raw {
						if c == 0 {
							raw = raw[:i]
							break
						}
					}
					name = string(raw)
				}
				if slices.Contains(names[ev.Wd], name) {
					hit = true
				}
				off += unix.SizeofInotifyEvent + nameLen
			}
			if hit {
				select {
				case out <- struct{}{}:
				default: // one waiting is enough: the look reads the files anew
				}
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return out
}

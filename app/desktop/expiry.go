package desktop

import (
	"sync"
	"time"
)

// noteKind sorts what Hark posts by how long it is worth keeping on screen.
type noteKind int

const (
	// noteAnswer is an answer or an error: read once, then clutter.
	noteAnswer noteKind = iota
	// noteState is a keyed notification about a state (a settings
	// problem, a failed download) that a later one replaces or Hark
	// withdraws when the state is over.
	noteState
	// noteApproval waits on the user: it goes only when answered or
	// withdrawn.
	noteApproval
)

// noteLife is how long an answer stays delivered on macOS. Info.plist makes
// Hark's notifications alerts so that an approval waits for its answer, and
// the style is app-wide: an answer would stay on screen until closed by
// hand, so Hark removes it itself, about when a banner would have gone.
const noteLife = 8 * time.Second

// lifeOf says how long a notification of kind k stays before Hark removes
// it; 0 means it stays until answered or withdrawn.
func lifeOf(k noteKind) time.Duration {
	if k == noteApproval {
		return 0
	}
	return noteLife
}

// expirer removes delivered notifications once their kind's life is over.
// An identifier posted again (a keyed notification replaced) gets a fresh
// life: the older post's timer leaves the newer one alone.
type expirer struct {
	after  func(time.Duration, func()) // time.AfterFunc, or a test's clock
	remove func(id string)

	mu   sync.Mutex
	gen  map[string]uint64
	next uint64
}

func newExpirer(remove func(id string)) *expirer {
	return &expirer{
		after:  func(d time.Duration, f func()) { time.AfterFunc(d, f) },
		remove: remove,
	}
}

// posted records that id was just delivered as kind k and schedules its
// removal.
func (e *expirer) posted(id string, k noteKind) {
	e.mu.Lock()
	if e.gen == nil {
		e.gen = map[string]uint64{}
	}
	e.next++
	g := e.next
	e.gen[id] = g
	e.mu.Unlock()
	life := lifeOf(k)
	if life <= 0 {
		return
	}
	e.after(life, func() {
		e.mu.Lock()
		current := e.gen[id] == g
		if current {
			delete(e.gen, id)
		}
		e.mu.Unlock()
		if current {
			e.remove(id)
		}
	})
}

// forget drops id, removed by other means: its timer does nothing.
func (e *expirer) forget(id string) {
	e.mu.Lock()
	delete(e.gen, id)
	e.mu.Unlock()
}

package hotkey

import (
	"sync"
	"time"
)

// carbonSys is the few Carbon calls the macOS adapter makes
// (carbon_darwin_cgo.go), behind an interface so that the bookkeeping
// around them, which is where the races are, is tested everywhere.
type carbonSys interface {
	// install adds the one application event handler for hot key presses
	// and releases; it is called once, before the first register.
	install() error
	// register makes a hot key whose events carry id; ref (Carbon's
	// EventHotKeyRef, opaque here) is what unregister takes.
	register(code, mods, id uint32) (ref any, err error)
	unregister(ref any) error
}

// carbonTable maps the ids Carbon hands back to the Go side that wants
// them. One handler serves every key, so a grab costs one EventHotKeyRef
// and nothing else, and its removal leaves nothing behind.
//
// Carbon calls run on the main thread (dispatch_sync), which is also where
// events are delivered; the table lock is therefore never held across a
// Carbon call, or a delivery waiting for it would deadlock a registration
// waiting for the main thread.
type carbonTable struct {
	sys carbonSys

	op        sync.Mutex // serialises add and remove, and the install
	installed bool

	mu   sync.Mutex // guards keys and next; held while a delivery runs
	next uint32
	keys map[uint32]carbonKey
}

type carbonKey struct {
	ref any
	on  func(down bool, at time.Time)
}

func newCarbonTable(sys carbonSys) *carbonTable {
	return &carbonTable{sys: sys, keys: map[uint32]carbonKey{}}
}

// add registers a hot key. on hears its presses (down) and releases on
// the main thread: it must not block.
func (t *carbonTable) add(code, mods uint32, on func(down bool, at time.Time)) (uint32, error) {
	t.op.Lock()
	defer t.op.Unlock()
	if !t.installed {
		if err := t.sys.install(); err != nil {
			return 0, err
		}
		t.installed = true
	}
	t.mu.Lock()
	t.next++
	id := t.next
	// In the table before Carbon knows the key, so that a press right
	// after the registration is not lost.
	t.keys[id] = carbonKey{on: on}
	t.mu.Unlock()
	ref, err := t.sys.register(code, mods, id)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		delete(t.keys, id)
		return 0, err
	}
	t.keys[id] = carbonKey{ref: ref, on: on}
	return id, nil
}

// remove unregisters the hot key id. Once it returns, its on is not
// running and never runs again, so the caller may close what on sends to.
func (t *carbonTable) remove(id uint32) error {
	t.op.Lock()
	defer t.op.Unlock()
	t.mu.Lock()
	k, ok := t.keys[id]
	delete(t.keys, id)
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return t.sys.unregister(k.ref)
}

// deliver is the handler's way in: it reports whether id was Hark's.
func (t *carbonTable) deliver(id uint32, down bool, at time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	k, ok := t.keys[id]
	if ok {
		k.on(down, at)
	}
	return ok
}

// registered is how many hot keys Carbon holds for Hark.
func (t *carbonTable) registered() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}

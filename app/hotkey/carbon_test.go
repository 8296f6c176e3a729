package hotkey

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeCarbon records the Carbon calls and hands out refs.
type fakeCarbon struct {
	mu          sync.Mutex
	installs    int
	live        map[uintptr]uint32 // ref → id
	nextRef     uintptr
	failNext    bool
	unregisters int
}

func (f *fakeCarbon) install() error { f.mu.Lock(); defer f.mu.Unlock(); f.installs++; return nil }

func (f *fakeCarbon) register(code, mods, id uint32) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failNext {
		f.failNext = false
		return 0, errors.New("eventHotKeyExistsErr")
	}
	f.nextRef++
	if f.live == nil {
		f.live = map[uintptr]uint32{}
	}
	f.live[f.nextRef] = id
	return f.nextRef, nil
}

func (f *fakeCarbon) unregister(r any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ref, _ := r.(uintptr)
	if _, ok := f.live[ref]; !ok {
		return errors.New("unregistering a ref Carbon does not hold")
	}
	delete(f.live, ref)
	f.unregisters++
	return nil
}

// Every grab of Escape is one registration and one unregistration: the
// handler is installed once, and nothing is left behind afterwards.
func TestCarbonTableGrabsLeaveNothingBehind(t *testing.T) {
	t.Parallel()
	sys := &fakeCarbon{}
	tab := newCarbonTable(sys)
	for i := 0; i < 100; i++ {
		id, err := tab.add(0x35, 0, func(bool, time.Time) {})
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.remove(id); err != nil {
			t.Fatal(err)
		}
	}
	if sys.installs != 1 || len(sys.live) != 0 || sys.unregisters != 100 || tab.registered() != 0 {
		t.Errorf("installs %d, live %d, unregisters %d, table %d; want 1, 0, 100, 0", sys.installs, len(sys.live), sys.unregisters, tab.registered())
	}
	if err := tab.remove(12345); err != nil {
		t.Errorf("removing an unknown id: %v", err)
	}

	// A registration Carbon refuses leaves no entry to deliver to.
	sys.failNext = true
	if _, err := tab.add(0x35, 0, func(bool, time.Time) { t.Error("delivered to a refused key") }); err == nil {
		t.Fatal("add succeeded although Carbon refused")
	}
	if tab.registered() != 0 || tab.deliver(tab.next, true, time.Now()) {
		t.Error("a refused key is still in the table")
	}
}

// Presses and releases reach the key they belong to, and none after
// remove: a release that arrives while Escape is let go is dropped,
// instead of being sent on a channel the key has closed.
func TestCarbonTableReleaseDuringUnregister(t *testing.T) {
	t.Parallel()
	tab := newCarbonTable(&fakeCarbon{})
	var got []bool
	id, err := tab.add(49, 0x1000, func(down bool, _ time.Time) { got = append(got, down) })
	if err != nil {
		t.Fatal(err)
	}
	if !tab.deliver(id, true, time.Now()) || !tab.deliver(id, false, time.Now()) {
		t.Fatal("a registered key's events were not taken")
	}
	if len(got) != 2 || !got[0] || got[1] {
		t.Errorf("got %v, want [true false]", got)
	}
	if tab.deliver(id+1, true, time.Now()) {
		t.Error("an id that is not Hark's was taken")
	}

	// The race: the main thread delivers without pause while another
	// goroutine grabs and lets go, closing the key's channel right after
	// each remove, as EscapeKey does. A delivery after the close would
	// panic with "send on closed channel"; -race also sees the table.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var idMu sync.Mutex
	current := uint32(0)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			idMu.Lock()
			c := current
			idMu.Unlock()
			tab.deliver(c, false, time.Now())
		}
	}()
	for i := 0; i < 500; i++ {
		ch := make(chan Event, 1)
		id, err := tab.add(0x35, 0, func(bool, time.Time) {
			select {
			case ch <- Event{Kind: Down}:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		idMu.Lock()
		current = id
		idMu.Unlock()
		if err := tab.remove(id); err != nil {
			t.Fatal(err)
		}
		close(ch)
	}
	close(stop)
	wg.Wait()
}

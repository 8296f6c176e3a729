package desktop

import (
	"reflect"
	"sort"
	"testing"
	"time"
)

// fakeClock collects the timers an expirer starts and fires them on demand.
type fakeClock struct {
	timers []fakeTimer
}

type fakeTimer struct {
	d time.Duration
	f func()
}

func (c *fakeClock) after(d time.Duration, f func()) { c.timers = append(c.timers, fakeTimer{d, f}) }

func (c *fakeClock) fireAll() {
	ts := c.timers
	c.timers = nil
	for _, t := range ts {
		t.f()
	}
}

func TestNoteLife(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		kind   noteKind
		expire bool
	}{
		{"an answer goes by itself", noteAnswer, true},
		{"a state note goes by itself", noteState, true},
		{"an approval stays until answered", noteApproval, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lifeOf(tc.kind)
			if tc.expire && (got <= 0 || got > 15*time.Second) {
				t.Fatalf("lifeOf = %v, want a few seconds", got)
			}
			if !tc.expire && got != 0 {
				t.Fatalf("lifeOf = %v, want 0 (stays)", got)
			}
		})
	}
}

func TestExpirerRemovesAnswersOnly(t *testing.T) {
	t.Parallel()
	var clock fakeClock
	var removed []string
	e := newExpirer(func(id string) { removed = append(removed, id) })
	e.after = clock.after

	e.posted("answer-1", noteAnswer)
	e.posted("approval-1", noteApproval)
	e.posted("answer-2", noteAnswer)
	if len(removed) != 0 {
		t.Fatalf("removed %v before any time passed", removed)
	}
	for _, tm := range clock.timers {
		if tm.d != noteLife {
			t.Errorf("timer of %v, want %v", tm.d, noteLife)
		}
	}
	clock.fireAll()
	sort.Strings(removed)
	if want := []string{"answer-1", "answer-2"}; !reflect.DeepEqual(removed, want) {
		t.Fatalf("removed %v, want %v (the approval stays)", removed, want)
	}
}

func TestExpirerReplacedNoteGetsFreshLife(t *testing.T) {
	t.Parallel()
	var clock fakeClock
	var removed []string
	e := newExpirer(func(id string) { removed = append(removed, id) })
	e.after = clock.after

	e.posted("state-settings", noteState)
	first := clock.timers[0]
	e.posted("state-settings", noteState) // replaced: same identifier
	first.f()
	if len(removed) != 0 {
		t.Fatalf("the first post's timer removed the replacement: %v", removed)
	}
	clock.timers[1].f()
	if want := []string{"state-settings"}; !reflect.DeepEqual(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
}

func TestExpirerForgottenNoteIsLeftAlone(t *testing.T) {
	t.Parallel()
	var clock fakeClock
	var removed []string
	e := newExpirer(func(id string) { removed = append(removed, id) })
	e.after = clock.after

	e.posted("state-download", noteState)
	e.forget("state-download") // withdrawn already
	clock.fireAll()
	if len(removed) != 0 {
		t.Fatalf("removed %v after it was withdrawn", removed)
	}
}

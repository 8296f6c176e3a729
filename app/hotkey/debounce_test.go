package hotkey

import (
	"reflect"
	"testing"
	"time"
)

// step is one raw transition (press or release) at an offset in ms, or a
// flush at that offset.
type step struct {
	op string // "press", "release", "flush"
	ms int
}

func TestDebouncer(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	type want struct {
		kind Kind
		ms   int
	}
	cases := []struct {
		name  string
		steps []step
		want  []want
	}{
		{"clean press and release",
			[]step{{"press", 0}, {"release", 500}, {"flush", 560}},
			[]want{{Down, 0}, {Up, 500}}},
		{"release not reported before the window ends",
			[]step{{"press", 0}, {"release", 500}, {"flush", 540}},
			[]want{{Down, 0}}},
		{"x11 auto-repeat pairs are not releases",
			[]step{{"press", 0}, {"release", 500}, {"press", 500}, {"release", 533}, {"press", 534}, {"release", 900}, {"flush", 1000}},
			[]want{{Down, 0}, {Up, 900}}},
		{"repeat presses while held are dropped",
			[]step{{"press", 0}, {"press", 30}, {"press", 60}, {"release", 90}, {"flush", 200}},
			[]want{{Down, 0}, {Up, 90}}},
		{"re-press after the window is a new press",
			[]step{{"press", 0}, {"release", 100}, {"press", 200}, {"release", 300}, {"flush", 400}},
			[]want{{Down, 0}, {Up, 100}, {Down, 200}, {Up, 300}}},
		{"late flush settles the release before the next press",
			[]step{{"press", 0}, {"release", 100}, {"press", 300}},
			[]want{{Down, 0}, {Up, 100}, {Down, 300}}},
		{"release without press is ignored",
			[]step{{"release", 10}, {"flush", 100}},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDebouncer(60 * time.Millisecond)
			var got []want
			collect := func(evs []Event) {
				for _, e := range evs {
					got = append(got, want{e.Kind, int(e.At.Sub(base) / time.Millisecond)})
				}
			}
			for _, s := range tc.steps {
				switch s.op {
				case "press":
					collect(d.press(at(s.ms)))
				case "release":
					d.release(at(s.ms))
				case "flush":
					collect(d.flush(at(s.ms)))
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDebouncerReleaseDeadline(t *testing.T) {
	t.Parallel()
	d := newDebouncer(0)
	t0 := time.Now()
	d.press(t0)
	if dl := d.release(t0.Add(time.Second)); !dl.Equal(t0.Add(time.Second + DefaultRepeatWindow)) {
		t.Errorf("deadline = %v after press, want release + %v", dl.Sub(t0), DefaultRepeatWindow)
	}
	if dl := d.release(t0.Add(2 * time.Second)); !dl.IsZero() {
		t.Errorf("second release while one is pending gave deadline %v, want none", dl)
	}
}

// TestPumpNeverBlocksSource checks that raw events are accepted while nobody
// reads, and that all of them arrive in order once someone does.
func TestPumpNeverBlocksSource(t *testing.T) {
	t.Parallel()
	p := newPump(Options{RepeatWindow: 5 * time.Millisecond})
	defer p.Close()
	base := time.Now()
	for i := 0; i < 50; i++ {
		off := time.Duration(i) * 20 * time.Millisecond
		p.Press(base.Add(off))
		p.Release(base.Add(off + 10*time.Millisecond))
	}
	timeout := time.After(5 * time.Second)
	for i := 0; i < 100; i++ {
		select {
		case e := <-p.out:
			want := Down
			if i%2 == 1 {
				want = Up
			}
			if e.Kind != want {
				t.Fatalf("event %d = %v, want %v", i, e.Kind, want)
			}
		case <-timeout:
			t.Fatalf("only %d of 100 events delivered", i)
		}
	}
}

func TestPumpFlushesWithTimer(t *testing.T) {
	t.Parallel()
	p := newPump(Options{RepeatWindow: 20 * time.Millisecond})
	defer p.Close()
	now := time.Now()
	p.Press(now)
	p.Release(now)
	want := []Kind{Down, Up}
	for i, k := range want {
		select {
		case e := <-p.out:
			if e.Kind != k {
				t.Fatalf("event %d = %v, want %v", i, e.Kind, k)
			}
			if k == Up && !e.At.Equal(now) {
				t.Errorf("Up.At = %v, want the release time %v", e.At, now)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d (%v) never arrived", i, k)
		}
	}
}

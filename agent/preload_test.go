package agent

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent/ollamatest"
)

// speakAndAsk plays one voice request against srv: the key goes down (and,
// with preload, the model starts loading), the user speaks for speech, the
// key comes up and the request is sent. It returns how long after key-up
// the first word of the answer arrived.
func speakAndAsk(tb testing.TB, srv *ollamatest.Server, preload bool, speech time.Duration) time.Duration {
	tb.Helper()
	u, _ := url.Parse(srv.URL)
	var once sync.Once
	var keyUp time.Time
	var first time.Duration
	h := newHarness(tb, nil, func(o *Options) {
		o.Model, o.Client, o.Host = DefaultModel, NewOllamaClient(u), u.String()
		o.History, o.Audit = nil, nil
		o.OnEvent = func(e Event) {
			if e.Kind == EventText {
				once.Do(func() { first = time.Since(keyUp) })
			}
		}
	})
	ctx := context.Background()
	var wg sync.WaitGroup
	if preload {
		wg.Go(func() { _ = h.agent.Preload(ctx) })
	}
	time.Sleep(speech)
	keyUp = time.Now()
	if _, err := h.agent.Run(ctx, NewConversation(), "say hello"); err != nil {
		tb.Fatal(err)
	}
	wg.Wait()
	return first
}

// The preload hides a model load that takes as long as the user speaks:
// the first word after key-up comes no later than with the model already
// in memory (within scheduling noise), and much sooner than without it.
func TestPreloadHidesTheModelLoad(t *testing.T) {
	t.Parallel()
	const load, speech = 300 * time.Millisecond, 300 * time.Millisecond
	cases := []struct {
		name    string
		preload bool
		check   func(t *testing.T, got, baseline time.Duration)
	}{
		{"without preload the user waits for the load", false, func(t *testing.T, got, _ time.Duration) {
			if got < load {
				t.Errorf("first word %v after key-up, want at least the %v load", got, load)
			}
		}},
		{"with preload the load is hidden", true, func(t *testing.T, got, baseline time.Duration) {
			if got > baseline+load/3 {
				t.Errorf("first word %v after key-up, baseline %v: the load was not hidden", got, baseline)
			}
		}},
	}
	baseline := func() time.Duration {
		srv := ollamatest.New(t).Script(ollamatest.Reply{Text: "Hello there."})
		return speakAndAsk(t, srv, false, 0)
	}()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t).Script(ollamatest.Reply{Text: "Hello there."})
			srv.SetLoadDelay(load)
			c.check(t, speakAndAsk(t, srv, c.preload, speech), baseline)
		})
	}
}

// BenchmarkPreload measures the first word after key-up for a 2 s model
// load while the user speaks for 2 s. "warm" (the model already loaded) is
// the baseline measured in the same run; the others report x-warm, their
// ratio to it. Run with -benchtime=1x: each iteration takes seconds.
func BenchmarkPreload(b *testing.B) {
	const load, speech = 2 * time.Second, 2 * time.Second
	run := func(b *testing.B, delay time.Duration, preload bool) float64 {
		var total time.Duration
		n := 0
		for b.Loop() {
			srv := ollamatest.New(b).Script(ollamatest.Reply{Text: "Hello there."})
			srv.SetLoadDelay(delay)
			total += speakAndAsk(b, srv, preload, speech)
			n++
		}
		ms := float64(total.Microseconds()) / 1000 / float64(n)
		b.ReportMetric(ms, "ms-after-keyup")
		return ms
	}
	var warm float64
	b.Run("warm", func(b *testing.B) { warm = run(b, 0, false) })
	for _, c := range []struct {
		name    string
		preload bool
	}{{"cold", false}, {"cold+preload", true}} {
		b.Run(c.name, func(b *testing.B) {
			ms := run(b, load, c.preload)
			if warm > 0 {
				b.ReportMetric(ms/warm, "x-warm")
			}
		})
	}
}

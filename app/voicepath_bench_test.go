package app

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech"
)

// The runner re-executes the running binary as its sandbox helper; in
// this package's tests that is the test binary, so serve it first.
func init() {
	if len(os.Args) > 1 && os.Args[1] == shell.HelperCommand {
		syscall.Exit(shell.SandboxHelperMain(os.Args[2:]))
	}
}

// stageClock adds up the time the stand-ins really spent, so what is left
// of the total is Hark's.
type stageClock struct {
	mu    sync.Mutex
	spent time.Duration
}

func (c *stageClock) sleep(d time.Duration) {
	t0 := time.Now()
	time.Sleep(d)
	c.mu.Lock()
	c.spent += time.Since(t0)
	c.mu.Unlock()
}

func (c *stageClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spent
}

// tailRecorder keeps recording for the tail after key-up, as the real one.
type tailRecorder struct {
	clock   *stageClock
	tail    time.Duration
	started chan struct{}
}

func (r *tailRecorder) Start(context.Context) error { r.started <- struct{}{}; return nil }
func (r *tailRecorder) Stop() (speech.Audio, error) {
	r.clock.sleep(r.tail)
	return speech.Audio{Samples: make([]float32, 16000), SampleRate: 16000}, nil
}

// costTranscriber stands in for whisper with a fixed cost.
type costTranscriber struct {
	clock *stageClock
	cost  time.Duration
	text  string
}

func (t *costTranscriber) Transcribe(context.Context, speech.Audio) (string, error) {
	t.clock.sleep(t.cost)
	return t.text, nil
}

// BenchmarkVoicePath drives the whole voice path: key-up, the recording
// tail, a transcriber with a fixed cost, the real agent against a test
// Ollama that streams a tool call at a fixed token rate, the real policy
// and the real runner (sandboxed where this OS allows), the model's
// answer and the final notification. Hark's own overhead is the total
// less what the stand-ins spent (the tail, the transcription and the
// model's time, each as long as it really took); the goal is at most 30
// ms on a two-core machine. overhead-% is its share of the total.
func BenchmarkVoicePath(b *testing.B) {
	const (
		tail       = 50 * time.Millisecond
		transcribe = 100 * time.Millisecond
		perToken   = 2 * time.Millisecond // 500 pieces a second
	)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600); err != nil {
		b.Fatal(err)
	}
	srv := ollamatest.New(b)
	srv.Next = func(n int, req api.ChatRequest) ollamatest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Reply{Text: "Your folder holds notes.txt.", Pace: perToken}
		}
		return ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "ls "+dir, "purpose", "checking")}, Pace: perToken}
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	real, err := agent.New(agent.Options{Client: agent.NewOllamaClient(u), Model: agent.DefaultModel, Host: srv.URL,
		Classifier: shell.NewPolicy(), Executor: shell.NewRunner(shell.RunnerOptions{Home: dir}), Home: dir})
	if err != nil {
		b.Fatal(err)
	}
	clock := &stageClock{}
	rec := &tailRecorder{clock: clock, tail: tail, started: make(chan struct{}, 1)}
	notifier := newFakeNotifier()
	s := settings.Defaults()
	s.HotkeyMode = ModePushToTalk
	a := New(Options{Settings: s, Paths: testPaths(b.TempDir()), Recorder: rec,
		Transcriber: &costTranscriber{clock: clock, cost: transcribe, text: "what is in my folder"},
		Agent:       real, Notifier: notifier, Menu: &fakeMenu{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	var totals, overheads, stands []time.Duration
	sandboxed := ""
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Post(MenuClick{ID: IDNewConversation}) // every press the same size
		a.Post(KeyDown{})
		recv(b, "recording", rec.started)
		spent, model := clock.total(), srv.ModelTime()
		start := time.Now()
		a.Post(KeyUp{})
		n := recv(b, "the answer", notifier.got)
		total := time.Since(start)
		if !strings.HasSuffix(n.body, "Your folder holds notes.txt.") {
			b.Fatalf("the path ended with %+v", n)
		}
		stand := clock.total() - spent + srv.ModelTime() - model
		totals = append(totals, total)
		overheads = append(overheads, total-stand)
		stands = append(stands, stand)
	}
	b.StopTimer()
	for _, req := range srv.Requests()[len(srv.Requests())-1:] {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				if !strings.Contains(m.Content, "notes.txt") {
					b.Fatalf("the command's output did not reach the model: %s", m.Content)
				}
				if strings.Contains(m.Content, `"sandbox":"`+shell.SandboxApplied+`"`) {
					sandboxed = "sandboxed"
				}
			}
		}
	}
	median := func(d []time.Duration) time.Duration {
		d = append([]time.Duration(nil), d...)
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	mt, mo := median(totals), median(overheads)
	b.ReportMetric(float64(mo.Microseconds())/1000, "overhead-ms")
	b.ReportMetric(100*float64(mo)/float64(mt), "overhead-%")
	b.ReportMetric(float64(mt.Microseconds())/1000, "total-ms")
	// The baseline the overhead is a share of: what the stand-ins spent.
	b.ReportMetric(float64(median(stands).Microseconds())/1000, "stand-ins-ms")
	if sandboxed == "" {
		b.Log("the command ran without the sandbox here (none available); its cost is then lower than on a machine with one")
	}
}

package app

import (
	"context"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
)

// pullHarness is the app against a test Ollama that lacks the model the
// settings name: the ollama check is the real agent.Check and the puller
// the real agent.Pull.
type pullHarness struct {
	*harness
	srv   *ollamatest.Server
	model string
}

func startPull(t *testing.T, model string, offer ollamatest.Pull, edits ...func(*Options)) *pullHarness {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Qwen3("other:1b"))
	offer.Model = ollamatest.Qwen3(model)
	srv.Offer(offer)
	return startPullOn(t, srv, model, edits...)
}

// startPullOn is startPull against srv as it is.
func startPullOn(t *testing.T, srv *ollamatest.Server, model string, edits ...func(*Options)) *pullHarness {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := agent.NewOllamaClient(u)
	// The agent fails as the real one does while the model is missing.
	ag := newFakeAgent(func(ctx context.Context, _ request, _ agent.Confirmer, on func(agent.Event)) (string, error) {
		if _, err := agent.Check(ctx, c, srv.URL, model, 0, false); err != nil {
			return "", err
		}
		on(agent.Event{Kind: agent.EventFinal, Text: "ok"})
		return "ok", nil
	})
	h := start(t, ag, func(o *Options) {
		o.Checks = map[string]func(context.Context) error{"ollama": func(ctx context.Context) error {
			_, err := agent.Check(ctx, c, srv.URL, model, 0, false)
			if err != nil {
				// As cmd/hark gives the row its title: the offer must
				// still find the model under the wrapping.
				err = &TitledError{Title: "Ollama model not ready", Err: err}
			}
			return err
		}}
		o.RecheckFirst = time.Hour // the tests re-check by what they do, not by the clock
		o.Puller = PullFunc(func(ctx context.Context, m string, fn func(agent.PullProgress)) error {
			return agent.Pull(ctx, c, srv.URL, m, fn)
		})
		for _, e := range edits {
			e(o)
		}
	})
	return &pullHarness{harness: h, srv: srv, model: model}
}

func itemWithID(m Menu, id string) (MenuItem, bool) {
	for _, it := range m.Items {
		if it.ID == id {
			return it, true
		}
	}
	return MenuItem{}, false
}

func (h *pullHarness) offered(t *testing.T, what string, label string) {
	t.Helper()
	v := h.views.wait(t, what, func(v View) bool {
		it, ok := itemWithID(BuildMenu(v), PrefixDownload+h.model)
		return ok && it.Label == label && v.Pull == nil
	})
	if _, ok := itemWithID(BuildMenu(v), IDCancelDownload); ok {
		t.Errorf("%s: Cancel download shown with no download under way", what)
	}
}

// A model that is not pulled is offered for download with its size; the
// download shows its progress on the status line, can be cancelled from
// the menu while it runs, ends with a notification, and the problem goes
// away once Ollama has the model.
func TestMenuDownloadsTheModel(t *testing.T) {
	t.Parallel()
	model := agent.DefaultModel
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{2_400_000_000, 100_000_000}, Pace: time.Millisecond, HoldAt: 1_000_000_000})
	h.offered(t, "the offer", "    Download "+model+" (2.5 GB)")

	h.app.Post(MenuClick{ID: PrefixDownload + model})
	for !h.srv.Held(model) {
		time.Sleep(time.Millisecond)
	}
	v := h.views.wait(t, "progress on the status line", func(v View) bool {
		s := StatusLine(v)
		return strings.HasPrefix(s, "Downloading "+model+": 48% of 2.5 GB · ") && strings.Contains(s, "B/s · ") && strings.HasSuffix(s, " left")
	})
	m := BuildMenu(v)
	if _, ok := itemWithID(m, IDCancelDownload); !ok {
		t.Error("no Cancel download while downloading")
	}
	if _, ok := itemWithID(m, PrefixDownload+model); ok {
		t.Error("the download is still offered while it runs")
	}
	h.srv.ReleasePulls()
	n := recv(t, "the end's notification", h.notifier.got)
	if n.title != "Model downloaded" || !strings.HasPrefix(n.body, model+" is ready.") || !strings.Contains(n.body, "Downloaded 2.5 GB in ") {
		t.Errorf("notification %+v", n)
	}
	h.views.wait(t, "the problem gone", func(v View) bool {
		_, ok := v.Problems["ollama"]
		return !ok && v.Pull == nil && strings.Contains(v.Note, "downloaded")
	})
	if !h.srv.Installed(model) {
		t.Error("the model is not installed")
	}
}

// Cancel download stops the pull itself (the server sees the client go
// away), installs nothing and offers the download again.
func TestMenuCancelsTheDownload(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{5_200_000_000}, HoldAt: 1_000_000_000})
	h.offered(t, "the offer", "    Download "+model+" (5.2 GB)")
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	for !h.srv.Held(model) {
		time.Sleep(time.Millisecond)
	}
	// The server holds the pull once it has sent 20%; cancel only once
	// the app has seen that progress, or it rightly says nothing was kept.
	h.views.wait(t, "progress at 20%", func(v View) bool { return strings.Contains(StatusLine(v), ": 20% of 5.2 GB") })
	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDCancelDownload})
	v := h.views.waitFrom(t, m, "cancelled", func(v View) bool { return v.Pull == nil && strings.HasPrefix(v.Note, "download cancelled") })
	if !strings.Contains(v.Note, "20%") || !strings.Contains(v.Note, "Resume download") {
		t.Errorf("the status line %q does not say what was kept and how to go on", v.Note)
	}
	n := recv(t, "the cancel's notification", h.notifier.got)
	if n.title != "Download cancelled" || !strings.Contains(n.body, "20% of 5.2 GB") || !strings.Contains(n.body, "Resume download") {
		t.Errorf("notification %+v", n)
	}
	// What was downloaded is offered to go on from, not from the start.
	resume := "    Resume download " + model + " (5.2 GB, 20% already downloaded)"
	h.offered(t, "the offer to resume", resume)
	for h.srv.PullsAborted() == 0 {
		time.Sleep(time.Millisecond)
	}
	if h.srv.Installed(model) {
		t.Error("a cancelled download installed the model")
	}
	v = h.views.wait(t, "the resume row", func(v View) bool {
		it, ok := itemWithID(BuildMenu(v), PrefixDownload+model)
		return ok && it.Label == resume
	})
	it, _ := itemWithID(BuildMenu(v), PrefixDownload+model)
	if !strings.Contains(it.Tooltip, "Ollama keeps") || !strings.Contains(it.Tooltip, "restart") {
		t.Errorf("the resume row's tooltip %q does not say when the part is kept", it.Tooltip)
	}
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	for !h.srv.Held(model) {
		time.Sleep(time.Millisecond)
	}
	if from := h.srv.ResumedFrom(model); from != 1_040_000_000 {
		t.Errorf("the second pull started from %d bytes, not from what the first kept", from)
	}
	h.srv.ReleasePulls()
	if n := recv(t, "the ready notification", h.notifier.got); !strings.HasPrefix(n.body, model+" is ready. Finished downloading 5.2 GB in ") {
		t.Errorf("a resumed download's notification says %q", n.body)
	}
	h.views.wait(t, "downloaded", func(v View) bool { return v.Pull == nil && strings.Contains(v.Note, "downloaded") })
}

// A failed download is a notification that says why; the offer comes
// back to resume it, and for a model outside Hark's table it now carries
// the size the attempt learnt, which it could not show before.
func TestMenuDownloadFails(t *testing.T) {
	t.Parallel()
	model := "tiny:1b"
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{900_000, 100_000}, FailAt: 300_000,
		Error: "max retries exceeded: connection reset by peer"})
	h.offered(t, "the offer without a size", "    Download "+model)
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	n := recv(t, "the failure's notification", h.notifier.got)
	if n.title != "Download failed" || !strings.Contains(n.body, model) || !strings.Contains(n.body, "connection reset") || !strings.Contains(n.body, "resumes") {
		t.Errorf("notification %+v", n)
	}
	// Ollama keeps what it got, so the offer goes on from there.
	h.offered(t, "the offer with the learnt size", "    Resume download "+model+" (1.0 MB, 36% already downloaded)")
	h.views.wait(t, "the note", hasNote("download failed"))
}

// gpuServer is a test Ollama that has model and, once it is loaded,
// reports it 3.4 of 6.1 GB in GPU memory; real is the agent that loads it.
func gpuServer(t *testing.T, model string) (*ollamatest.Server, *agent.GPUWatch, *agent.Agent) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Qwen3(model))
	srv.SetPlacement(model, 6_100_000_000, 3_400_000_000)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := agent.NewOllamaClient(u)
	real, err := agent.New(agent.Options{Client: c, Model: model, Host: srv.URL, Classifier: nothingRuns{}, Executor: nothingRuns{}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return srv, &agent.GPUWatch{Client: c, Model: model}, real
}

// After the first load, a model that /api/ps shows partly outside GPU
// memory is a problem row with the numbers, whose detail names a smaller
// model.
func TestMenuSaysTheModelIsPartlyOnTheCPU(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	_, watch, real := gpuServer(t, model)
	// Each verdict of the check, in order, so the test knows what the
	// start-up check said without guessing which render it caused.
	verdicts := make(chan error, 16)
	fake := answerAgent("ok")
	h := start(t, fake, func(o *Options) {
		o.Agent = loadingAgent{fakeAgent: fake, real: real}
		o.Checks = map[string]func(context.Context) error{"gpu": func(ctx context.Context) error {
			err := watch.Check(ctx)
			verdicts <- err
			return err
		}}
		o.RecheckFirst = time.Hour
	})
	// Nothing is loaded at start: the start-up check finds no problem.
	if err := recv(t, "the start-up check", verdicts); err != nil {
		t.Fatalf("the check before any load: %v", err)
	}
	h.app.Post(KeyDown{})
	h.app.Post(KeyUp{})
	v := h.views.wait(t, "the placement problem", func(v View) bool { _, ok := v.Problems["gpu"]; return ok })
	p := v.Problems["gpu"]
	if p.Title != "Model partly on the CPU (44%): answers slower — see Problems…" {
		t.Errorf("row %q", p.Title)
	}
	if !strings.Contains(p.Detail, "runs partly on the CPU") || !strings.Contains(p.Detail, agent.DefaultModel) {
		t.Errorf("detail %q", p.Detail)
	}
	it, ok := itemWithID(BuildMenu(v), PrefixProblem+"gpu")
	if !ok || it.Label != "⚠ "+p.Title {
		t.Errorf("menu row %+v", it)
	}
	if iconFor(v) == "degraded" {
		t.Error("a slow model is not a missing part")
	}
}

// A placement check that looked before the load and answers after it
// must not use up the look the load asked for: the check asked for while
// it ran runs again, and the problem shows without waiting for another
// request.
func TestGPUCheckAskedWhileRunningRunsAgain(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	srv, watch, real := gpuServer(t, model)
	looked, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	// The agent loads the model itself and answers once it is loaded; it
	// has no Preload, so the answer is the only news of the load.
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		if err := real.Preload(ctx); err != nil {
			return "", err
		}
		return "ok", nil
	})
	h := start(t, ag, func(o *Options) {
		o.Checks = map[string]func(context.Context) error{"gpu": func(ctx context.Context) error {
			err := watch.Check(ctx)
			if calls.Add(1) == 1 {
				// The start-up check has seen nothing loaded; it answers
				// only after the request below has finished.
				close(looked)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return err
		}}
		o.RecheckFirst = time.Hour
	})
	recv(t, "the start-up check's look", looked)
	h.app.Post(KeyDown{})
	h.app.Post(KeyUp{})
	h.views.wait(t, "the answer", func(v View) bool { return v.State == Idle && v.Stream == "ok" })
	if !srv.Loaded(model) {
		t.Fatal("the request did not load the model")
	}
	close(release)
	v := h.views.wait(t, "the placement problem", func(v View) bool { _, ok := v.Problems["gpu"]; return ok })
	if got := v.Problems["gpu"].Title; !strings.Contains(got, "(44%): answers slower") {
		t.Errorf("row %q", got)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the check ran %d times, want the start-up run and one more", n)
	}
}

// The size a built-in table gives and the offer's row text.
func TestDownloadRowSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    ProblemInfo
		want string
	}{
		{ProblemInfo{Download: "qwen2.5:7b", DownloadSize: agent.KnownSize("qwen2.5:7b")}, "    Download qwen2.5:7b (4.7 GB)"},
		{ProblemInfo{Download: "mine:3b"}, "    Download mine:3b"},
	} {
		if got := downloadRow(tc.p).Label; got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// A request that failed because the model is missing leaves its error on
// the status line; downloading that model retires it, so the line no
// longer tells the user to pull what is now there, and the next request
// runs.
func TestDownloadClearsTheMissingModelError(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{1_000_000}})
	h.offered(t, "the offer", "    Download "+model+" (5.2 GB)")
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "hello", Wait: true, Reply: reply})
	if r := recv(t, "the failed request", reply); r.OK || !strings.Contains(r.Error, "not installed") {
		t.Fatalf("request before the download: %+v", r)
	}
	h.views.wait(t, "the error shown", func(v View) bool {
		return v.State == Error && strings.HasPrefix(StatusLine(v), "Error: ")
	})
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	v := h.views.wait(t, "downloaded", func(v View) bool { return v.Pull == nil && strings.Contains(v.Note, "downloaded") })
	if v.State != Idle || strings.Contains(StatusLine(v), "not installed") {
		t.Errorf("after the download the status line says %q (state %v)", StatusLine(v), v.State)
	}
	reply = make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "hello", Wait: true, Reply: reply})
	if r := recv(t, "the request after", reply); !r.OK {
		t.Errorf("request after the download: %+v", r)
	}
}

// A request that fails because the model went missing offers the
// Download row at once, without waiting for a check or a restart, and
// no tray text names a flag of a terminal command (--model).
func TestFailedRequestOffersTheDownload(t *testing.T) {
	t.Parallel()
	model := agent.DefaultModel
	srv := ollamatest.New(t, ollamatest.Qwen3(model))
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(model), Layers: []int64{1000}})
	h := startPullOn(t, srv, model, func(o *Options) { o.Checks = nil })
	srv.Remove(model)
	m := h.views.mark()
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "how much disk space is left", Wait: true, Reply: reply})
	r := recv(t, "the reply", reply)
	n := recv(t, "the notification", h.notifier.got)
	for what, text := range map[string]string{"notification": n.body, "reply": r.Error} {
		if !strings.Contains(text, "Download it from the Hark menu") || strings.Contains(text, "--model") {
			t.Errorf("%s %q: want the menu's Download, no --model", what, text)
		}
	}
	v := h.views.waitFrom(t, m, "the Download row", func(v View) bool {
		_, ok := itemWithID(BuildMenu(v), PrefixDownload+model)
		return ok && v.State == Error
	})
	for _, it := range BuildMenu(v).Items {
		if strings.Contains(it.Label+it.Tooltip, "--model") {
			t.Errorf("menu row %q (tooltip %q) names a terminal flag", it.Label, it.Tooltip)
		}
	}
	if s := StatusLine(v); !strings.Contains(s, "Download it below (Download "+model+")") || strings.Contains(s, "Hark menu") {
		t.Errorf("status %q", StatusLine(v))
	}
	// The row works: the model comes back and the error goes.
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	h.views.wait(t, "downloaded", func(v View) bool { return v.State == Idle && strings.Contains(v.Note, "downloaded") })
	if !srv.Installed(model) {
		t.Error("the model is not installed after the download")
	}
}

// The periodic check's text for a missing model says the same.
func TestModelCheckNamesNoTerminalFlag(t *testing.T) {
	t.Parallel()
	h := startPull(t, agent.DefaultModel, ollamatest.Pull{Layers: []int64{1000}})
	v := h.views.wait(t, "the offer", func(v View) bool { return v.Problems["ollama"].Download != "" })
	if d := v.Problems["ollama"].Detail; strings.Contains(d, "--model") || !strings.Contains(d, "Download it from the Hark menu") {
		t.Errorf("problem detail %q", d)
	}
}

// TestToolsUnsupportedNamesNoTerminalFlag: a model that cannot call tools
// is said in the tray's words, in the problem row, the failed request's
// notification and its reply: the setting to change, never hark ask's
// --model.
func TestToolsUnsupportedNamesNoTerminalFlag(t *testing.T) {
	t.Parallel()
	model := "gemma:2b"
	h := startPullOn(t, ollamatest.New(t, ollamatest.NoTools(model)), model)
	v := h.views.wait(t, "the problem row", func(v View) bool { return v.Problems["ollama"].Detail != "" })
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "how much disk space is left", Wait: true, Reply: reply})
	r := recv(t, "the reply", reply)
	n := recv(t, "the notification", h.notifier.got)
	for what, text := range map[string]string{"problem row": v.Problems["ollama"].Detail, "notification": n.body, "reply": r.Error} {
		if strings.Contains(text, "--model") || !strings.Contains(text, "cannot call tools") || !strings.Contains(text, "ollamaModel setting in Settings…") {
			t.Errorf("%s %q: want what is wrong and the setting to change, no --model", what, text)
		}
	}
}

// TestResumedDownloadForgetsTheCancel: once a cancelled download is
// resumed, neither the status line nor the desktop's notifications still
// say it was cancelled, and once the model is downloaded the failed
// request that asked for it is withdrawn too (walk 6, B2-5, B3-11).
func TestResumedDownloadForgetsTheCancel(t *testing.T) {
	t.Parallel()
	model := "qwen3:8b"
	var n *keyedNotifier
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{5_200_000_000}, HoldAt: 1_000_000_000}, func(o *Options) {
		n = &keyedNotifier{fakeNotifier: o.Notifier.(*fakeNotifier), open: map[string]string{}, closed: make(chan string, 8)}
		o.Notifier = n
	})
	titled := func(title string) string {
		n.mu.Lock()
		defer n.mu.Unlock()
		for k, v := range n.open {
			if v == title {
				return k
			}
		}
		return ""
	}
	h.offered(t, "the offer", "    Download "+model+" (5.2 GB)")
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "hello", Wait: true, Reply: reply})
	recv(t, "the failed request", reply)
	recv(t, "its notification", n.got)
	failed := titled("Request failed")
	if failed == "" {
		t.Fatal("the failed request's notification cannot be withdrawn: it was posted without a key")
	}

	h.app.Post(MenuClick{ID: PrefixDownload + model})
	h.views.wait(t, "progress at 20%", func(v View) bool { return strings.Contains(StatusLine(v), ": 20% of 5.2 GB") })
	h.app.Post(MenuClick{ID: IDCancelDownload})
	h.views.wait(t, "cancelled", func(v View) bool { return v.Pull == nil && strings.HasPrefix(v.Note, "download cancelled") })
	recv(t, "the cancel's notification", n.got)
	cancelled := titled("Download cancelled")
	if cancelled == "" {
		t.Fatal("the cancel's notification cannot be withdrawn: it was posted without a key")
	}

	h.offered(t, "the offer to resume", "    Resume download "+model+" (5.2 GB, 20% already downloaded)")
	for h.srv.PullsAborted() == 0 || h.srv.Held(model) {
		time.Sleep(time.Millisecond) // the first pull is over at the server too
	}
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	if got := recv(t, "the cancel withdrawn", n.closed); got != cancelled {
		t.Errorf("withdrew %q at the resume, want the cancel's %q", got, cancelled)
	}
	v := h.views.wait(t, "the resumed download", func(v View) bool { return v.Pull != nil && strings.Contains(StatusLine(v), "% of 5.2 GB") })
	if s := StatusLine(v); strings.Contains(s, "cancelled") || strings.Contains(v.Note, "cancelled") {
		t.Errorf("the resumed download's status says %q (note %q)", s, v.Note)
	}
	for !h.srv.Held(model) {
		time.Sleep(time.Millisecond)
	}
	h.srv.ReleasePulls()
	if got := recv(t, "the failed request withdrawn", n.closed); got != failed {
		t.Errorf("withdrew %q after the download, want the failed request's %q", got, failed)
	}
}

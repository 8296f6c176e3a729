//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// bigModel is a recommended model other than the default, so the menu
// knows its size before the pull and the GPU check has a smaller one to
// name.
const bigModel = "qwen3:8b"

func bigModelSettings() string {
	return `{"confirmTimeout": "60s", "recordTail": "200ms", "previewTimeout": "10s", "ollamaModel": "` + bigModel + `"}`
}

// startHarkWith is startHark with the given settings file.
func startHarkWith(t *testing.T, d *desktop, settingsJSON string) *hark {
	t.Helper()
	h := launchHarkWith(t, d, settingsJSON)
	h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
	h.menu.WaitFor(t, 30*time.Second, "Quit")
	return h
}

// statusMatching waits for a menu row matching re and returns it.
func statusMatching(t *testing.T, h *hark, within time.Duration, re *regexp.Regexp) string {
	t.Helper()
	var row string
	harness.Eventually(t, within, "a row matching "+re.String(), func() error {
		root, err := h.menu.Layout()
		if err != nil {
			return err
		}
		for _, r := range root.Rows() {
			if re.MatchString(r) {
				row = r
				return nil
			}
		}
		return fmt.Errorf("menu:\n%s", root.Labels())
	})
	return row
}

// TestMenuDownloadsModel is point 8 through the real app's wiring: the
// configured model is not pulled, the menu offers it with its size, a
// click pulls it through Ollama's /api/pull with progress on the status
// line, Cancel stops it with nothing installed and the offer back, and a
// finished pull says so in a notification, clears the problem and lets a
// request run on the new model.
func TestMenuDownloadsModel(t *testing.T) {
	d := newDesktop(t, true, true)
	// 40 MB in two layers; each pull pauses at half, so the test sees
	// the progress and chooses when it goes on.
	d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel), Layers: []int64{40_000_000, 10_000}, HoldAt: 20_000_000})
	h := startHarkWith(t, d, bigModelSettings())

	offer := "Download " + bigModel + " (" + agent.SizeText(agent.KnownSize(bigModel)) + ")"
	h.menu.WaitFor(t, 30*time.Second, offer)
	if d.ollama.Installed(bigModel) {
		t.Fatal("the model was installed before anyone chose to download it")
	}

	// Cancel during the download.
	h.menu.ClickUntil(t, 30*time.Second, offer, func() error {
		if !d.ollama.Held(bigModel) {
			return fmt.Errorf("no pull of %s under way", bigModel)
		}
		return nil
	})
	progress := regexp.MustCompile(`^Downloading ` + regexp.QuoteMeta(bigModel) + `: 49% of 40\.0 MB · [0-9.]+ [kMG]?B/s · [0-9:]+ left$`)
	row := statusMatching(t, h, 20*time.Second, progress)
	t.Logf("status line mid-pull: %q", row)
	// The tooltip names the state, not the moving progress, which a tray
	// would re-show over the open menu.
	if tip, err := h.menu.Tooltip(); err != nil || tip != "Hark — downloading "+bigModel {
		t.Errorf("tooltip mid-pull %q (%v)", tip, err)
	}
	h.menu.WaitGone(t, 5*time.Second, "Download "+bigModel)
	h.menu.ClickUntil(t, 30*time.Second, "Cancel download", func() error {
		if d.ollama.PullsAborted() == 0 {
			return fmt.Errorf("the server has not seen the pull end")
		}
		return nil
	})
	// The offer comes back to resume, with the size the pull learnt and
	// what is already there, and a notification says so.
	again := "Resume download " + bigModel + " (40.0 MB, 49% already downloaded)"
	h.menu.WaitFor(t, 20*time.Second, again)
	harness.Eventually(t, 20*time.Second, "the cancel's notification", func() error {
		for _, n := range d.notes.All() {
			if n.Summary == "Download cancelled" && strings.HasPrefix(n.Body, "49% of 40.0 MB of "+bigModel+" was downloaded.") && strings.Contains(n.Body, "Resume download") {
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	h.menu.WaitGone(t, 5*time.Second, "Cancel download")
	if d.ollama.Installed(bigModel) {
		t.Fatal("a cancelled pull installed the model")
	}
	if out, _ := h.send(true, "say hello"); strings.Contains(out, "hello from the fake model") {
		t.Fatalf("a request ran on a model that is not installed: %q", out)
	}

	// Download to the end, going on from the part Ollama kept: no byte
	// has moved yet where the fake holds it, so no rate shows.
	h.menu.ClickUntil(t, 30*time.Second, again, func() error {
		if !d.ollama.Held(bigModel) {
			return fmt.Errorf("no pull of %s under way", bigModel)
		}
		return nil
	})
	if from := d.ollama.ResumedFrom(bigModel); from == 0 {
		t.Error("the second pull started from nothing")
	}
	statusMatching(t, h, 20*time.Second, regexp.MustCompile(`^Downloading `+regexp.QuoteMeta(bigModel)+`: 49% of 40\.0 MB`))
	d.ollama.ReleasePulls()
	var ready harness.Notification
	harness.Eventually(t, 30*time.Second, "the ready notification", func() error {
		for _, n := range d.notes.All() {
			if n.Summary == "Model downloaded" && strings.HasPrefix(n.Body, bigModel+" is ready.") {
				ready = n
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	if !strings.Contains(ready.Body, "Finished downloading 40.0 MB in ") {
		t.Errorf("ready notification body %q", ready.Body)
	}
	if !d.ollama.Installed(bigModel) {
		t.Fatal("the notification said ready but the server has no model")
	}
	h.menu.WaitGone(t, 30*time.Second, "Download "+bigModel)
	h.menu.WaitGone(t, 5*time.Second, "Cancel download")
	h.menu.WaitGone(t, 5*time.Second, "⚠ Ollama")
	h.waitIdle()
	if out, code := h.send(true, "say hello"); code != 0 || !strings.Contains(out, "hello from the fake model") {
		t.Fatalf("a request after the download: exit %d, %q", code, out)
	}
	h.quit()
}

// TestMenuModelPartlyOnCPU: once the model has answered, /api/ps shows
// it partly in GPU memory, and the menu says so with the numbers, as
// `hark doctor` does, naming a smaller model.
func TestMenuModelPartlyOnCPU(t *testing.T) {
	d := newDesktop(t, true, true)
	d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel)})
	u, err := url.Parse(d.ollama.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := api.NewClient(u, http.DefaultClient).Pull(ctx, &api.PullRequest{Model: bigModel}, func(api.ProgressResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	d.ollama.SetPlacement(bigModel, 6_100_000_000, 3_400_000_000)
	h := startHarkWith(t, d, bigModelSettings())
	h.waitIdle()

	if out, code := h.send(true, "say hello"); code != 0 || !strings.Contains(out, "hello from the fake model") {
		t.Fatalf("request: exit %d, %q", code, out)
	}
	h.menu.WaitFor(t, 30*time.Second, "⚠ Model partly on the CPU (44%): answers slower — see Problems…")
	h.menu.WaitFor(t, 5*time.Second, "Problems…")

	out, _ := h.run("doctor")
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Model in GPU memory") {
			line = l
		}
	}
	if !strings.Contains(line, bigModel+" runs partly on the CPU: 3.4 GB of 6.1 GB in GPU memory (44% on the CPU)") || !strings.Contains(line, `set "ollamaModel" to `+agent.DefaultModel) {
		t.Errorf("hark doctor's GPU line %q in:\n%s", line, out)
	}
	h.quit()
}

// A model removed from Ollama while Hark runs: the request that finds it
// missing brings the menu's Download row at once, without a restart, and
// its notification points at the menu, not at a terminal flag.
func TestMissingModelOffersDownloadWithoutRestart(t *testing.T) {
	d := newDesktop(t, true, true)
	d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(model), Layers: []int64{10_000}})
	h := startHark(t, d)
	h.menu.WaitFor(t, 30*time.Second, "Ready")
	d.ollama.Remove(model)
	before := len(d.notes.All())
	if out, code := h.send(true, "how much disk space is left"); code == 0 {
		t.Fatalf("a request on a removed model succeeded: %q", out)
	}
	var failed harness.Notification
	harness.Eventually(t, 30*time.Second, "the failure's notification", func() error {
		for _, n := range d.notes.All()[before:] {
			if strings.Contains(n.Body, "not installed") {
				failed = n
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	if !strings.Contains(failed.Body, "Download it from the Hark menu") || strings.Contains(failed.Body, "--model") {
		t.Errorf("notification %q: %q", failed.Summary, failed.Body)
	}
	offer := "Download " + model
	h.menu.WaitFor(t, 20*time.Second, offer)
	root, err := h.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(root.Labels(), "--model") {
		t.Errorf("the menu names a terminal flag:\n%s", root.Labels())
	}
	h.menu.ClickUntil(t, 30*time.Second, offer, func() error {
		if !d.ollama.Installed(model) {
			return fmt.Errorf("%s not installed yet", model)
		}
		return nil
	})
	h.menu.WaitGone(t, 30*time.Second, offer)
	h.quit()
}

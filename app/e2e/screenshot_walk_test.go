//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// walkRules are the requests of the desktop walk whose screens
// screenshots-all.sh retakes, with answers as a model writes them.
var walkRules = []rule{
	{when: "archive the old project logs", command: "rm ~/Projects/webapp/logs/server_2024-01-03.log ~/Projects/webapp/logs/server_2024-01-04.log",
		answer: "Archived 2 log files into ~/Backups and removed the originals."},
	{when: "how much disk space", command: "df -h ~", purpose: "checking", answer: "You have plenty of space left in your home folder. Nothing was changed."},
	{when: "remove the thumbnails", command: "rm -rf ~/.cache/thumbnails", retry: "rm -rf ~/.cache/thumbnails/large", answer: "Left the thumbnails alone."},
	{when: "delete the old builds", command: "rm -r ~/Downloads/old_builds", answer: "Moved the old builds to the Trash."},
	{when: "make a release notes folder", command: "mkdir release_notes_v2", answer: "Made the folder."}, // dir: set per run
	{when: "say hello", answer: "Hello! What can I do for you?"},
}

// plainAnswers drops the fake model's bracketed tool result from its
// answers, so a screenshot shows only what a model would say.
func plainAnswers(srv *ollamatest.Server) {
	next := srv.Next
	srv.Next = func(i int, req api.ChatRequest) ollamatest.Reply {
		r := next(i, req)
		if k := strings.Index(r.Text, " [executed="); k >= 0 {
			r.Text = r.Text[:k]
		}
		return r
	}
}

// walkScene sets up one place of the walk where the user saw a problem,
// and saves the screen to out.
func walkScene(t *testing.T, d *desktop, scene string, width int, out string) {
	rs := slices.Clone(walkRules)
	d.ollama = fakeModel(t, rs)
	plainAnswers(d.ollama)
	short := `{"confirmTimeout": "5s", "recordTail": "200ms", "previewTimeout": "10s", "ollamaModel": "` + model + `"}`
	switch scene {
	case "download-ready":
		// B-2: the notification after a download from the menu.
		holdHotkey(t, d.display)
		d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel), Layers: []int64{40_000_000}})
		h := startHarkWith(t, d, bigModelSettings())
		h.menu.ClickUntil(t, 30*time.Second, "Download "+bigModel, func() error {
			if !d.ollama.Installed(bigModel) {
				return fmt.Errorf("not downloaded yet")
			}
			return nil
		})
		h.menu.WaitGone(t, 30*time.Second, "Download "+bigModel)
		snap(t, d, h, width, out, true)
	case "no-model":
		// B-5: the status line while the model is not there yet.
		holdHotkey(t, d.display)
		d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel), Layers: []int64{40_000_000}})
		h := startHarkWith(t, d, bigModelSettings())
		h.menu.WaitFor(t, 30*time.Second, "Download "+bigModel)
		snap(t, d, h, width, out, true)
	case "model-missing":
		// B-4: the model goes away while Hark runs; the failed request
		// itself should bring the Download row.
		holdHotkey(t, d.display)
		h := startHark(t, d)
		h.menu.WaitFor(t, 30*time.Second, "Can't listen")
		d.ollama.Remove(model)
		h.send(false, "say hello")
		softWait(t, h, 30*time.Second, "Download "+model)
		snap(t, d, h, width, out, true)
	case "did-not-happen":
		// B-3: the model claims a change whose approval timed out.
		h := startHarkWith(t, d, short)
		h.waitIdle()
		logs := filepath.Join(h.home, "Projects", "webapp", "logs")
		writeFiles(t, logs, 100<<10, "server_2024-01-03.log", "server_2024-01-04.log")
		h.send(false, "archive the old project logs")
		h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
		h.menu.WaitGone(t, 60*time.Second, "Pending approval")
		h.waitIdle()
		snap(t, d, h, width, out, false)
	case "settings-fixed":
		// C-11: a settings error, then its fix: nothing may still say
		// the file is broken.
		h := startHark(t, d)
		h.waitIdle()
		settings := filepath.Join(h.home, "settings.json")
		good, err := os.ReadFile(settings)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(good), `"60s"`, `"2 minutes"`, 1)
		if err := os.WriteFile(settings, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		h.menu.WaitFor(t, 30*time.Second, "⚠ Settings file has errors")
		time.Sleep(3 * time.Second) // its notification shows
		if before := os.Getenv("HARK_SCREENSHOT_BEFORE"); before != "" {
			capture(t, d, before)
		}
		if err := os.WriteFile(settings, []byte(strings.Replace(string(good), `"60s"`, `"45s"`, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		// The menu no longer says a setting was applied (walk 6, B3-16:
		// that row moved the menu under the pointer); the error row going
		// is the sign, and snap waits for the notification to go too.
		h.menu.WaitGone(t, 30*time.Second, "⚠ Settings file has errors")
		snap(t, d, h, width, out, true)
	case "always-allow":
		// C-13: the rule Always allow… offers for a mkdir.
		h := startHark(t, d)
		h.waitIdle()
		webapp := filepath.Join(h.home, "Projects", "webapp")
		if err := os.MkdirAll(webapp, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range rs {
			if strings.HasPrefix(rs[i].command, "mkdir release_notes") {
				rs[i].dir = webapp
			}
		}
		h.send(false, "make a release notes folder")
		h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
		time.Sleep(2 * time.Second)
		root, err := h.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		// Walk the menu with the keyboard to the submenu: GTK skips
		// separators and insensitive rows.
		downs := 0
		for _, c := range root.Children {
			if !c.Visible || !c.Enabled || c.Label == "" {
				continue
			}
			downs++
			if strings.HasPrefix(strings.TrimSpace(c.Label), "Always allow") {
				break
			}
		}
		harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12", "click", "1")
		time.Sleep(1500 * time.Millisecond)
		harness.Xdotool(t, d.display, "mousemove", "1", strconv.Itoa(880))
		for range downs {
			harness.Xdotool(t, d.display, "key", "Down")
		}
		harness.Xdotool(t, d.display, "key", "Right")
		time.Sleep(1500 * time.Millisecond)
		capture(t, d, out)
		harness.Xdotool(t, d.display, "key", "Escape", "Escape")
		h.quit()
	case "cpu-spill":
		// C-14: the model partly on the CPU.
		d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel)})
		u, err := url.Parse(d.ollama.URL)
		if err != nil {
			t.Fatal(err)
		}
		if err := api.NewClient(u, http.DefaultClient).Pull(t.Context(), &api.PullRequest{Model: bigModel}, func(api.ProgressResponse) error { return nil }); err != nil {
			t.Fatal(err)
		}
		d.ollama.SetPlacement(bigModel, 3_300_000_000, 1_800_000_000)
		h := startHarkWith(t, d, bigModelSettings())
		h.waitIdle()
		h.send(true, "say hello")
		h.menu.WaitFor(t, 30*time.Second, "⚠ Model")
		snap(t, d, h, width, out, true)
	case "retry-after-deny":
		// D-17: the notification of the model's next proposal after a
		// Deny, whose title used to be cut.
		h := startHark(t, d)
		h.waitIdle()
		writeFiles(t, filepath.Join(h.home, ".cache", "thumbnails", "large"), 40<<10, "a.png", "b.png", "c.png")
		h.send(false, "remove the thumbnails")
		h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
		h.menu.ClickUntil(t, 60*time.Second, "Deny", answered(h, "After you said no"))
		h.menu.WaitFor(t, 30*time.Second, "After you said no")
		snap(t, d, h, width, out, false)
	case "after-trash":
		// D-19: the summary after two read-only looks and a deletion
		// that went to the Trash.
		steps := [][2]string{{"du -sh ~/Downloads/*", "checking"}, {"ls -la ~/Downloads", "checking"}, {"rm -r ~/Downloads/old_builds", "executing"}}
		d.ollama.Next = func(_ int, req api.ChatRequest) ollamatest.Reply {
			tools := 0
			for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
				if req.Messages[i].Role == "tool" {
					tools++
				}
			}
			if tools < len(steps) {
				return ollamatest.Reply{Text: "Let me look. ", Calls: []api.ToolCall{ollamatest.Call("command", steps[tools][0], "purpose", steps[tools][1])}}
			}
			return ollamatest.Reply{Text: "Freed 400 KB: old_builds is in the Trash."}
		}
		h := startHark(t, d)
		h.waitIdle()
		writeFiles(t, filepath.Join(h.home, "Downloads", "old_builds"), 200<<10, "app-1.bin", "app-2.bin")
		h.send(false, "free up some space in my downloads")
		h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
		h.menu.ClickUntil(t, 60*time.Second, "Move to Trash", answered(h, "Undo last trash"))
		h.menu.WaitFor(t, 30*time.Second, "Undo last trash")
		h.waitIdle()
		snap(t, d, h, width, out, false)
	case "read-only":
		// D-20: a read-only answer whose model text also says nothing
		// changed.
		h := startHark(t, d)
		h.waitIdle()
		h.send(true, "how much disk space is left")
		h.waitIdle()
		snap(t, d, h, width, out, false)
	default:
		t.Fatalf("no scene %q", scene)
	}
}

// answered is a ClickUntil check for an approval's answer: the pending
// approval is gone, or the row next has come (so a second click cannot
// answer the next approval).
func answered(h *hark, next string) func() error {
	return func() error {
		root, err := h.menu.Layout()
		if err != nil {
			return err
		}
		_, pending := root.Find("Pending approval")
		if _, ok := root.Find(next); ok || !pending {
			return nil
		}
		return fmt.Errorf("the approval is still pending")
	}
}

// holdHotkey takes ctrl+alt+space on the root window from a connection of
// our own before Hark starts, so Hark cannot listen: the walk's build had
// no voice input, and what Hark says then is what these scenes show.
func holdHotkey(t *testing.T, display string) {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("connecting to %s: %v", display, err)
	}
	t.Cleanup(conn.Close)
	setup := xproto.Setup(conn)
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	per := int(km.KeysymsPerKeycode)
	for i := 0; i*per < len(km.Keysyms); i++ {
		if km.Keysyms[i*per] != 0x20 { // XK_space
			continue
		}
		code := xproto.Keycode(int(setup.MinKeycode) + i)
		root := setup.DefaultScreen(conn).Root
		// With and without Caps Lock and Num Lock, as a hotkey grabs.
		for _, extra := range []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2} {
			mods := xproto.ModMaskControl | xproto.ModMask1 | extra
			if err := xproto.GrabKeyChecked(conn, true, root, mods, code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check(); err != nil {
				t.Fatalf("grabbing ctrl+alt+space: %v", err)
			}
		}
		return
	}
	t.Fatal("the keyboard map has no space")
}

// writeFiles makes dir holding the named files of size bytes each.
func writeFiles(t *testing.T, dir string, size int, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// softWait waits for a top-level menu row holding text and logs, without
// failing, when it does not come: the screenshot then shows what the user
// sees instead.
func softWait(t *testing.T, h *hark, within time.Duration, text string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if root, err := h.menu.Layout(); err == nil {
			for _, r := range root.Rows() {
				if strings.Contains(r, text) {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	root, _ := h.menu.Layout()
	t.Logf("SCREENSHOT SHOWS A GAP: no menu row with %q after %v; menu:\n%s", text, within, root.Labels())
}

// snap waits for the notification, opens the tray menu if menu is set,
// saves the screen to out and quits Hark.
func snap(t *testing.T, d *desktop, h *hark, width int, out string, menu bool) {
	t.Helper()
	time.Sleep(2 * time.Second) // the notification slides in
	if menu {
		harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12", "click", "1")
		time.Sleep(1500 * time.Millisecond)
	}
	capture(t, d, out)
	harness.Xdotool(t, d.display, "key", "Escape")
	h.quit()
}

// capture saves the whole screen to out.
func capture(t *testing.T, d *desktop, out string) {
	t.Helper()
	if b, err := exec.Command("import", "-display", d.display, "-window", "root", out).CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, b)
	}
}

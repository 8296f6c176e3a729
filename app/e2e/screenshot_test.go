//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestTrayScreenshot makes the README's screenshot: a pending approval in
// the tray menu of a real xfce4-panel, beside its notification. It needs
// the desktop that screenshot.sh starts, so it runs only when that script
// sets HARK_SCREENSHOT (the PNG to write).
func TestTrayScreenshot(t *testing.T) {
	out := os.Getenv("HARK_SCREENSHOT")
	if out == "" {
		t.Skip("HARK_SCREENSHOT is not set: run app/e2e/screenshots-all.sh to retake every screenshot on a real panel (app/e2e/screenshot.sh for one)")
	}
	width, _ := strconv.Atoi(os.Getenv("HARK_SCREEN_WIDTH"))
	d := &desktop{work: t.TempDir(), bus: os.Getenv("DBUS_SESSION_BUS_ADDRESS"), display: os.Getenv("DISPLAY"), pulse: &harness.Pulse{}}
	// A desktop has a terminal, so Hark can ask why: the pictures show
	// Deny and say why… as a user sees it. No scene opens it.
	d.helpers = []string{"xterm"}
	d.ollama = fakeModel(t, []rule{
		{when: "old builds", command: "rm -r ~/Downloads/old_builds ~/Downloads/my_notes_2024.txt", answer: "Deleted them."},
		{when: "archive the logs", command: longArchive, answer: "Archived them."},
		{when: "write buy milk", command: "echo 'buy milk' > ~/notes.txt", retry: "echo 'buy milk' >> ~/notes.txt", answer: "Added it."},
	})
	switch scene := os.Getenv("HARK_SCREENSHOT_SCENE"); scene {
	case "download-ready", "no-model", "model-missing", "did-not-happen", "settings-fixed",
		"always-allow", "cpu-spill", "retry-after-deny", "after-trash", "read-only":
		walkScene(t, d, scene, width, out)
		return
	case "retry-timeout":
		// The model's next proposal after an approval timed out: its
		// notification's title must fit whole on a narrow screen.
		h := startHarkWith(t, d, `{"confirmTimeout": "5s", "recordTail": "200ms", "previewTimeout": "10s", "ollamaModel": "`+model+`"}`)
		h.waitIdle()
		h.send(false, "write buy milk into my notes file")
		h.menu.WaitFor(t, 60*time.Second, "After “echo")
		shoot(t, d, h, width, out)
		return
	case "mcp-home":
		// Another program names home by its path: the command as it runs,
		// the folder and preview as ~, and the line that ties them.
		h := startHark(t, d)
		h.waitIdle()
		video := filepath.Join(h.home, "Videos", "big_video_backup.mp4")
		if err := os.MkdirAll(filepath.Dir(video), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(video, make([]byte, 3<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		c := startMCPClient(t, h, "Claude Desktop")
		_ = c.call(context.Background(), map[string]any{"command": "rm " + video})
		shoot(t, d, h, width, out)
		return
	case "download-cancelled":
		// After Cancel download: the notification says what was kept, and
		// the menu offers to resume.
		d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel), Layers: []int64{400_000_000}, HoldAt: 128_000_000})
		h := startHarkWith(t, d, bigModelSettings())
		h.menu.ClickUntil(t, 30*time.Second, "Download "+bigModel, func() error {
			if !d.ollama.Held(bigModel) {
				return fmt.Errorf("no pull held yet")
			}
			return nil
		})
		h.menu.ClickUntil(t, 30*time.Second, "Cancel download", func() error {
			root, err := h.menu.Layout()
			if err != nil {
				return err
			}
			if _, ok := root.Find("Resume download"); !ok {
				return fmt.Errorf("no resume offer yet")
			}
			return nil
		})
		time.Sleep(2 * time.Second) // the notification slides in
		harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12", "click", "1")
		time.Sleep(1500 * time.Millisecond)
		if b, err := exec.Command("import", "-display", d.display, "-window", "root", out).CombinedOutput(); err != nil {
			t.Fatalf("import: %v: %s", err, b)
		}
		harness.Xdotool(t, d.display, "key", "Escape")
		h.quit()
		return
	case "download":
		// The tray tooltip while a download runs, with the menu opened
		// from the icon under the pointer.
		d.ollama.Offer(ollamatest.Pull{Model: ollamatest.Qwen3(bigModel), Layers: []int64{400_000_000}, Step: 100_000, Pace: 20 * time.Millisecond})
		h := startHarkWith(t, d, bigModelSettings())
		h.menu.WaitFor(t, 30*time.Second, "Download "+bigModel)
		h.menu.ClickUntil(t, 30*time.Second, "Download "+bigModel, func() error {
			root, err := h.menu.Layout()
			if err != nil {
				return err
			}
			if _, ok := root.Find("Cancel download"); !ok {
				return fmt.Errorf("no download under way")
			}
			return nil
		})
		harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12")
		time.Sleep(3 * time.Second) // the tooltip shows on hover
		harness.Xdotool(t, d.display, "click", "1")
		time.Sleep(4 * time.Second) // the progress moves many times with the menu open
		if b, err := exec.Command("import", "-display", d.display, "-window", "root", out).CombinedOutput(); err != nil {
			t.Fatalf("import: %v: %s", err, b)
		}
		harness.Xdotool(t, d.display, "key", "Escape")
		h.quit()
		return
	}
	h := startHark(t, d)
	h.waitIdle()
	if os.Getenv("HARK_SCREENSHOT_SCENE") == "long-deletion" {
		// A long command whose deletion sits in the middle, where the
		// menu and the notification elide a long command.
		logs := filepath.Join(h.home, "Projects", "webapp", "logs")
		if err := os.MkdirAll(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 4; i++ {
			if err := os.WriteFile(filepath.Join(logs, fmt.Sprintf("server-2024-11-0%d.log", i)), make([]byte, 108<<10), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h.send(false, "archive the logs")
		shoot(t, d, h, width, out)
		return
	}
	// Real files to delete, so the approval shows what a preview looks
	// like when there is something to lose.
	builds := filepath.Join(h.home, "Downloads", "old_builds")
	for i := range 12 {
		dir := filepath.Join(builds, fmt.Sprintf("build-%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "app.bin"), make([]byte, 180<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.home, "Downloads", "my_notes_2024.txt"), []byte("call the bank\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.send(false, "delete my old builds")
	shoot(t, d, h, width, out)
}

// longArchive is the walk's long command: mkdir, tar, then the rm that
// a long command's elided middle used to hide.
const longArchive = "mkdir -p ~/Projects/webapp/archive/2024-11 && tar -czf ~/Projects/webapp/archive/2024-11/server-logs.tar.gz -C ~/Projects/webapp/logs " +
	"server-2024-11-01.log server-2024-11-02.log server-2024-11-03.log server-2024-11-04.log && " +
	"rm ~/Projects/webapp/logs/server-2024-11-01.log ~/Projects/webapp/logs/server-2024-11-02.log ~/Projects/webapp/logs/server-2024-11-03.log ~/Projects/webapp/logs/server-2024-11-04.log && " +
	"echo archived the November logs into ~/Projects/webapp/archive/2024-11"

// shoot opens the tray menu over the pending approval and its
// notification, and saves the screen to out.
func shoot(t *testing.T, d *desktop, h *hark, width int, out string) {
	h.menu.WaitFor(t, 30*time.Second, "Pending approval (1)")
	time.Sleep(2 * time.Second) // the notification slides in
	// The status tray sits at the right end of the top panel.
	// HARK_SCREENSHOT_MENU=0 leaves the menu shut, to see the whole
	// notification.
	if os.Getenv("HARK_SCREENSHOT_MENU") != "0" {
		harness.Xdotool(t, d.display, "mousemove", strconv.Itoa(width-12), "12", "click", "1")
		time.Sleep(1500 * time.Millisecond)
	}
	if b, err := exec.Command("import", "-display", d.display, "-window", "root", out).CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, b)
	}
	harness.Xdotool(t, d.display, "key", "Escape")
	h.quit()
}

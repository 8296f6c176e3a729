package agent

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestSystemPromptCoversTheRules(t *testing.T) {
	t.Parallel()
	for _, mac := range []bool{true, false} {
		f := Facts{OS: "Linux", OSVersion: "Debian GNU/Linux 12 (bookworm)", Shell: "bash", Home: "/home/ada", Date: "Monday 30 November 2026", Timeout: 30 * time.Second, OutputCap: 4096}
		if mac {
			f = Facts{OS: "macOS", OSVersion: "15.3", MacOS: true, Shell: "zsh", Home: "/Users/ada", Date: "Monday 30 November 2026", Timeout: 30 * time.Second, OutputCap: 4096}
		}
		p, err := RenderSystemPrompt(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{f.OS + " " + f.OSVersion, "shell " + f.Shell, f.Home, f.Date, ToolName,
			"Inspect first", "fresh", "no input", "cd` and variables do not carry over", "30s", "4 KiB", `"truncated": true`, "workingDirectory", "optional", "absolute paths", "reversible", "Never use sudo", "one short line"} {
			if !strings.Contains(strings.ToLower(p), strings.ToLower(want)) {
				t.Errorf("mac=%v: prompt lacks %q", mac, want)
			}
		}
		// The rules demand absolute paths; an example with ~ teaches the
		// opposite.
		if strings.Contains(p, "~/") {
			t.Errorf("mac=%v: prompt has an example with ~/", mac)
		}
		if strings.Contains(p, "Trash") != mac {
			t.Errorf("mac=%v: Trash advice present=%v", mac, !mac)
		}
		// Short enough for a 4B model's attention: well under 600 words.
		if n := len(strings.Fields(p)); n > 600 {
			t.Errorf("prompt has %d words", n)
		}
	}
}

func TestPrettyName(t *testing.T) {
	t.Parallel()
	data := []byte("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n")
	if got := prettyName(data); got != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("prettyName = %q", got)
	}
	if got := prettyName([]byte("ID=x\n")); got != "" {
		t.Errorf("prettyName without key = %q", got)
	}
}

func TestMachineFactsAndDatePerRequest(t *testing.T) {
	t.Parallel()
	f := MachineFacts("/home/ada", time.Now())
	if f.Shell == "" || f.Home != "/home/ada" || f.OS == "" {
		t.Errorf("facts %+v", f)
	}
	if runtime.GOOS == "linux" && f.OSVersion == "" {
		t.Errorf("no OS version from /etc/os-release: %+v", f)
	}
	day := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	h := newHarness(t, []reply{text("a"), text("b")}, func(o *Options) {
		o.SystemPrompt = ""
		o.now = func() time.Time { return day }
	})
	if _, err := h.agent.Run(context.Background(), NewConversation(), "x"); err != nil {
		t.Fatal(err)
	}
	day = day.Add(24 * time.Hour)
	if _, err := h.agent.Run(context.Background(), NewConversation(), "y"); err != nil {
		t.Fatal(err)
	}
	if s := h.client.request(t, 0).Messages[0].Content; !strings.Contains(s, "Monday 30 November 2026") || !strings.Contains(s, h.home) {
		t.Errorf("first prompt: %s", s)
	}
	if s := h.client.request(t, 1).Messages[0].Content; !strings.Contains(s, "Tuesday 1 December 2026") {
		t.Errorf("second prompt has a stale date: %s", s)
	}
}

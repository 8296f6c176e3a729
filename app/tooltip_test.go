package app

import (
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
)

// TestTooltipStaysStillWhileTheMenuMoves: the tray tooltip names the
// state only. A tray host re-shows a tooltip each time it changes, over
// the menu if the menu is open (xfce4-panel does), so what changes many
// times a second (download progress, streamed text, the countdown) is in
// the menu's rows and never in the tooltip.
func TestTooltipStaysStillWhileTheMenuMoves(t *testing.T) {
	t.Parallel()
	const model = "qwen3:4b-instruct-2507-q4_K_M"
	pull := func(done int64) View {
		return View{State: Idle, Confirm: true, Hotkey: "ctrl+alt+space",
			Pull: &PullView{Model: model, Progress: agent.PullProgress{Model: model, Done: done, Total: 2_500_000_000, Rate: 27_700_000, Left: time.Duration(2_500_000_000-done) / 27_700_000 * time.Second}}}
	}
	p := Pending{ID: "p1", Command: "mkdir x"}
	families := map[string][]View{
		"download": {pull(0), pull(250_000_000), pull(800_000_000), pull(2_400_000_000)},
		"thinking": {{State: Thinking, Confirm: true}, {State: Thinking, Confirm: true, Stream: "Let me"}, {State: Thinking, Confirm: true, Stream: "Let me look at the folder first"}},
		"listening": {{State: Listening, Confirm: true, Hotkey: "ctrl+alt+space"}, {State: Listening, Confirm: true, Hotkey: "ctrl+alt+space", Detail: "delete the"},
			{State: Listening, Confirm: true, Hotkey: "ctrl+alt+space", Detail: "delete the old builds"}},
		"transcribing": {{State: Transcribing, Confirm: true}, {State: Transcribing, Confirm: true, Detail: "delete the old"}},
		"running":      {{State: Running, Confirm: true, Detail: "ls ~"}, {State: Running, Confirm: true, Detail: "du -sh ~/Downloads"}},
		"countdown": {{State: AwaitingApproval, Confirm: true, Pending: []Pending{p}, Deadlines: map[string]time.Duration{"p1": 2 * time.Minute}},
			{State: AwaitingApproval, Confirm: true, Pending: []Pending{p}, Deadlines: map[string]time.Duration{"p1": 59 * time.Second}}},
	}
	for name, views := range families {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first := BuildMenu(views[0])
			for _, v := range views[1:] {
				m := BuildMenu(v)
				if m.Tooltip != first.Tooltip {
					t.Errorf("tooltip moves: %q, then %q", first.Tooltip, m.Tooltip)
				}
			}
			if !strings.HasPrefix(first.Tooltip, "Hark — ") || len([]rune(first.Tooltip)) > 60 {
				t.Errorf("tooltip %q", first.Tooltip)
			}
		})
	}
	// The live progress is still in the menu itself.
	if m := BuildMenu(pull(800_000_000)); !strings.Contains(m.Items[0].Label, "32% of 2.5 GB") || strings.Contains(m.Tooltip, "%") {
		t.Errorf("status row %q, tooltip %q", m.Items[0].Label, m.Tooltip)
	}
}

package app

import "testing"

// When macOS holds an approval's banner back (a Focus, no Time Sensitive
// entitlement), the menu-bar icon is all that shows one waits: whatever
// else the app is doing, a pending approval shows the approval icon, and
// the menu's first row says it waits.
func TestMenuIconShowsEveryWaitingApproval(t *testing.T) {
	t.Parallel()
	states := []State{Idle, Listening, Transcribing, Thinking, AwaitingApproval, Running, Error}
	for _, s := range states {
		for _, confirm := range []bool{true, false} {
			for _, problem := range []bool{false, true} {
				v := View{State: s, Confirm: confirm, Hotkey: "ctrl+alt+space",
					Pending: []Pending{{ID: "p1", Command: "rm -r ~/old"}}}
				if problem {
					v.Problems = map[string]ProblemInfo{"voice": {Title: "no microphone"}}
				}
				m := BuildMenu(v)
				if m.Icon != "approval" {
					t.Errorf("state %v confirm %v problem %v: icon %q with an approval waiting, want approval", s, confirm, problem, m.Icon)
				}
				if len(m.Items) == 0 || m.Items[0].ID != IDPendingHeader {
					t.Errorf("state %v: first row is not the pending header", s)
				}
				v.Pending = nil
				if s != AwaitingApproval && BuildMenu(v).Icon == "approval" {
					t.Errorf("state %v: approval icon with nothing waiting", s)
				}
			}
		}
	}
}

package app

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/shell"
)

// outline renders a menu as one line per item ("id|kind|label|flags"),
// children indented, so expectations read like the menu itself.
func outline(items []MenuItem, indent string) []string {
	var out []string
	for _, it := range items {
		flags := ""
		if it.Disabled {
			flags += "D"
		}
		if it.Kind == ItemCheckbox {
			if it.Checked {
				flags += "X"
			} else {
				flags += "_"
			}
		}
		kind := [...]string{"label", "action", "check", "sep", "sub"}[it.Kind]
		out = append(out, fmt.Sprintf("%s%s|%s|%s|%s", indent, it.ID, kind, it.Label, flags))
		out = append(out, outline(it.Children, indent+"  ")...)
	}
	return out
}

func TestMenuIdle(t *testing.T) {
	t.Parallel()
	m := BuildMenu(View{State: Idle, Confirm: true, Hotkey: "ctrl+alt+space", CanType: true,
		Recent: []ConversationSummary{{ID: "c1", Title: "list my downloads"}, {ID: "c2", Title: ""}}})
	want := []string{
		"status|label|Ready — hold ctrl+alt+space and speak|D",
		"sep:settings|sep||",
		"confirm-before-executing|check|Confirm before executing|X",
		"type-request|action|Type a request…|",
		"new-conversation|action|New conversation|",
		"recent|sub|Recent conversations|",
		"  conversation:c1|action|list my downloads|",
		"  conversation:c2|action|c2|",
		"audit-log|action|Open audit log|",
		"settings|action|Settings…|",
		"sep:quit|sep||",
		"quit|action|Quit Hark|",
	}
	got := outline(m.Items, "")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("idle menu:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.Icon != "idle" || m.Title != "" {
		t.Errorf("icon %q title %q, want idle and no title", m.Icon, m.Title)
	}
}

func TestMenuPendingApproval(t *testing.T) {
	t.Parallel()
	long := "find /Users/ana/Downloads -name '*.dmg' -mtime +30 -print0 | xargs -0 rm -f -- && echo removed old disk images from Downloads"
	v := View{
		State: AwaitingApproval, Confirm: true, Hotkey: "ctrl+alt+space",
		Pending: []Pending{
			{ID: "p1", Command: long, WorkingDirectory: "/Users/ana", Purpose: "executing", Tier: shell.Confirm,
				Reasons: []shell.Reason{{Command: "rm -f", Why: "rm: deletes files"}, {Command: "xargs", Why: "xargs: runs another program"}}},
			{ID: "p2", Command: "mkdir /tmp/x", Purpose: "executing"},
		},
	}
	m := BuildMenu(v)
	got := strings.Join(outline(m.Items, ""), "\n")
	for _, want := range []string{
		"status|label|Waiting for your approval (2)|D",
		"pending|label|Pending approval (2)|D",
		"pending:p1:0|label|  $ find /Users/ana/Downloads -name '*.dmg' -mtime +30 -print0 ||D",
		"pending:p1:1|label|    xargs -0 rm -f -- && echo removed old disk images from|D",
		"    Purpose: executing|D",
		"    In: /Users/ana|D",
		"    Why: rm: deletes files|D",
		"    Why: xargs: runs another program|D",
		"approve:p1|action|    Approve|",
		"deny:p1|action|    Deny|",
		"pending:p2:0|label|  $ mkdir /tmp/x|D",
		"approve:p2|action|    Approve|",
		"deny:p2|action|    Deny|",
		"cancel|action|Cancel|",
		"new-conversation|action|New conversation|D",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pending menu lacks %q:\n%s", want, got)
		}
	}
	// The full command is there, over several rows, none too wide.
	var rows []string
	inCommand := true
	for _, it := range m.Items {
		if strings.HasPrefix(it.ID, PrefixPending+"p1:") && inCommand {
			if strings.HasPrefix(it.Label, "    Purpose:") {
				inCommand = false
			} else {
				rows = append(rows, strings.TrimSpace(strings.TrimPrefix(it.Label, "  $ ")))
			}
		}
		if n := utf8.RuneCountInString(it.Label); n > commandWidth+8 && it.Kind != ItemSubmenu {
			t.Errorf("row %q is %d characters wide", it.Label, n)
		}
	}
	if len(rows) < 2 || strings.Join(rows, " ") != long {
		t.Errorf("command rows %q do not spell out the full command", rows)
	}
	if m.Icon != "approval" {
		t.Errorf("icon %q, want approval", m.Icon)
	}
	assertUniqueIDs(t, m.Items)
}

func TestMenuStates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		v          View
		status     string
		icon       string
		cancel     string // "" absent, else its flags
		title      string
		typeHidden bool
	}{
		{"listening push-to-talk", View{State: Listening, Hotkey: "ctrl+alt+space"}, "Listening… release ctrl+alt+space when done", "listening", "-", "", false},
		{"transcribing", View{State: Transcribing}, "Transcribing…", "busy", "-", "", false},
		{"thinking with streamed words", View{State: Thinking, Stream: "Your   Downloads\nfolder holds"}, "Thinking: Your Downloads folder holds", "busy", "-", "…Downloads folder holds", false},
		{"running", View{State: Running, Detail: "du -sh ~/Downloads"}, "Running: du -sh ~/Downloads", "busy", "-", "", false},
		{"cancelling", View{State: Running, Cancelling: true}, "Cancelling…", "busy", "D", "", false},
		{"error", View{State: Error, LastError: "Ollama is not running at 127.0.0.1:11434 — start it with `ollama serve`"}, "Error: Ollama is not running at 127.0.0.1:11434 — start it with `ollama serve`", "error", "", "", false},
		{"busy remark", View{State: Thinking, Note: "still busy with the last request — choose Cancel to stop it"}, "Thinking… — still busy with the last request — choose Cancel to stop it", "busy", "-", "", false},
		{"no hotkey", View{State: Idle, Problems: map[string]string{"hotkey": "no X display"}}, "Can't listen: see below — Type a request… still works", "idle", "", "", false},
		{"no hotkey, no text prompt", View{State: Idle, Problems: map[string]string{"hotkey": "no X display"}}, "Can't listen: see below — `hark send` still works", "idle", "", "", true},
		{"ollama down", View{State: Idle, Problems: map[string]string{"ollama": "start it with `ollama serve`"}}, "Ready, with problems (see below)", "idle", "", "", false},
		{"toggle ready", View{State: Idle, Toggle: true, Hotkey: "ctrl+alt+space"}, "Ready — press ctrl+alt+space and speak", "idle", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.v.CanType = !c.typeHidden
			m := BuildMenu(c.v)
			if got := StatusLine(c.v); got != c.status {
				t.Errorf("status %q, want %q", got, c.status)
			}
			if m.Icon != c.icon {
				t.Errorf("icon %q, want %q", m.Icon, c.icon)
			}
			if m.Title != c.title {
				t.Errorf("title %q, want %q", m.Title, c.title)
			}
			cancel := findItem(m.Items, IDCancel)
			switch {
			case c.cancel == "" && cancel != nil:
				t.Error("Cancel shown while not busy")
			case c.cancel != "" && cancel == nil:
				t.Error("Cancel missing while busy")
			case c.cancel == "D" && !cancel.Disabled:
				t.Error("Cancel enabled while already cancelling")
			}
			for src, msg := range c.v.Problems {
				if !strings.Contains(strings.Join(outline(m.Items, ""), "\n"), msg) {
					t.Errorf("problem %s (%q) not shown", src, msg)
				}
			}
			assertUniqueIDs(t, m.Items)
		})
	}
}

func TestMenuHidesTypeRequestWithoutPromptTool(t *testing.T) {
	t.Parallel()
	if it := findItem(BuildMenu(View{CanType: false}).Items, IDTypeRequest); it != nil {
		t.Error("Type a request… shown without a prompt tool")
	}
	if it := findItem(BuildMenu(View{CanType: true}).Items, IDTypeRequest); it == nil {
		t.Error("Type a request… hidden although a prompt tool exists")
	}
	m := BuildMenu(View{})
	if it := findItem(m.Items, IDRecent); it == nil || len(it.Children) != 1 || !it.Children[0].Disabled {
		t.Errorf("empty Recent conversations = %+v, want one disabled placeholder", it)
	}
}

func TestVisibleShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"rm -rf \u202e/ fdp", "rm -rf ⟨U+202E⟩/ fdp"},
		{"echo\u200bhi", "echo⟨U+200B⟩hi"},
		{"a\x1b[31mb", "a⟨U+001B⟩[31mb"},
		{"printf 'a\tb'\nls", "printf 'a\tb'\nls"},
		{"café", "café"},
	}
	for _, c := range cases {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// The menu shows a pending command through Visible.
	m := BuildMenu(View{State: AwaitingApproval, Pending: []Pending{{ID: "p1", Command: "rm \u202e-rf"}}})
	if it := findItem(m.Items, PrefixPending+"p1:0"); it == nil || !strings.Contains(it.Label, "⟨U+202E⟩") {
		t.Errorf("pending row %+v hides the override character", it)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"aaaa bbbb cccc", 9, []string{"aaaa bbbb", "cccc"}},
		{"abcdefghijklmnop", 5, []string{"abcde", "fghij", "klmno", "p"}},
		{"one\ntwo", 10, []string{"one", "two"}},
	}
	for _, c := range cases {
		if got := wrap(c.in, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func assertUniqueIDs(t *testing.T, items []MenuItem) {
	t.Helper()
	seen := map[string]bool{}
	var walk func([]MenuItem)
	walk = func(items []MenuItem) {
		for _, it := range items {
			if it.ID == "" || seen[it.ID] {
				t.Errorf("item %+v has an empty or repeated ID", it)
			}
			seen[it.ID] = true
			walk(it.Children)
		}
	}
	walk(items)
}

func TestThrottleUnit(t *testing.T) {
	t.Parallel()
	base := time.Unix(1000, 0)
	now := base
	var armed []int64
	th := newThrottle(33*time.Millisecond, func() time.Time { return now }, func(d time.Duration, f func()) func() bool {
		armed = append(armed, d.Milliseconds())
		return func() bool { return true }
	}, func() {})
	steps := []struct {
		at      int64
		op      string // "allow", "fired", "shown"
		want    bool
		wantArm int
	}{
		{0, "allow", true, 0},   // first update goes through
		{1, "allow", false, 1},  // inside the interval: one timer for the rest
		{2, "allow", false, 1},  // coalesced, no second timer
		{33, "fired", false, 1}, // the delayed update is shown
		{40, "allow", false, 2}, // 7 after the flush: wait again
		{80, "fired", false, 2},
		{200, "allow", true, 2}, // long quiet: straight through, no timer
		{210, "shown", false, 2},
		{220, "allow", false, 3}, // a state change counts too
	}
	for i, s := range steps {
		now = base.Add(time.Duration(s.at) * time.Millisecond)
		switch s.op {
		case "allow":
			if got := th.allow(); got != s.want {
				t.Errorf("step %d: allow at %d = %v, want %v", i, s.at, got, s.want)
			}
		case "fired":
			th.fired()
		case "shown":
			th.shown()
		}
		if len(armed) != s.wantArm {
			t.Errorf("step %d: %d timers armed, want %d", i, len(armed), s.wantArm)
		}
	}
	if armed[0] != 32 {
		t.Errorf("first timer for %d, want the rest of the interval (32)", armed[0])
	}
}

func TestDetectPrompter(t *testing.T) {
	t.Parallel()
	have := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", fmt.Errorf("%s not found", n)
		}
	}
	cases := []struct {
		name, goos string
		look       func(string) (string, error)
		want       string // tool, or "" for none
	}{
		{"mac", "darwin", have("osascript"), "osascript"},
		{"linux zenity", "linux", have("zenity", "kdialog"), "zenity"},
		{"linux kdialog", "linux", have("kdialog"), "kdialog"},
		{"linux none", "linux", have(), ""},
		{"linux ignores osascript", "linux", have("osascript"), ""},
	}
	for _, c := range cases {
		p := DetectPrompter(c.goos, c.look)
		switch {
		case c.want == "" && p != nil:
			t.Errorf("%s: got %+v, want none (Type a request… hidden)", c.name, p)
		case c.want != "" && (p == nil || p.(*ExecPrompter).Tool != c.want):
			t.Errorf("%s: got %+v, want %s", c.name, p, c.want)
		}
	}
}

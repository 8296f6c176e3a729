package app

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
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
		kind := [...]string{"label", "action", "check", "sep", "sub", "text"}[it.Kind]
		out = append(out, fmt.Sprintf("%s%s|%s|%s|%s", indent, it.ID, kind, it.Label, flags))
		out = append(out, outline(it.Children, indent+"  ")...)
	}
	return out
}

func TestMenuIdle(t *testing.T) {
	t.Parallel()
	m := BuildMenu(View{State: Idle, Confirm: true, Hotkey: "ctrl+alt+space", CanType: true,
		Recent: []RecentItem{{ID: "c1", Label: "list my downloads"}, {ID: "c2", Label: ""}}})
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

// TestMenuPendingApproval: approvals come first, before the status and the
// problems, headed by who asks, and a command of a few rows is shown whole.
func TestMenuPendingApproval(t *testing.T) {
	t.Parallel()
	long := "find /Users/ana/Downloads -name '*.dmg' -mtime +30 -print0 | xargs -0 rm -f -- && echo removed old disk images from Downloads"
	v := View{
		State: AwaitingApproval, Confirm: true, Hotkey: "ctrl+alt+space", Home: "/Users/ana",
		Problems: map[string]ProblemInfo{"ollama": {Title: "Ollama not running", Detail: "start it with `ollama serve`"}},
		Pending: []Pending{
			{ID: "p1", Command: long, WorkingDirectory: "/Users/ana", Purpose: "executing", Tier: shell.Confirm,
				Reasons: []shell.Reason{{Command: "rm -f", Why: "rm: deletes files"}, {Command: "xargs", Why: "xargs: runs another program"}}},
		},
	}
	m := BuildMenu(v)
	want := []string{
		"pending|label|Pending approval (1)|D",
		"asker:p1|label|Hark's model asks:|D",
		"pending:p1:0|text|  $ find /Users/ana/Downloads -name '*.dmg' -mtime +30 -print0 ||",
		"pending:p1:1|text|    xargs -0 rm -f -- && echo removed old disk images from|",
		"pending:p1:2|text|    Downloads|",
		"pending:p1:3|text|    In: ~|",
		"pending:p1:4|text|    ~ is your home folder, /Users/ana|",
		"pending:p1:5|text|    Why: rm: deletes files|",
		"pending:p1:6|text|    Why: xargs: runs another program|",
		"deny:p1|action|    Deny (safe choice)|",
		"approve:p1|action|    Approve|",
		"sep:pending|sep||",
		"status|label|Answer above (or from the keyboard: hark approve, hark deny)|D",
		"problem:ollama|label|⚠ Ollama not running|D",
		"problems|action|Problems…|",
		"sep:settings|sep||",
		"confirm-before-executing|check|Confirm before executing|X",
		"cancel|action|Cancel|",
	}
	got := outline(m.Items, "")
	if strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("pending menu:\n%s\n\nwant it to start:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.Icon != "approval" {
		t.Errorf("icon %q, want approval", m.Icon)
	}
	for _, it := range m.Items {
		if n := utf8.RuneCountInString(it.Label); n > statusWidth+4 && it.Kind != ItemSubmenu {
			t.Errorf("row %q is %d characters wide", it.Label, n)
		}
	}
	assertUniqueIDs(t, m.Items)
}

// TestMenuLongCommand: however long a command is, it takes a few rows —
// its exact head and tail around its length — and the whole of it is one
// click away.
func TestMenuLongCommand(t *testing.T) {
	t.Parallel()
	tail := "; rm -rf ~/the_end"
	cmd := "echo " + strings.Repeat("word_", 400) + tail
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: cmd}}})
	var rows []string
	for _, it := range m.Items {
		if strings.HasPrefix(it.ID, PrefixPending+"p1:") {
			rows = append(rows, it.Label)
		}
	}
	if len(rows) != commandRows {
		t.Fatalf("%d rows for a %d-character command, want %d:\n%s", len(rows), len(cmd), commandRows, strings.Join(rows, "\n"))
	}
	head := strings.TrimPrefix(rows[0], "  $ ") + strings.TrimPrefix(rows[1], "    ")
	if !strings.HasPrefix(cmd, head) {
		t.Errorf("head rows %q are not the start of the command", head)
	}
	if last := strings.TrimPrefix(rows[3], "    "); !strings.HasSuffix(cmd, last) || !strings.Contains(last, tail) {
		t.Errorf("last row %q is not the end of the command (with %q)", last, tail)
	}
	if !strings.Contains(rows[2], "2,") && !strings.Contains(rows[2], fmt.Sprint(utf8.RuneCountInString(cmd))) {
		t.Errorf("middle row %q does not give the length", rows[2])
	}
	if findItem(m.Items, PrefixShowFull+"p1") == nil || findItem(m.Items, PrefixApprove+"p1") == nil {
		t.Error("a long command needs Approve and Show full command…")
	}
	short := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "ls"}}})
	if findItem(short.Items, PrefixShowFull+"p1") != nil {
		t.Error("Show full command… offered for a command shown whole")
	}
}

// TestMenuAutoRunIsLoud: with confirmation off the status row, an extra
// row, the tooltip and the icon all say so.
func TestMenuAutoRunIsLoud(t *testing.T) {
	t.Parallel()
	m := BuildMenu(View{State: Idle, Confirm: false, Hotkey: "ctrl+alt+space"})
	if m.Icon != "autorun" {
		t.Errorf("icon %q, want autorun", m.Icon)
	}
	if !strings.Contains(m.Tooltip, autoRunWarning) || !strings.Contains(m.Items[0].Label, autoRunWarning) {
		t.Errorf("tooltip %q / status %q should say %q", m.Tooltip, m.Items[0].Label, autoRunWarning)
	}
	if it := findItem(m.Items, IDAutoRun); it == nil {
		t.Error("no auto-run warning row")
	}
	busy := BuildMenu(View{State: Running, Confirm: false, Detail: "ls"})
	if !strings.Contains(busy.Tooltip, autoRunWarning) {
		t.Errorf("busy tooltip %q should still say %q", busy.Tooltip, autoRunWarning)
	}
}

func TestMenuStates(t *testing.T) {
	t.Parallel()
	prob := func(src, detail string) map[string]ProblemInfo {
		return map[string]ProblemInfo{src: {Title: problemTitles[src], Detail: detail}}
	}
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
		{"no hotkey", View{State: Idle, Problems: prob("hotkey", "no X display"), CantListen: "Hotkey unavailable"}, "Can't listen — Type a request… still works", "degraded", "", "", false},
		{"no hotkey, no text prompt", View{State: Idle, Problems: prob("hotkey", "no X display"), CantListen: "Hotkey unavailable"}, "Can't listen — type requests with hark send in a terminal", "degraded", "", "", true},
		{"ollama down", View{State: Idle, Problems: prob("ollama", "start it with `ollama serve`")}, "Not ready: Ollama not running — see Problems…", "degraded", "", "", false},
		{"model missing", View{State: Idle, CantListen: "Voice input unavailable", Problems: map[string]ProblemInfo{"ollama": {Title: "Ollama model not ready", Detail: "not pulled", Download: "qwen3:4b"}}}, "No model yet — download it below", "degraded", "", "", false},
		{"model missing, download cancelled", View{State: Idle, Note: "download cancelled", Problems: map[string]ProblemInfo{"ollama": {Title: "Ollama model not ready", Detail: "not pulled", Download: "qwen3:4b"}}}, "No model yet — download it below — download cancelled", "degraded", "", "", false},
		{"no sandbox is not degraded", View{State: Idle, Problems: prob("sandbox", "no Landlock")}, "Ready, with problems", "idle", "", "", false},
		{"toggle ready", View{State: Idle, Toggle: true, Hotkey: "ctrl+alt+space"}, "Ready — press ctrl+alt+space and speak", "idle", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.v.CanType = !c.typeHidden
			c.v.Confirm = true
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
			for src, p := range c.v.Problems {
				row := findItem(m.Items, PrefixProblem+src)
				if row == nil || row.Label != "⚠ "+p.Title || row.Tooltip != p.Detail {
					t.Errorf("problem %s: row %+v, want the short title with the detail as its tooltip", src, row)
				}
				if strings.Contains(strings.Join(outline(m.Items, ""), "\n"), p.Detail) {
					t.Errorf("problem %s: its detail %q is in the menu; it belongs behind Problems…", src, p.Detail)
				}
			}
			if len(c.v.Problems) > 0 && findItem(m.Items, IDProblems) == nil {
				t.Error("no Problems… item while a problem stands")
			}
			assertUniqueIDs(t, m.Items)
		})
	}
}

// TestMenuStatusWraps: a long status is shown over two rows, not cut at
// one, and its full text stays in the tooltip.
func TestMenuStatusWraps(t *testing.T) {
	t.Parallel()
	note := "Could not save the setting: settings.json has an error, so it was left alone; fix it in Settings… and try again"
	m := BuildMenu(View{State: Idle, Confirm: true, Hotkey: "ctrl+alt+space", Note: note})
	s0, s1 := findItem(m.Items, IDStatus), findItem(m.Items, IDStatus+":1")
	if s0 == nil || s1 == nil {
		t.Fatalf("status rows: %q", outline(m.Items, ""))
	}
	if got := s0.Label + " " + s1.Label; !strings.Contains(got, "fix it in Settings") {
		t.Errorf("status rows %q lose the fix", got)
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

// TestMenuApprovalShowsRequestAndCountdown: an approval is headed by the
// request it belongs to and says when it will be denied by itself.
func TestMenuApprovalShowsRequestAndCountdown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		request string
		left    time.Duration
		want    string
	}{
		{"delete my old builds", 2 * time.Minute, "asker:p1|label|You asked: “delete my old builds”|D\npending:p1:1|text|    auto-deny in 2:00|"},
		{"", 65 * time.Second, "asker:p1|label|Hark's model asks:|D\npending:p1:0|text|  $ rm x|\npending:p1:1|text|    auto-deny in 1:05|"},
		{"tidy\nup", 0, "asker:p1|label|You asked: “tidy up”|D\npending:p1:0|text|  $ rm x|\npending:p1:1|text|    auto-deny in 0:00|"},
	}
	for _, c := range cases {
		m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Request: c.request,
			Pending: []Pending{{ID: "p1", Command: "rm x"}}, Deadlines: map[string]time.Duration{"p1": c.left}})
		for _, want := range strings.Split(c.want, "\n") {
			if !strings.Contains(strings.Join(outline(m.Items, ""), "\n"), want) {
				t.Errorf("request %q, %v left: no row %q in\n%s", c.request, c.left, want, strings.Join(outline(m.Items, ""), "\n"))
			}
		}
	}
}

// TestMenuApprovalCountsTheSizeOfWhatItLeavesOut: the preview lines the
// menu leaves out are counted with their size, in the unit and decimals
// of the summary, so the rows shown add up to it.
func TestMenuApprovalCountsTheSizeOfWhatItLeavesOut(t *testing.T) {
	t.Parallel()
	pv := &preview.Preview{Status: preview.Shown, Summary: "Deletes 7 files, 774.1 KB",
		Totals: []preview.Total{{Verb: "deletes", Files: 7, Bytes: 7 * 110_592, Scale: preview.Scale{Power: 1, Decimals: 1}}}}
	for i := range 7 {
		pv.Lines = append(pv.Lines, fmt.Sprintf("p%d.jpg: file, 110.6 KB", i))
		pv.Counts = append(pv.Counts, preview.Count{Line: i, Files: 1, Bytes: 110_592, Shown: 1106})
	}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "rm p*.jpg", Preview: pv}}})
	rows := strings.Join(outline(m.Items, ""), "\n")
	for _, want := range []string{
		"|        p3.jpg: file, 110.6 KB|",
		"|        … 3 more lines: 3 files, 331.8 KB (the audit log has them all)|",
	} {
		if !strings.Contains(rows, want) {
			t.Errorf("no row %q in\n%s", want, rows)
		}
	}
}

// TestMenuApprovalShowsPreviewAndWhatWasHeard: a pending command shows
// what it would touch, and a spoken request is headed by its transcript
// instead of the request, so a misheard word is seen where it is approved.
func TestMenuApprovalShowsPreviewAndWhatWasHeard(t *testing.T) {
	t.Parallel()
	pv := &preview.Preview{Status: preview.Shown, Summary: "Deletes 3 folders, 1,204 files, 3.2 GB", Lines: []string{
		"old-builds: folder with 2 folders, 1,204 files, 3.2 GB", "b", "c", "d", "e", "f",
	}}
	m := BuildMenu(View{State: AwaitingApproval, Confirm: true, Request: "delete the old bills",
		Pending: []Pending{{ID: "p1", Command: "rm -r old-builds", Preview: pv, Heard: "delete the old bills"}}})
	rows := strings.Join(outline(m.Items, ""), "\n")
	for _, want := range []string{
		"|    Preview: Deletes 3 folders, 1,204 files, 3.2 GB|",
		"|        old-builds: folder with 2 folders, 1,204 files, 3.2 GB|",
		"|        d|",
		"|        … 2 more lines (the audit log has them all)|",
		"asker:p1|label|You said: “delete the old bills”|D",
	} {
		if !strings.Contains(rows, want) {
			t.Errorf("no row %q in\n%s", want, rows)
		}
	}
	if strings.Contains(rows, "You asked") || strings.Contains(rows, "|        e|") {
		t.Errorf("typed-request row or too many preview lines in\n%s", rows)
	}
	// Nothing to preview, typed: no preview rows, the request as before.
	m = BuildMenu(View{State: AwaitingApproval, Confirm: true, Request: "tidy up", Pending: []Pending{{ID: "p1", Command: "rm x"}}})
	rows = strings.Join(outline(m.Items, ""), "\n")
	if strings.Contains(rows, "Preview:") || strings.Contains(rows, "You said") || !strings.Contains(rows, "|You asked: “tidy up”|") {
		t.Errorf("rows without preview or transcript:\n%s", rows)
	}
	// A preview's summary is made visible like the command.
	m = BuildMenu(View{State: AwaitingApproval, Confirm: true, Pending: []Pending{{ID: "p1", Command: "rm x",
		Preview: &preview.Preview{Status: preview.Shown, Summary: "Deletes x\u202e"}}}})
	if rows = strings.Join(outline(m.Items, ""), "\n"); !strings.Contains(rows, "Deletes x⟨U+202E⟩") {
		t.Errorf("hidden character not shown:\n%s", rows)
	}
}

package app

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/visible"
)

// View is the part of the core's state the menu shows. BuildMenu turns it
// into a Menu with no other input, so the menu is tested as a pure function.
type View struct {
	State      State
	Cancelling bool
	Note       string                 // transient remark ("still busy…", "cancelled")
	Problems   map[string]ProblemInfo // source → why Hark cannot work fully
	Detail     string                 // command proposed or running
	Stream     string                 // streamed words of the current reply
	LastError  string
	Pending    []Pending
	Confirm    bool // confirm before executing
	Recent     []RecentItem
	CanType    bool // a text prompt tool exists
	Hotkey     string
	Toggle     bool // a press, not a release, ends the recording (toggle mode, or a hybrid tap)
	HasLogin   bool // a login item can be managed here
	Login      bool // Hark starts at login
	HasCues    bool // sound cues can play here
	Cues       bool // settings.SoundCues
	HasLog     bool // a log file exists to open
	// Request is what the user asked for in the current turn, so an
	// approval shows what it belongs to.
	Request string
	// Deadlines is the time left before each pending approval (by
	// Pending.ID) is denied by itself.
	Deadlines map[string]time.Duration
	// UndoTrash names the last set Move to Trash moved ("3 items"), for
	// Undo last trash; empty: nothing to undo.
	UndoTrash string
}

// ProblemInfo is one standing problem: a short title for its menu row and
// the full detail (what failed and how to fix it) behind Problems….
type ProblemInfo struct {
	Title  string
	Detail string
}

// Widths of menu text in characters. Menus grow as wide as their widest
// row, so long text wraps over a few rows instead.
const (
	commandWidth = 60
	statusWidth  = 72
	titleWidth   = 24
	reasonWidth  = 68
	// commandRows is the most rows one pending command takes: longer ones
	// show their head and tail around a row that gives the length, and the
	// whole command is one click away (Show full command…). The tail is
	// kept because the end of a command is where a trailing `; rm -rf ~`
	// would hide.
	commandRows = 4
	statusRows  = 2
	// A preview shows its summary and a few of its lines; the
	// notification shows a few more, the audit log all of them.
	previewSummaryRows = 2
	previewLineRows    = 4
)

// autoRunWarning is said wherever the user looks while confirmation is off.
const autoRunWarning = "commands run without asking"

// BuildMenu is the menu for v. Pending approvals come first, because they
// are what the user must act on; then the status and one short row per
// problem, with the details one click away.
func BuildMenu(v View) Menu {
	status := StatusLine(v)
	tooltip := "Hark — " + status
	if !v.Confirm && !strings.Contains(status, autoRunWarning) {
		tooltip += " — " + autoRunWarning
	}
	m := Menu{Icon: iconFor(v), Tooltip: tooltip, Title: titleFor(v)}
	add := func(it MenuItem) { m.Items = append(m.Items, it) }
	sep := func(name string) { add(MenuItem{ID: PrefixSeparator + name, Kind: ItemSeparator}) }

	if n := len(v.Pending); n > 0 {
		add(MenuItem{ID: IDPendingHeader, Kind: ItemLabel, Label: fmt.Sprintf("Pending approval (%d)", n), Disabled: true})
		for _, p := range v.Pending {
			pendingRows(p, v.Request, v.Deadlines, v.CanType, add)
		}
		sep("pending")
	}

	for i, line := range limitRows(wrap(status, statusWidth), statusRows, statusWidth) {
		id := IDStatus
		if i > 0 {
			id = fmt.Sprintf("%s:%d", IDStatus, i)
		}
		add(MenuItem{ID: id, Kind: ItemLabel, Label: line, Tooltip: status, Disabled: true})
	}
	if !v.Confirm {
		add(MenuItem{ID: IDAutoRun, Kind: ItemLabel, Label: "⚠ Confirmation is off: " + autoRunWarning, Disabled: true,
			Tooltip: "Tick Confirm before executing to be asked again"})
	}
	srcs := problemSources(v.Problems)
	for _, src := range srcs {
		p := v.Problems[src]
		add(MenuItem{ID: PrefixProblem + src, Kind: ItemLabel, Label: "⚠ " + clip(p.Title, reasonWidth), Tooltip: p.Detail, Disabled: true})
	}
	if len(srcs) > 0 {
		add(MenuItem{ID: IDProblems, Kind: ItemAction, Label: "Problems…", Tooltip: "What is wrong and how to fix it"})
	}

	sep("settings")
	add(MenuItem{ID: IDConfirm, Kind: ItemCheckbox, Label: "Confirm before executing", Checked: v.Confirm,
		Tooltip: "Ask before running anything that is not read-only"})
	busy := v.State.Busy()
	if busy {
		label := "Cancel"
		if v.Cancelling {
			label = "Cancelling…"
		}
		add(MenuItem{ID: IDCancel, Kind: ItemAction, Label: label, Disabled: v.Cancelling})
	}
	if v.CanType {
		add(MenuItem{ID: IDTypeRequest, Kind: ItemAction, Label: "Type a request…", Disabled: busy})
	}
	add(MenuItem{ID: IDNewConversation, Kind: ItemAction, Label: "New conversation", Disabled: busy,
		Tooltip: "Forget the current conversation; the next request starts afresh"})
	if v.UndoTrash != "" {
		add(MenuItem{ID: IDUndoTrash, Kind: ItemAction, Label: "Undo last trash (" + clip(Visible(v.UndoTrash), 40) + ")", Disabled: busy,
			Tooltip: "Put back what the last Move to Trash moved; nothing that exists now is overwritten"})
	}
	recent := MenuItem{ID: IDRecent, Kind: ItemSubmenu, Label: "Recent conversations"}
	for _, c := range v.Recent {
		title := strings.TrimSpace(c.Label)
		if title == "" {
			title = c.ID
		}
		recent.Children = append(recent.Children, MenuItem{ID: PrefixConversation + c.ID, Kind: ItemAction, Label: clip(Visible(title), 48)})
	}
	if len(recent.Children) == 0 {
		recent.Children = []MenuItem{{ID: "recent:none", Kind: ItemLabel, Label: "No conversations yet", Disabled: true}}
	}
	add(recent)
	add(MenuItem{ID: IDAuditLog, Kind: ItemAction, Label: "Open audit log"})
	if v.HasLog {
		add(MenuItem{ID: IDLog, Kind: ItemAction, Label: "Open log"})
	}
	if v.HasLogin {
		add(MenuItem{ID: IDLoginItem, Kind: ItemCheckbox, Label: "Launch at login", Checked: v.Login})
	}
	if v.HasCues {
		add(MenuItem{ID: IDSoundCues, Kind: ItemCheckbox, Label: "Sound cues", Checked: v.Cues,
			Tooltip: "A short sound when recording starts, stops or is cancelled"})
	}
	add(MenuItem{ID: IDSettings, Kind: ItemAction, Label: "Settings…"})
	sep("quit")
	add(MenuItem{ID: IDQuit, Kind: ItemAction, Label: "Quit Hark"})
	return m
}

// pendingRows adds the rows of one pending command: the command itself in
// at most commandRows rows, why it needs approval, and the answers.
func pendingRows(p Pending, request string, deadlines map[string]time.Duration, canType bool, add func(MenuItem)) {
	row := 0
	label := func(text string) {
		add(MenuItem{ID: fmt.Sprintf("%s%s:%d", PrefixPending, p.ID, row), Kind: ItemLabel, Label: text, Disabled: true})
		row++
	}
	visible := Visible(p.Command)
	lines, long := CommandRows(visible)
	for i, line := range lines {
		prefix := "    "
		if i == 0 {
			prefix = "  $ "
		}
		label(prefix + line)
	}
	if p.WorkingDirectory != "" {
		label("    In: " + clip(Visible(p.WorkingDirectory), reasonWidth))
	}
	for i, r := range p.Reasons {
		if i == 2 {
			label(fmt.Sprintf("    and %s", plural(len(p.Reasons)-2, "more reason", "more reasons")))
			break
		}
		label("    Why: " + clip(Visible(r.Why), reasonWidth))
	}
	if p.Rule != "" {
		label("    " + clip(Visible(p.Rule), reasonWidth))
	}
	previewRows(p, label)
	var about []string
	if c := strings.Join(strings.Fields(p.Client), " "); c != "" {
		// Another program asks (hark mcp): the spoken request, if any,
		// is not what this command came from.
		about = append(about, "From "+clip(Visible(c), 40))
	} else if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		// Spoken: what Hark heard is what the command came from, so a
		// misheard word shows where it matters.
		about = append(about, "Heard “"+clip(Visible(h), 40)+"”")
	} else if r := strings.Join(strings.Fields(request), " "); r != "" {
		about = append(about, "For “"+clip(Visible(r), 40)+"”")
	}
	if left, ok := deadlines[p.ID]; ok {
		about = append(about, fmt.Sprintf("auto-deny in %d:%02d", int(left/time.Minute), int(left%time.Minute/time.Second)))
	}
	if len(about) > 0 {
		label("    " + strings.Join(about, " · "))
	}
	if p.TrashOffered {
		// A plain deletion under home: the Trash comes first, and the
		// approval is labelled by what it does.
		add(MenuItem{ID: PrefixTrash + p.ID, Kind: ItemAction, Label: "    Move to Trash",
			Tooltip: "Move what it would delete to the Trash instead; Undo last trash puts it back"})
		add(MenuItem{ID: PrefixApprove + p.ID, Kind: ItemAction, Label: "    Delete", Tooltip: "Run: " + clip(visible, 400)})
	} else {
		add(MenuItem{ID: PrefixApprove + p.ID, Kind: ItemAction, Label: "    Approve", Tooltip: "Run: " + clip(visible, 400)})
	}
	if p.Proposal != nil {
		// The label is the rule itself: what is saved is what was shown.
		add(MenuItem{ID: PrefixAlwaysAllow + p.ID, Kind: ItemAction, Label: "    Always allow: " + clip(Visible(ruleText(*p.Proposal)), reasonWidth),
			Tooltip: "Run it, and save the rule “" + p.Proposal.String() + "” so commands like it run without asking. Still asks, e.g.: " + strings.Join(p.Proposal.Examples.NoMatch, " · ")})
	}
	add(MenuItem{ID: PrefixDeny + p.ID, Kind: ItemAction, Label: "    Deny", Tooltip: "Do not run it; the model is told you said no"})
	if canType {
		add(MenuItem{ID: PrefixDenyWhy + p.ID, Kind: ItemAction, Label: "    Deny and say why…", Tooltip: "Do not run it, and tell the model why so it can try something else"})
	}
	if long {
		add(MenuItem{ID: PrefixShowFull + p.ID, Kind: ItemAction, Label: "    Show full command…",
			Tooltip: fmt.Sprintf("Open all %d characters in a text viewer", utf8.RuneCountInString(p.Command))})
	}
}

// ruleText is a rule without its "always allow" in front, for a label
// that already says it: "touch in ~/proj".
func ruleText(r rules.Rule) string {
	return strings.TrimPrefix(r.String(), "always allow ")
}

// previewRows is what the command would touch: the summary in up to two
// rows, then a few of the preview's lines.
func previewRows(p Pending, label func(string)) {
	if p.Preview == nil {
		return
	}
	for i, row := range limitRows(wrap(Visible(p.Preview.Summary), reasonWidth), previewSummaryRows, reasonWidth) {
		prefix := "      "
		if i == 0 {
			prefix = "    Preview: "
		}
		label(prefix + row)
	}
	for i, l := range p.Preview.Lines {
		if i == previewLineRows {
			label(fmt.Sprintf("        … %s", plural(len(p.Preview.Lines)-previewLineRows, "more line", "more lines")))
			break
		}
		label("        " + clip(Visible(strings.TrimSpace(l)), reasonWidth-2))
	}
}

// CommandRows splits a command (already made Visible) into menu rows. A
// command that fits in commandRows rows is shown whole; a longer one shows
// its first two rows, a row giving its length, and its last row, and long
// is true. Every row that shows command text is an exact piece of it.
func CommandRows(cmd string) (rows []string, long bool) {
	all := wrap(cmd, commandWidth)
	if len(all) <= commandRows {
		return all, false
	}
	n := utf8.RuneCountInString(cmd)
	middle := fmt.Sprintf("… %s in all (%s hidden) …", plural(n, "character", "characters"), plural(len(all)-3, "row", "rows"))
	return []string{all[0], all[1], middle, all[len(all)-1]}, true
}

// limitRows keeps at most n rows, ending the last kept one with "…" when
// rows were dropped.
func limitRows(rows []string, n, width int) []string {
	if len(rows) <= n {
		return rows
	}
	rows = append([]string(nil), rows[:n]...)
	last := []rune(rows[n-1])
	if len(last) >= width {
		last = last[:width-1]
	}
	rows[n-1] = string(last) + "…"
	return rows
}

// RecentItem is one row of Recent conversations: the conversation's ID and
// its label (title, when, how it ended: agent.Summary.Label).
type RecentItem struct{ ID, Label string }

// plural writes n with the singular or plural noun ("1 row", "3 rows").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// requiredParts are the problem sources without which the hotkey cannot
// work; while one stands the icon shows a degraded state.
var requiredParts = []string{"voice", "hotkey", "microphone", "transcriber", "ollama", "agent"}

// StatusLine says what Hark is doing, or why it cannot listen.
func StatusLine(v View) string {
	var s string
	switch {
	case v.Cancelling:
		s = "Cancelling…"
	case v.State == Idle:
		s = readyLine(v)
	case v.State == Listening && v.Detail != "":
		s = "Listening: " + streamTail(v.Detail, statusWidth-11)
	case v.State == Listening:
		if v.Toggle {
			s = "Listening… press " + v.Hotkey + " again when done"
		} else {
			s = "Listening… release " + v.Hotkey + " when done"
		}
	case v.State == Transcribing && v.Detail != "":
		s = "Transcribing: " + streamTail(v.Detail, statusWidth-14)
	case v.State == Transcribing:
		s = "Transcribing…"
	case v.State == Thinking:
		if tail := streamTail(v.Stream, statusWidth-12); tail != "" {
			s = "Thinking: " + tail
		} else {
			s = "Thinking…"
		}
	case v.State == AwaitingApproval:
		s = fmt.Sprintf("Waiting for your approval (%d)", len(v.Pending))
	case v.State == Running:
		s = "Running: " + Visible(firstLine(v.Detail))
	case v.State == Error:
		s = "Error: " + v.LastError
	}
	if v.Note != "" {
		s += " — " + v.Note
	}
	return s
}

func readyLine(v View) string {
	if len(v.Problems) > 0 {
		for _, src := range []string{"voice", "hotkey", "microphone", "transcriber"} {
			if _, ok := v.Problems[src]; ok {
				if v.CanType {
					return "Can't listen — Type a request… still works"
				}
				return "Can't listen — type requests with hark send in a terminal"
			}
		}
		if !v.Confirm {
			return "Ready, with problems — " + autoRunWarning
		}
		return "Ready, with problems"
	}
	if !v.Confirm {
		return "Ready — " + autoRunWarning
	}
	if v.Toggle {
		return "Ready — press " + v.Hotkey + " and speak"
	}
	return "Ready — hold " + v.Hotkey + " and speak"
}

func iconFor(v View) string {
	switch {
	case len(v.Pending) > 0 || v.State == AwaitingApproval:
		return "approval"
	case v.State == Listening:
		return "listening"
	case v.State == Error:
		return "error"
	case v.State.Busy():
		return "busy"
	case !v.Confirm:
		return "autorun"
	}
	for _, src := range requiredParts {
		if _, ok := v.Problems[src]; ok {
			return "degraded"
		}
	}
	return "idle"
}

func titleFor(v View) string {
	if v.State != Thinking || v.Cancelling {
		return ""
	}
	return streamTail(v.Stream, titleWidth)
}

func problemSources[T any](p map[string]T) []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// streamTail is the last n characters of streamed text on one line, so the
// status line shows the words as they arrive.
func streamTail(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + strings.TrimLeft(string(r[len(r)-n+1:]), " ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// clip shortens s to n characters with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap splits s into rows of at most width characters, breaking at spaces
// where it can and inside long words where it must. Newlines in s start a
// new row, so a multi-line command keeps its shape.
func wrap(s string, width int) []string {
	var rows []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		if len(r) == 0 {
			rows = append(rows, "")
			continue
		}
		for len(r) > width {
			cut := -1
			for i := width; i > width/2; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			if cut < 0 {
				rows = append(rows, string(r[:width]))
				r = r[width:]
				continue
			}
			rows = append(rows, string(r[:cut]))
			r = r[cut+1:]
		}
		rows = append(rows, string(r))
	}
	return rows
}

// Visible makes every character of s show up, so the user approves the
// command that will really run, not one that merely looks like it: the
// menu renders as the terminal prompts do (see package visible).
func Visible(s string) string { return visible.Text(s) }

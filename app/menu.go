package app

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/visible"
)

// View is the part of the core's state the menu shows. BuildMenu turns it
// into a Menu with no other input, so the menu is tested as a pure function.
type View struct {
	State      State
	Cancelling bool
	// Answering: a spoken answer to the waiting approval is being
	// recorded (AnswerHeard: and is being transcribed).
	Answering, AnswerHeard bool
	// CantListen says why voice input cannot work now, "" when it can:
	// the ready line and Say it again read it (see listenWhy).
	CantListen string

	Note      string                 // transient remark ("still busy…", "cancelled")
	Problems  map[string]ProblemInfo // source → why Hark cannot work fully
	Detail    string                 // command proposed or running
	Stream    string                 // streamed words of the current reply
	LastError string
	Pending   []Pending
	Confirm   bool // confirm before executing
	Recent    []RecentItem
	CanType   bool // a text prompt tool exists
	Hotkey    string
	Toggle    bool // a press, not a release, ends the recording (toggle mode, or a hybrid tap)
	HasLogin  bool // a login item can be managed here
	Login     bool // Hark starts at login
	HasCues   bool // sound cues can play here
	Cues      bool // settings.SoundCues
	HasLog    bool // a log file exists to open
	// Request is what the user asked for in the current turn, so an
	// approval shows what it belongs to.
	Request string
	// Deadlines is the time left before each pending approval (by
	// Pending.ID) is denied by itself.
	Deadlines map[string]time.Duration
	// UndoTrash names the last set Move to Trash moved ("3 items"), for
	// Undo last trash; empty: nothing to undo.
	UndoTrash string
	// Home is written ~ in an approval's folder, as its command and
	// preview write it.
	Home string
	// Pull is the model download under way, nil when none.
	Pull *PullView
}

// ProblemInfo is one standing problem: a short title for its menu row and
// the full detail (what failed and how to fix it) behind Problems….
type ProblemInfo struct {
	Title  string
	Detail string
	// Download is the Ollama model the problem row offers to pull, and
	// DownloadSize its size when known (0 keeps "(SIZE)" out of the row).
	Download     string
	DownloadSize int64
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
			pendingRows(p, v, add)
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
			Tooltip: "Plain deletions in your home folder go to the Trash; other deletions and overwrites are permanent. Tick Confirm before executing to be asked again"})
	}
	srcs := problemSources(v.Problems)
	for _, src := range srcs {
		p := v.Problems[src]
		add(MenuItem{ID: PrefixProblem + src, Kind: ItemLabel, Label: "⚠ " + clip(p.Title, reasonWidth), Tooltip: p.Detail, Disabled: true})
		if p.Download != "" && v.Pull == nil {
			add(downloadRow(p))
		}
	}
	if v.Pull != nil {
		add(MenuItem{ID: IDCancelDownload, Kind: ItemAction, Label: "Cancel download", Tooltip: "Stop downloading " + v.Pull.Model + "; what is downloaded is kept for the next try"})
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
// at most commandRows rows, with every destructive part in full when the
// rest is elided; why it needs approval, most harmful first; what it would
// touch; then Show full command… and the answers, the safe choice first.
// The rows to read are ItemText, not greyed out: they are what the user
// decides on.
func pendingRows(p Pending, v View, add func(MenuItem)) {
	row := 0
	label := func(text string) {
		add(MenuItem{ID: fmt.Sprintf("%s%s:%d", PrefixPending, p.ID, row), Kind: ItemText, Label: text})
		row++
	}
	if p.HeardDoubt != "" {
		// Before the command: a misheard name is what it would delete.
		for i, r := range wrap("⚠ "+Visible(p.HeardDoubt), reasonWidth) {
			if i > 0 {
				r = "  " + r
			}
			label("  " + r)
		}
	}
	if line := AfterNoLine(p); line != "" {
		for _, r := range wrap(line, reasonWidth) {
			label("  " + r)
		}
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
	if long {
		// The middle of a long command is where an `&& rm …` hides: the
		// parts that delete or overwrite are shown whatever is elided.
		shown := strings.Join(lines, " ")
		for _, r := range DestructiveParts(p) {
			part := Visible(strings.TrimSpace(r.Command))
			if strings.Contains(shown, part) {
				continue
			}
			label("    ⚠ The part that " + partAction(r) + ":")
			for _, line := range partRows(part) {
				label("      " + line)
			}
		}
	}
	if p.WorkingDirectory != "" {
		for i, r := range wrap(Visible(Tilde(p.WorkingDirectory, v.Home)), reasonWidth) {
			prefix := "      "
			if i == 0 {
				prefix = "    In: "
			}
			label(prefix + r)
		}
	}
	for _, r := range shownReasons(p.Reasons) {
		for i, line := range wrap(Visible(r.Why), reasonWidth) {
			prefix := "         "
			if i == 0 {
				prefix = "    Why: "
			}
			label(prefix + line)
		}
	}
	if n := len(p.Reasons) - len(shownReasons(p.Reasons)); n > 0 {
		label(fmt.Sprintf("    and %s (Show full command… lists them)", plural(n, "more reason", "more reasons")))
		long = true
	}
	if p.Rule != "" {
		for _, r := range wrap(Visible(p.Rule), reasonWidth) {
			label("    " + r)
		}
	}
	previewRows(p, label)
	var about []string
	if c := ClientName(p.Client); c != "" {
		// Another program asks (hark mcp): the spoken request, if any,
		// is not what this command came from.
		about = append(about, "From "+c)
	} else if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		// Spoken: what Hark heard is what the command came from, so a
		// misheard word shows where it matters.
		about = append(about, "Heard “"+clip(Visible(h), 40)+"”")
	} else if r := strings.Join(strings.Fields(v.Request), " "); r != "" {
		about = append(about, "For “"+clip(Visible(r), 40)+"”")
	}
	if left, ok := v.Deadlines[p.ID]; ok {
		about = append(about, fmt.Sprintf("auto-deny in %d:%02d", int(left/time.Minute), int(left%time.Minute/time.Second)))
	}
	if len(about) > 0 {
		label("    " + strings.Join(about, " · "))
	}
	if long {
		// Above the answers: read it before choosing.
		add(MenuItem{ID: PrefixShowFull + p.ID, Kind: ItemAction, Label: "    Show full command…",
			Tooltip: fmt.Sprintf("Open all %d characters, wrapped, with every reason", utf8.RuneCountInString(p.Command))})
	}
	for _, ans := range Answers(p, v.CanType) {
		switch ans.Kind {
		case AnswerTrash:
			add(MenuItem{ID: PrefixTrash + p.ID, Kind: ItemAction, Label: "    " + ans.Label,
				Tooltip: "Move what it would delete to the Trash instead; Undo last trash puts it back"})
		case AnswerDeny:
			add(MenuItem{ID: PrefixDeny + p.ID, Kind: ItemAction, Label: "    " + ans.Label, Tooltip: "Do not run it; the model is told you said no"})
		case AnswerDenyWhy:
			add(MenuItem{ID: PrefixDenyWhy + p.ID, Kind: ItemAction, Label: "    " + ans.Label, Tooltip: "Do not run it, and tell the model why so it can try something else"})
		case AnswerApprove:
			tip := "Run: " + clip(visible, 400)
			if p.TrashOffered {
				tip = "Delete for good, not to the Trash: " + clip(visible, 400)
			}
			add(MenuItem{ID: PrefixApprove + p.ID, Kind: ItemAction, Label: "    " + ans.Label, Tooltip: tip})
		}
	}
	if p.Proposal != nil {
		add(alwaysAllowItem(p))
	}
	if p.SayAgain && v.CantListen == "" {
		// Misheard: drop what came of it and say the request again.
		add(MenuItem{ID: PrefixSayAgain + p.ID, Kind: ItemAction, Label: "    " + SayAgainLabel,
			Tooltip: "Drop this command and listen again; say the request, then press " + v.Hotkey})
	}
}

// alwaysAllowItem is Always allow… as a submenu: the second step that
// shows what the rule will and will not match, with the one entry that
// saves it. A click on the parent saves nothing.
func alwaysAllowItem(p Pending) MenuItem {
	r := *p.Proposal
	kid := 0
	text := func(s string) MenuItem {
		kid++
		return MenuItem{ID: fmt.Sprintf("%s%s:rule:%d", PrefixPending, p.ID, kid), Kind: ItemText, Label: s}
	}
	it := MenuItem{ID: PrefixPending + p.ID + ":always", Kind: ItemSubmenu, Label: "    Always allow…"}
	it.Children = append(it.Children, text("Saves the rule: "+clip(Visible(r.String()), reasonWidth)))
	for _, m := range r.Examples.Match {
		it.Children = append(it.Children, text("  runs without asking, e.g.: "+clip(Visible(m), reasonWidth)))
	}
	for _, m := range r.Examples.NoMatch {
		it.Children = append(it.Children, text("  still asks, e.g.: "+clip(Visible(m), reasonWidth)))
	}
	it.Children = append(it.Children,
		MenuItem{ID: PrefixSeparator + "always:" + p.ID, Kind: ItemSeparator},
		MenuItem{ID: PrefixAlwaysAllow + p.ID, Kind: ItemAction, Label: "Save this rule and run",
			Tooltip: "Run it now, and run commands the rule matches without asking from now on (hark rules list; hark rules remove)"})
	return it
}

// reasonsShown is how many reasons that do not destroy anything an
// approval lists before folding the rest; the destructive ones are always
// all listed.
const reasonsShown = 2

// shownReasons are the reasons an approval lists, in their order: every
// destructive one, and the others up to reasonsShown. Folding a single
// reason would take the row it needs, so it is listed instead.
func shownReasons(rs []shell.Reason) []shell.Reason {
	others := 0
	for _, r := range rs {
		if !agent.Destructive(r) {
			others++
		}
	}
	room := others
	if others > reasonsShown+1 {
		room = reasonsShown
	}
	var out []shell.Reason
	for _, r := range rs {
		switch {
		case agent.Destructive(r):
			out = append(out, r)
		case room > 0:
			out = append(out, r)
			room--
		}
	}
	return out
}

// partAction is what a destructive part does, from its reason
// ("rm: deletes files" → "deletes files").
func partAction(r shell.Reason) string {
	if _, what, ok := strings.Cut(r.Why, ": "); ok && what != "" {
		return Visible(what)
	}
	return "deletes or overwrites files"
}

// partRowsMax bounds the rows one destructive part of a long command
// takes; a longer part ends with where to read the rest.
const partRowsMax = 12

func partRows(part string) []string {
	rows := wrap(part, commandWidth)
	if len(rows) <= partRowsMax {
		return rows
	}
	rest := utf8.RuneCountInString(strings.Join(rows[partRowsMax-1:], " "))
	return append(rows[:partRowsMax-1:partRowsMax-1], fmt.Sprintf("… %s more of this part (Show full command…)", plural(rest, "character", "characters")))
}

// downloadRow offers to pull the model a problem names, with its size
// when Hark knows it before asking the registry.
func downloadRow(p ProblemInfo) MenuItem {
	label := "    Download " + clip(Visible(p.Download), 40)
	if p.DownloadSize > 0 {
		label += " (" + agent.SizeText(p.DownloadSize) + ")"
	}
	return MenuItem{ID: PrefixDownload + p.Download, Kind: ItemAction, Label: label,
		Tooltip: "Pull it through Ollama now; progress shows in the status line"}
}

// ruleText is a rule without its "always allow" in front, for a label
// that already says it: "touch in ~/proj".
func ruleText(r rules.Rule) string {
	return strings.TrimPrefix(r.String(), "always allow ")
}

// previewRows is what the command would touch: the summary, then a few
// of the preview's lines. Lines wrap rather than being cut, so a path and
// the word after it ("…, replaced") are never lost; folding a single line
// would take the row it needs, so it is shown instead.
func previewRows(p Pending, label func(string)) {
	if p.Preview == nil {
		return
	}
	for i, row := range wrap(Visible(p.Preview.Summary), reasonWidth) {
		prefix := "      "
		if i == 0 {
			prefix = "    Preview: "
		}
		label(prefix + row)
	}
	n := len(p.Preview.Lines)
	if n > previewLineRows+1 {
		n = previewLineRows
	}
	for _, l := range p.Preview.Lines[:n] {
		for i, row := range wrap(Visible(strings.TrimSpace(l)), reasonWidth-2) {
			prefix := "          "
			if i == 0 {
				prefix = "        "
			}
			label(prefix + row)
		}
	}
	if n < len(p.Preview.Lines) {
		// The lines left out are counted with their size, so that the
		// rows shown and this one add up to the summary.
		for i, row := range wrap("… "+p.Preview.More(n)+" (the audit log has them all)", reasonWidth-2) {
			prefix := "          "
			if i == 0 {
				prefix = "        "
			}
			label(prefix + row)
		}
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
	case v.Pull != nil && !v.State.Busy():
		s = "Downloading " + v.Pull.Model + ": " + v.Pull.Progress.String()
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
	case v.State == AwaitingApproval && v.AnswerHeard:
		s = "Hearing your answer…"
	case v.State == AwaitingApproval && v.Answering && v.Toggle:
		s = "Listening for your answer… press " + v.Hotkey + " again when done"
	case v.State == AwaitingApproval && v.Answering:
		s = "Listening for your answer… release " + v.Hotkey + " when done"
	case v.State == AwaitingApproval && v.Note != "":
		// The remark (what a spoken answer was heard as, and the words
		// that work) needs the width; the header counts the approvals.
		return v.Note
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
	if blocked := answerBlocked(v); blocked != "" {
		return blocked
	}
	if v.CantListen != "" {
		if v.CanType {
			return "Can't listen — Type a request… still works"
		}
		return "Can't listen — type requests with hark send in a terminal"
	}
	if len(v.Problems) > 0 {
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

// answerParts are the problem sources without which no request, spoken
// or typed, can be answered.
var answerParts = []string{"agent", "ollama"}

// answerBlocked is the ready line while no request can be answered: what
// is missing and how to fix it, never "still works".
func answerBlocked(v View) string {
	for _, p := range v.Problems {
		if p.Download != "" {
			return "No model yet — download it below"
		}
	}
	for _, src := range answerParts {
		if p, ok := v.Problems[src]; ok {
			return "Not ready: " + p.Title + " — see Problems…"
		}
	}
	return ""
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
// where it can, after a slash in a long path, and inside long words where
// it must. Newlines in s start a
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
				// No space: break after a slash, so a path splits between
				// its folders, not inside a name.
				at := width
				for i := width - 1; i > width/3; i-- {
					if r[i] == '/' {
						at = i + 1
						break
					}
				}
				rows = append(rows, string(r[:at]))
				r = r[at:]
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

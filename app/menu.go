package app

import (
	"fmt"
	"path/filepath"
	"slices"
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
	// NoSandbox says why this machine has no sandbox (Options.NoSandbox);
	// confirmation then stays on and its checkbox cannot be cleared.
	NoSandbox string
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
	// Missed is approvals that timed out unanswered, nil when none.
	Missed *MissedView
	// Settings says what the last edit of settings.json changed
	// ("settings.json: soundCues applied"), for the Settings… row's
	// tooltip: in the status row it made that row grow and shrink, and
	// the menu move under the pointer.
	Settings string
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
	// DownloadKept is the share of the model an earlier, stopped download
	// got (0 to 1): Ollama keeps it and the next download goes on from it.
	DownloadKept float64
	// Offers are further downloads the problem offers, one row each: the
	// speech models a Hark without one can download.
	Offers []DownloadOffer
}

// DownloadOffer is one model a problem row offers to download.
type DownloadOffer struct {
	ID   string // the row's MenuItem.ID
	Name string
	Size int64   // bytes, 0 when unknown
	Kept float64 // the share an earlier, stopped download left to go on from
	// About says what choosing it costs besides its size ("English only,
	// fits any laptop").
	About string
	// Tip and ResumeTip are the row's tooltip, before a first try and
	// once a part is kept.
	Tip, ResumeTip string
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
	// commandBlockRows is the most rows a long command takes when it
	// also shows the parts that delete or overwrite, and entryRows the
	// most one pending entry takes, answers included.
	commandBlockRows = 6
	entryRows        = 20
	statusRows       = 2
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
	// A remark never reaches the tooltip: a tray host re-shows a changed
	// tooltip over the open menu (walk 6, D-18).
	quiet := v
	quiet.Note = ""
	tooltip := "Hark — " + tooltipLine(v, StatusLine(quiet))
	if !v.Confirm && !strings.Contains(status, autoRunWarning) {
		tooltip += " — " + autoRunWarning
	}
	m := Menu{Icon: iconFor(v), Tooltip: tooltip, Title: titleFor(v)}
	add := func(it MenuItem) { m.Items = append(m.Items, it) }
	sep := func(name string) { add(MenuItem{ID: PrefixSeparator + name, Kind: ItemSeparator}) }

	if n := len(v.Pending); n > 0 {
		add(MenuItem{ID: IDPendingHeader, Kind: ItemLabel, Label: fmt.Sprintf("Pending approval (%d)", n), Disabled: true})
		for i, p := range v.Pending {
			if i > 0 {
				sep("pending:" + p.ID)
			}
			if n == 1 {
				pendingRows(p, v, add)
				continue
			}
			// Two or more: each is its header and one row that opens
			// the whole entry, so that however many wait, the menu fits
			// the screen and Settings… and Quit stay in reach.
			var rows []MenuItem
			pendingRows(p, v, func(it MenuItem) { rows = append(rows, it) })
			add(rows[0])
			add(MenuItem{ID: PrefixEntry + p.ID, Kind: ItemSubmenu, Label: collapsedLabel(p, v), Children: rows[1:]})
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
	if mv := v.Missed; mv != nil {
		add(MenuItem{ID: IDAskAgain, Kind: ItemAction, AccessKey: 'g',
			Label:   fmt.Sprintf("⚠ %s timed out at %s — Ask again", plural(mv.Count, "approval", "approvals"), mv.At.Format("15:04")),
			Tooltip: "Send “" + clip(Visible(mv.Request), 60) + "” to the model again: it proposes the commands afresh and asks you"})
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
		for _, o := range p.Offers {
			if v.Pull == nil {
				add(offerRow(o))
			}
		}
	}
	if v.Pull != nil {
		add(MenuItem{ID: IDCancelDownload, Kind: ItemAction, Label: "Cancel download", Tooltip: "Stop downloading " + v.Pull.Model + "; " + v.Pull.Keeps})
	}
	if len(srcs) > 0 {
		add(MenuItem{ID: IDProblems, Kind: ItemAction, Label: "Problems…", Tooltip: "What is wrong and how to fix it"})
	}

	sep("settings")
	confirm := MenuItem{ID: IDConfirm, Kind: ItemCheckbox, Label: "Confirm before executing", Checked: v.Confirm,
		Tooltip: "Ask before running anything that is not read-only"}
	if v.NoSandbox != "" {
		confirm.Checked, confirm.Disabled, confirm.Tooltip = true, true, ConfirmStaysOn(v.NoSandbox)
	}
	add(confirm)
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
	settingsTip := "Open settings.json in your editor; most changes apply as soon as you save"
	if v.Settings != "" {
		settingsTip = v.Settings
	}
	add(MenuItem{ID: IDSettings, Kind: ItemAction, Label: "Settings…", Tooltip: settingsTip})
	sep("quit")
	add(MenuItem{ID: IDQuit, Kind: ItemAction, Label: "Quit Hark"})
	return m
}

// pendingRows adds the rows of one pending command, at most entryRows in
// all: the command itself in at most commandBlockRows rows, with the
// start of every part that deletes or overwrites when the rest is elided;
// why it needs approval, most harmful first; what it would touch; then
// Show full command… and the answers, the safe choice first. When the
// details do not fit, each keeps at least its first row and Show full
// command… holds the rest. The rows to read are ItemText, not greyed
// out: they are what the user decides on.
func pendingRows(p Pending, v View, add func(MenuItem)) {
	row := 0
	label := func(text string) {
		add(MenuItem{ID: fmt.Sprintf("%s%s:%d", PrefixPending, p.ID, row), Kind: ItemText, Label: text})
		row++
	}
	visible := Visible(p.Command)
	block, long := commandBlock(visible, DestructiveParts(p))

	// The details, in the order shown; fit gives each the rows there is
	// room for.
	var doubt, afterNo, folder, why, rule, pv section
	if p.HeardDoubt != "" {
		// Before the command: a misheard name is what it would delete.
		for i, r := range wrap("⚠ "+Visible(p.HeardDoubt), reasonWidth) {
			if i > 0 {
				r = "  " + r
			}
			doubt.rows = append(doubt.rows, "  "+r)
		}
	}
	if line := AfterNoLine(p); line != "" {
		for _, r := range wrap(line, reasonWidth) {
			afterNo.rows = append(afterNo.rows, "  "+r)
		}
	}
	if p.WorkingDirectory != "" {
		for i, r := range wrap(Visible(Tilde(p.WorkingDirectory, v.Home)), reasonWidth) {
			prefix := "      "
			if i == 0 {
				prefix = "    In: "
			}
			folder.rows = append(folder.rows, prefix+r)
		}
	}
	// What the kernel will hold the run to; a whole home folder or
	// system root first, with the warnings.
	for i, l := range ScopeLines(p, v.Home) {
		rows := &folder.rows
		if i == 0 && ScopeWarns(p) {
			rows = &doubt.rows
		}
		for j, r := range wrap(Visible(l), reasonWidth) {
			prefix := "      "
			if j == 0 {
				prefix = "    "
			}
			*rows = append(*rows, prefix+r)
		}
	}
	why = reasonRows(p.Reasons)
	// Never folded: it says what an absolute home path in the command is.
	legend := HomeLegend(p, v.Home)
	if p.Rule != "" {
		for _, r := range wrap(Visible(p.Rule), reasonWidth) {
			rule.rows = append(rule.rows, "    "+r)
		}
	}
	pv = previewSection(p)
	// Who asks heads the entry (Asker); this row keeps the countdown.
	var about []string
	if left, ok := v.Deadlines[p.ID]; ok {
		about = append(about, fmt.Sprintf("auto-deny in %d:%02d", int(left/time.Minute), int(left%time.Minute/time.Second)))
	}
	answers := Answers(p, v.CanType)
	// The rows that are never folded: the header, the command, the about
	// row, Show full command…, the answers, Always allow… and Say it
	// again.
	fixed := 1 + len(block) + 1 + len(answers)
	if len(about) > 0 {
		fixed++
	}
	if p.Proposal != nil {
		fixed++
	}
	if p.SayAgain && v.CantListen == "" {
		fixed++
	}
	if legend != "" {
		fixed++
	}
	// Most needed first: the reasons, a misheard name, the folder, a
	// retry's line, the preview, the rule.
	if fit(entryRows-fixed, &why, &doubt, &folder, &afterNo, &pv, &rule) {
		long = true
	}
	if why.cut {
		long = true
	}
	add(MenuItem{ID: PrefixAsker + p.ID, Kind: ItemLabel, Label: Asker(p, v.Request), Disabled: true})
	for _, s := range []section{doubt, afterNo} {
		for _, r := range s.rows {
			label(r)
		}
	}
	for _, r := range block {
		label(r)
	}
	for _, r := range folder.rows {
		label(r)
	}
	if legend != "" {
		label("    " + legend)
	}
	for _, s := range []section{why, rule, pv} {
		for _, r := range s.rows {
			label(r)
		}
	}
	if len(about) > 0 {
		label("    " + strings.Join(about, " · "))
	}
	if long {
		// Above the answers: read it before choosing.
		add(MenuItem{ID: PrefixShowFull + p.ID, Kind: ItemAction, Label: "    Show full command…", AccessKey: 'f',
			Tooltip: fmt.Sprintf("Open all %d characters, wrapped, with every reason", utf8.RuneCountInString(p.Command))})
	}
	for _, ans := range answers {
		switch ans.Kind {
		case AnswerTrash:
			add(MenuItem{ID: PrefixTrash + p.ID, Kind: ItemAction, Label: "    " + ans.Label, AccessKey: 'T',
				Tooltip: "Move what it would delete to the Trash instead; Undo last trash puts it back"})
		case AnswerDeny:
			add(MenuItem{ID: PrefixDeny + p.ID, Kind: ItemAction, Label: "    " + ans.Label, AccessKey: 'D', Tooltip: "Do not run it; the model is told you said no"})
		case AnswerDenyWhy:
			add(MenuItem{ID: PrefixDenyWhy + p.ID, Kind: ItemAction, Label: "    " + ans.Label, AccessKey: 'w', Tooltip: "Do not run it, and tell the model why so it can try something else"})
		case AnswerApprove:
			tip, key := "Run: "+clip(visible, 400), 'A'
			if p.TrashOffered {
				// Deleting for good takes the arrow keys and Enter,
				// never one stray letter.
				tip, key = "Delete for good, not to the Trash: "+clip(visible, 400), 0
			}
			add(MenuItem{ID: PrefixApprove + p.ID, Kind: ItemAction, Label: "    " + ans.Label, AccessKey: key, Tooltip: tip})
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

// Asker heads an approval's entry with who asks for it: another program
// by the name it gave, else the request the command came from, as Hark
// heard it when it was spoken, so a misheard word shows where it matters.
func Asker(p Pending, request string) string {
	if c := ClientName(p.Client); c != "" {
		if c == "another program" { // the name of a program that gave none
			c = "Another program"
		}
		return c + " asks:"
	}
	if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		return "You said: “" + clip(Visible(h), 48) + "”"
	}
	if r := strings.Join(strings.Fields(request), " "); r != "" {
		return "You asked: “" + clip(Visible(r), 48) + "”"
	}
	return "Hark's model asks:"
}

// collapsedLabel is the row that opens a collapsed entry: the start of
// its command, and its countdown.
func collapsedLabel(p Pending, v View) string {
	label := "  $ " + clip(Visible(firstLine(p.Command)), commandWidth-16)
	if left, ok := v.Deadlines[p.ID]; ok {
		label += fmt.Sprintf(" · auto-deny in %d:%02d", int(left/time.Minute), int(left%time.Minute/time.Second))
	}
	return label
}

// section is one detail of a pending entry: its rows, and how it folds
// to fewer (nil: the last row kept ends with "…").
type section struct {
	rows []string
	fold func(n int) []string
	cut  bool // rows were left out (Show full command… has them)
}

// fit shares room rows among the sections, most needed first: each keeps
// its first row if there is room at all, then the first sections get
// their whole length. It reports whether any section was folded.
func fit(room int, ss ...*section) (folded bool) {
	give := make([]int, len(ss))
	for i, s := range ss {
		if len(s.rows) > 0 && room > 0 {
			give[i] = 1
			room--
		}
	}
	for i, s := range ss {
		more := min(room, len(s.rows)-give[i])
		if more > 0 {
			give[i] += more
			room -= more
		}
	}
	for i, s := range ss {
		if give[i] >= len(s.rows) {
			continue
		}
		folded = true
		s.cut = true
		switch {
		case give[i] == 0:
			s.rows = nil
		case s.fold != nil:
			s.rows = s.fold(give[i])
		default:
			s.rows = limitRows(s.rows, give[i], reasonWidth)
		}
	}
	return folded
}

// reasonRows lists shownReasons, with a row that counts the folded ones;
// folded to fewer rows it keeps the most harmful reasons and counts the
// rest.
func reasonRows(rs []shell.Reason) section {
	rs = mergeReasons(rs)
	more := func(n int) string {
		return fmt.Sprintf("    and %s (Show full command… lists them)", plural(n, "more reason", "more reasons"))
	}
	build := func(shown []shell.Reason) []string {
		var rows []string
		for _, r := range shown {
			for i, line := range wrap(Visible(r.Why), reasonWidth) {
				prefix := "         "
				if i == 0 {
					prefix = "    Why: "
				}
				rows = append(rows, prefix+line)
			}
		}
		if rest := len(rs) - len(shown); rest > 0 {
			rows = append(rows, more(rest))
		}
		return rows
	}
	shown := shownReasons(rs)
	s := section{rows: build(shown), cut: len(shown) < len(rs)}
	s.fold = func(n int) []string {
		// Drop reasons from the end (the least harmful) until the rows
		// and the count of the others fit.
		for k := len(shown) - 1; k >= 1; k-- {
			if rows := build(shown[:k]); len(rows) <= n {
				return rows
			}
		}
		first := "    Why: " + Visible(rs[0].Why)
		if n == 1 {
			return []string{clip(first, reasonWidth) + fmt.Sprintf(" (+%d more)", len(rs)-1)}
		}
		return append(limitRows(build(rs[:1]), n-1, reasonWidth), more(len(rs)-1))
	}
	return s
}

// mergeReasons lists a reason given for several parts once, with how
// many: four copies are "cp: copies files (4 parts)", not four rows that
// push the others out of sight. Show full command… lists every part.
func mergeReasons(rs []shell.Reason) []shell.Reason {
	count := map[string]int{}
	for _, r := range rs {
		count[r.Why]++
	}
	var out []shell.Reason
	for _, r := range rs {
		n := count[r.Why]
		if n == 0 {
			continue // listed already
		}
		count[r.Why] = 0
		if n > 1 {
			r.Why = fmt.Sprintf("%s (%d parts)", r.Why, n)
		}
		out = append(out, r)
	}
	return out
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

// downloadRow offers to pull the model a problem names, with its size
// when Hark knows it before asking the registry.
func downloadRow(p ProblemInfo) MenuItem {
	return offerRow(DownloadOffer{ID: PrefixDownload + p.Download, Name: p.Download, Size: p.DownloadSize, Kept: p.DownloadKept,
		Tip: "Pull it through Ollama now; progress shows in the status line", ResumeTip: resumeTip})
}

// offerRow is the row of one download on offer: its size and what else
// it costs, or, once an earlier try left a part, how much of it is there.
func offerRow(o DownloadOffer) MenuItem {
	if pct := int(100 * o.Kept); pct > 0 && o.Size > 0 {
		return MenuItem{ID: o.ID, Kind: ItemAction,
			Label:   fmt.Sprintf("    Resume download %s (%s, %d%% already downloaded)", clip(Visible(o.Name), 40), agent.SizeText(o.Size), pct),
			Tooltip: o.ResumeTip}
	}
	label := "    Download " + clip(Visible(o.Name), 40)
	if o.Size > 0 {
		label += " (" + agent.SizeText(o.Size) + ")"
	}
	if o.About != "" {
		label += " — " + o.About
	}
	return MenuItem{ID: o.ID, Kind: ItemAction, Label: label, Tooltip: o.Tip}
}

// resumeTip says when the part already downloaded is kept: Ollama keeps
// it while it runs and drops it when it starts again.
const resumeTip = "Ollama keeps the part already downloaded and goes on from it; if Ollama restarts first, the download starts over"

// ruleText is a rule without its "always allow" in front, for a label
// that already says it: "touch in ~/proj".
func ruleText(r rules.Rule) string {
	return strings.TrimPrefix(r.String(), "always allow ")
}

// previewSection is what the command would touch: the summary, then a
// few of the preview's lines, and a row that counts the others. Lines
// wrap rather than being cut, so a path and the word after it ("…,
// replaced") are never lost; folding a single line would take the row it
// needs, so it is shown instead. Folded to fewer rows it shows fewer
// lines, and at the least the summary.
func previewSection(p Pending) section {
	if p.Preview == nil {
		return section{}
	}
	var summary []string
	for i, row := range wrap(Visible(p.Preview.Summary), reasonWidth) {
		prefix := "      "
		if i == 0 {
			prefix = "    Preview: "
		}
		summary = append(summary, prefix+row)
	}
	lines := p.Preview.Lines
	indent := func(rows []string) []string {
		for i := range rows {
			if i == 0 {
				rows[i] = "        " + rows[i]
			} else {
				rows[i] = "          " + rows[i]
			}
		}
		return rows
	}
	build := func(n int) []string {
		rows := append([]string(nil), summary...)
		for _, l := range lines[:n] {
			rows = append(rows, indent(wrap(Visible(strings.TrimSpace(l)), reasonWidth-2))...)
		}
		if n < len(lines) {
			// The lines left out are counted with their size, so that
			// the rows shown and this one add up to the summary.
			rows = append(rows, indent(wrap("… "+p.Preview.More(n)+" (the audit log has them all)", reasonWidth-2))...)
		}
		return rows
	}
	n := len(lines)
	if n > previewLineRows+1 {
		n = previewLineRows
	}
	return section{rows: build(n), fold: func(rows int) []string {
		for k := n - 1; k >= 0; k-- {
			if out := build(k); len(out) <= rows {
				return out
			}
		}
		return limitRows(summary, rows, reasonWidth)
	}}
}

// commandBlock is a command (already made Visible) as menu rows, at most
// commandBlockRows of them. A command that fits is shown whole; a longer
// one shows its first row or two, a row giving its length, the start of
// every part that deletes or overwrites (parts, from its reasons) that
// those rows do not show, and its last row; long is then true. Every row
// that shows command text is an exact piece of it, the parts' rows after
// their "⚠ ".
func commandBlock(cmd string, parts []shell.Reason) (rows []string, long bool) {
	all := wrap(cmd, commandWidth)
	if len(all) <= commandBlockRows {
		return prefixed(all), false
	}
	head, tail := all[0], all[len(all)-1]
	shown := squash(head + " " + tail)
	var hidden []shell.Reason
	var seen []string
	for _, r := range parts {
		part := Visible(strings.TrimSpace(r.Command))
		// A part wholly in the head or tail is shown, and so is one
		// whose start the first row already shows (`rm` leading a long
		// list of files): its start is what the row is for.
		if strings.Contains(shown, squash(part)) || strings.HasPrefix(squash(head), partStart(part)) || slices.Contains(seen, part) {
			continue
		}
		seen = append(seen, part)
		hidden = append(hidden, r)
	}
	// Said in the user's words, not the layout's ("9 rows hidden").
	middle := fmt.Sprintf("… %s in all; Show full command… has the rest …", plural(utf8.RuneCountInString(cmd), "character", "characters"))
	if len(hidden) == 0 {
		return prefixed([]string{head, all[1], middle, tail}), true
	}
	out := []string{head, middle}
	out = append(out, partRows(hidden, commandBlockRows-3)...)
	return prefixed(append(out, tail)), true
}

// partStart is the start of a part that must be visible: its first
// words, up to 24 characters.
func partStart(part string) string {
	r := []rune(squash(part))
	return string(r[:min(len(r), 24)])
}

// prefixed indents a command's rows under the "$" of its first.
func prefixed(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		if i == 0 {
			out[i] = "  $ " + r
		} else {
			out[i] = "    " + r
		}
	}
	return out
}

// squash is s with every run of white space made one space, so that text
// wrap split at a space still matches.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// partRows shows the destructive parts a long command's visible rows
// miss (from its reasons, most harmful first), in at most room rows: each
// part starts a row with "⚠ ", the first ones get more rows while there
// is room, and a part cut short ends with how much of it is left. With
// more parts than rows, the first keeps all rows but one, so that what
// the most harmful part deletes shows and not only its program, and the
// last row names the rest by what they are ("cp ×4"): a copy into a new
// folder is no deletion, and a row that called it one would be untrue.
func partRows(rs []shell.Reason, room int) []string {
	if len(rs) > room {
		first := min(len(wrap("⚠ "+Visible(strings.TrimSpace(rs[0].Command)), commandWidth)), room-1)
		keep := max(1, room-first)
		out := partRows(rs[:keep], room-1)
		row := fmt.Sprintf("⚠ and %s: %s", plural(len(rs)-keep, "more part", "more parts"), partNames(rs[keep:]))
		return append(out, clip(row, commandWidth))
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = Visible(strings.TrimSpace(r.Command))
	}
	wrapped := make([][]string, len(parts))
	give := make([]int, len(parts))
	left := room - len(parts)
	for i, p := range parts {
		wrapped[i] = wrap("⚠ "+p, commandWidth)
		give[i] = 1
	}
	for i := range parts {
		more := min(left, len(wrapped[i])-give[i])
		give[i] += more
		left -= more
	}
	var out []string
	for i, w := range wrapped {
		kept := append([]string(nil), w[:give[i]]...)
		if give[i] < len(w) {
			kept = cutPart(parts[i], kept)
		}
		for j, r := range kept {
			if j > 0 {
				r = "  " + r // under the part's "⚠ "
			}
			out = append(out, r)
		}
	}
	return out
}

// partNames names parts by the program or redirection their reasons
// name, in order, a repeated one once with its count: "find -delete,
// cp ×4, > README.txt".
func partNames(rs []shell.Reason) string {
	var keys []string
	count, one := map[string]int{}, map[string]string{}
	for _, r := range rs {
		key, _, _ := strings.Cut(r.Why, ": ")
		name := key
		if t := strings.TrimLeft(key, "<>|&0123456789 "); t != key {
			// A redirection: counted by its operator, named by its
			// file without the folders when it is the only one.
			key = strings.TrimSpace(key[:len(key)-len(t)])
			name = key + " " + filepath.Base(t)
		}
		if count[key] == 0 {
			keys = append(keys, key)
			one[key] = Visible(name)
		}
		count[key]++
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = one[k]
		if c := count[k]; c > 1 {
			names[i] = fmt.Sprintf("%s ×%d", Visible(k), c)
		}
	}
	return strings.Join(names, ", ")
}

// cutPart ends the rows kept of a part that does not fit with how many of
// its characters are left: on a row of its own, or on the one row there
// is, cut at a space where there is one so that no name is cut.
func cutPart(part string, kept []string) []string {
	// The last row kept makes room for the count, cut at a space so that
	// no name is cut: a first target shown whole says more than a row of
	// its own that only counts. A row with no space to cut at gives way
	// to the count instead, unless it is the only one.
	last, own := len(kept)-1, false
	if r := []rune(kept[last]); len(r) > commandWidth-24 {
		at := commandWidth - 24
		i := strings.LastIndex(string(r[:at]), " ")
		switch {
		case i > len("⚠ ") || last > 0 && i > 0:
			kept[last] = string(r[:utf8.RuneCountInString(string(r[:at])[:i])])
		case last > 0:
			kept, own = kept[:last], true
		default:
			kept[last] = string(r[:at])
		}
	}
	// The rows are exact pieces of "⚠ "+part; what follows the last
	// is the rest.
	text, pos := "⚠ "+part, 0
	for _, r := range kept {
		pos += strings.Index(text[pos:], r) + len(r)
	}
	more := fmt.Sprintf("… and %s more", plural(utf8.RuneCountInString(strings.TrimLeft(text[pos:], " ")), "character", "characters"))
	if own {
		return append(kept, more)
	}
	kept[len(kept)-1] += " " + more
	return kept
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
		// The header above counts the approvals; this row says how
		// else to answer, not the count again.
		s = "Answer above (or from the keyboard: hark approve, hark deny)"
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

// tooltipLine is the tray tooltip's words: the state, without what
// changes many times a second (progress, streamed text, the command
// running). A tray host re-shows its tooltip whenever it changes, and
// xfce4-panel does so over the open menu's first rows; the menu's status
// row has the live detail.
func tooltipLine(v View, status string) string {
	switch {
	case v.Cancelling:
		return "cancelling"
	case v.Pull != nil && !v.State.Busy():
		return "downloading " + clip(Visible(v.Pull.Model), 40)
	case v.State == Listening || v.State == AwaitingApproval && v.Answering:
		return "listening"
	case v.State == Transcribing:
		return "transcribing"
	case v.State == Thinking:
		return "thinking"
	case v.State == AwaitingApproval:
		return fmt.Sprintf("waiting for your approval (%d)", len(v.Pending))
	case v.State == Running:
		return "running a command"
	}
	return status
}

func readyLine(v View) string {
	if blocked := answerBlocked(v); blocked != "" {
		return blocked
	}
	if p := v.Problems["transcriber"]; len(p.Offers) > 0 {
		return "No speech model yet — download one below; what you say is kept"
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
